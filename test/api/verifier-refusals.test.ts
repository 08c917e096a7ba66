// The verifier, driven through the hosted transport as the hosted page drives it: each dishonest or
// unacceptable presentation is refused with its stable code, and nothing completes (no result, no audit
// record, no webhook). Then the honest one completes, so the refusals are not vacuous.
import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import type { PresentOverrides } from '../../server/src/modules/sandbox/reference-wallet';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import { Api, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient } from '../support/signer';

describe('verifier refusals over the hosted transport', () => {
  const page = identifyFixture({ label: 'refusals', workers: false });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  beforeAll(() => ({ t, api, workflowId } = page));

  async function startedSession() {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const signer = new SignerClient(t.baseUrl, created.body.id);
    const started = await signer.start();
    expect(started.status).toBe(200);
    expect(started.setCookie).toMatch(/HttpOnly/);
    expect(started.setCookie).toMatch(/Secure/);
    expect(started.setCookie).toMatch(/SameSite=Strict/);
    return { id: created.body.id as string, signer };
  }

  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const cases: { name: string; persona?: string; overrides?: PresentOverrides; code: string }[] = [
    { name: 'a tampered disclosure', overrides: { tamperDisclosure: true }, code: 'disclosure_invalid' },
    { name: 'a wrong nonce', overrides: { nonce: 'A'.repeat(43) }, code: 'nonce_mismatch' },
    { name: 'a wrong aud', overrides: { aud: 'origin:https://attacker.example' }, code: 'audience_mismatch' },
    {
      name: 'a key-binding JWT from another key',
      overrides: { kbKey: otherKey },
      code: 'key_binding_invalid',
    },
    { name: 'an untrusted issuer', persona: 'unknown_issuer', code: 'issuer_untrusted' },
    { name: 'a revoked credential', persona: 'revoked', code: 'credential_revoked' },
    { name: 'a missing key binding', overrides: { omitKeyBinding: true }, code: 'key_binding_missing' },
  ];

  it.each(cases)('refuses $name with $code and completes nothing', async ({ persona, overrides, code }) => {
    const { id, signer } = await startedSession();
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.presentWith({
      persona: persona ?? 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
      overrides: overrides ?? {},
    });
    const res = await signer.submit(wr.body.request_id, response);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('in_progress');
    expect(read.body.results).toEqual([]);
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(0);
    expect(await t.svc.ds.getRepository(AuditRecordEntity).countBy({ sessionId: id })).toBe(0);
    expect(await t.svc.ds.getRepository(WebhookEventEntity).countBy({ sessionId: id })).toBe(0);
    expect((await api.rest('GET', `/v1/audits/${id}_0`)).status).toBe(404);
  });

  it('accepts the honest presentation, then refuses its replay', async () => {
    const { id, signer } = await startedSession();
    const wr = await signer.walletRequest();
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    const ok = await signer.submit(wr.body.request_id, response);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
    expect(JSON.stringify(ok.body)).not.toContain('Mustermann'); // the projection carries no results
    const replay = await signer.submit(wr.body.request_id, response);
    expect(replay.status).toBe(409); // the session is no longer waiting for a wallet
    expect(replay.body.code).toBe('session_state_conflict');
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(1);
  });

  it('lets only the started browser act on the session', async () => {
    const { id, signer } = await startedSession();
    const other = new SignerClient(t.baseUrl, id);
    expect((await other.session()).body.binding).toBe('other_browser');
    expect((await signer.session()).body.binding).toBe('this_browser');
    const steal = await other.start();
    expect(steal.status).toBe(403);
    expect(steal.body.code).toBe('session_bound_elsewhere');
    const wr = await other.walletRequest();
    expect(wr.status).toBe(403);
    expect(wr.body.code).toBe('session_bound_elsewhere');
    const unknown = new SignerClient(t.baseUrl, 'sess_doesnotexist0000000000000');
    expect((await unknown.session()).status).toBe(404);
  });
});
