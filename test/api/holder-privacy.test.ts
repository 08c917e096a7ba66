// Age checks leak no correlatable identifier (issue 28, ADR 0046), as the business observes every surface: the
// REST read, the step.completed and session.completed webhooks, the dashboard's own GraphQL operations
// (SessionDetail and AuditRecord, the document hosted-web sends), the audit record (GET /v1/audits/{id}) and the
// receipt PDF (its pages through pdftotext, its receipt.json through pdfdetach) carry no holder key, thumbprint
// or status-list index of an age_verify step, while continuity is still enforced (another key is refused) and
// said as a fact. The holder key an auditor needs is in the sealed evidence. Identify steps carry no key either;
// sign and attestation carry the key of their holder signature, and nothing else of it.
import { readFileSync } from 'node:fs';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { pdfdetachJson, pdftotext, REPO_ROOT, SignerBrowser, scratch } from '../support/receipts';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import type { SignerClient } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const DASHBOARD_SESSIONS = readFileSync(
  `${REPO_ROOT}/hosted-web/src/dashboard/graphql/sessions.graphql`,
  'utf8',
);

/** Every spelling of the holder key a surface could leak: the RFC 7638 thumbprint (base64url and hex), x, y. */
interface HolderKey {
  thumbprint: string;
  jwk: { x: string; y: string };
}
function leaks(surface: unknown, key: HolderKey): string[] {
  const text = typeof surface === 'string' ? surface : JSON.stringify(surface);
  const hex = Buffer.from(key.thumbprint, 'base64url').toString('hex');
  const found = [key.thumbprint, hex, key.jwk.x, key.jwk.y].filter((v) => text.includes(v));
  // and the names under which a key or a credential reference travelled before ADR 0046
  // (`"by":"holder_key"` is the binding fact, and `status_list` the name of a check: neither is a key)
  for (const name of ['thumbprint', '"holder_key":', '"holderKey":', '"cnf":', '"idx":', '"uri":'])
    if (text.includes(name)) found.push(name);
  return found;
}

describe('age checks leak no holder key (ADR 0046)', () => {
  let t: TestService;
  let api: Api;
  const receiver = new WebhookReceiver();
  let ageWf: string;
  let identifyWf: string;
  let signWf: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'holder_privacy' });
    await receiver.start();
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: ageWf } = await publishWorkflow(
      api,
      [
        { primitive: 'age_verify', threshold: 18 },
        { primitive: 'age_verify', threshold: 21 },
      ],
      receiver.url,
      'Two age checks',
    ));
    ({ workflowId: identifyWf } = await publishWorkflow(api, [
      { primitive: 'identify', claims: ['nationality'] },
      { primitive: 'age_verify', threshold: 18 },
    ]));
    ({ workflowId: signWf } = await setUpSignWorkflow(api, {
      before: [{ primitive: 'age_verify', threshold: 18 }],
    }));
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  async function share(signer: SignerClient, persona: string) {
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const answer = await t.svc.wallet.respond({ persona, request: wr.body.request, origin: t.baseUrl });
    return signer.submit(wr.body.request_id, answer);
  }

  /** The holder key of a step, from its sealed evidence (what only the service and an auditor can open). */
  async function sealedHolderKey(id: string, stage: number): Promise<HolderKey> {
    const plain = await t.svc.evidence.open(t.svc.ds.manager, id, stage);
    const evidence = JSON.parse(String(plain));
    const issuerJwt = String(evidence.presentation).split('~')[0] as string;
    const jwk = (decodeJwt(issuerJwt).cnf as { jwk: HolderKey['jwk'] }).jwk;
    expect(evidence.holder_key_thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    return { thumbprint: evidence.holder_key_thumbprint, jwk };
  }

  async function hooksOf(id: string, count: number) {
    await expect
      .poll(() => receiver.deliveries.filter((d) => d.body.data?.session_id === id).length, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(count);
    return receiver.deliveries.filter((d) => d.body.data?.session_id === id).map((d) => d.body);
  }

  it('two age checks: every surface the business reads has over, threshold and the binding fact, never the key', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: ageWf });
    const browser = new SignerBrowser(t.baseUrl, created.body.id);
    await browser.start();
    const id: string = created.body.id;
    expect((await share(browser.client, 'adult')).status).toBe(200);
    // continuity is still enforced: the same person's credential under another key is refused
    const refused = await share(browser.client, 'adult_second_device');
    expect(refused.body.code).toBe('holder_mismatch');
    expect((await share(browser.client, 'adult')).status).toBe(200);
    const key = await sealedHolderKey(id, 0);
    expect((await sealedHolderKey(id, 1)).thumbprint).toBe(key.thumbprint);

    // REST
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results.map(({ completed_at: _c, ...r }: Json) => r)).toEqual([
      {
        stage: 0,
        primitive: 'age_verify',
        audit_id: `${id}_0`,
        over: true,
        threshold: 18,
        holder_binding: { by: 'first', bound_to_stage: null },
      },
      {
        stage: 1,
        primitive: 'age_verify',
        audit_id: `${id}_1`,
        over: true,
        threshold: 21,
        holder_binding: { by: 'holder_key', bound_to_stage: 0 },
      },
    ]);
    expect(leaks(read.body, key)).toEqual([]);

    // webhooks: step.completed of both steps and session.completed
    const hooks = await hooksOf(id, 3);
    expect(hooks.map((h) => h.event).sort()).toEqual([
      'session.completed',
      'step.completed',
      'step.completed',
    ]);
    expect(leaks(hooks, key)).toEqual([]);

    // the audit records as the business reads them, each with the binding as a fact
    for (const stage of [0, 1]) {
      const audit = await api.rest('GET', `/v1/audits/${id}_${stage}`);
      expect(audit.status).toBe(200);
      expect(audit.body.verification.holder_binding).toEqual(read.body.results[stage].holder_binding);
      expect(audit.body.verification.status).toEqual({ status: 'valid' });
      expect(leaks(audit.body, key)).toEqual([]);
    }

    // the dashboard's own GraphQL operations (session detail and the audit record panel)
    const headers = { 'Content-Type': 'application/json', ...(await api.gqlHeaders()) };
    const op = async (operationName: string, variables: Json) => {
      const res = await fetch(`${t.baseUrl}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: DASHBOARD_SESSIONS, operationName, variables }),
      });
      const out = (await res.json()) as Json;
      expect(out.errors).toBeUndefined();
      return out.data;
    };
    const detail = await op('SessionDetail', { id });
    expect(detail.session.results.map((r: Json) => r.result)).toEqual([
      { over: true, threshold: 18, holder_binding: { by: 'first', bound_to_stage: null } },
      { over: true, threshold: 21, holder_binding: { by: 'holder_key', bound_to_stage: 0 } },
    ]);
    expect(leaks(detail, key)).toEqual([]);
    for (const stage of [0, 1]) {
      const audit = await op('AuditRecord', { id: `${id}_${stage}` });
      expect(audit.auditRecord.record.primitive).toBe('age_verify');
      expect(leaks(audit, key)).toEqual([]);
    }

    // the receipt: its pages and its machine-readable attachment
    const pdf = await browser.pdf();
    expect(pdf.status).toBe(200);
    const files = scratch();
    try {
      const file = files.write('receipt.pdf', pdf.bytes);
      const text = pdftotext(file);
      expect(text.replace(/\s+/g, ' ')).toContain(
        'Shared by the same person as in step 1 (confirmed by the same wallet)',
      );
      expect(leaks(text.replace(/\s+/g, ''), key)).toEqual([]);
      const json = pdfdetachJson(file);
      expect(json.steps).toHaveLength(2);
      expect(leaks(json.steps, key)).toEqual([]);
    } finally {
      files.done();
    }

    // the service kept the first step's key only while steps remained
    const row = await t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });
    expect(row.anchorHolderKey).toBeNull();
  });

  it('an identify step carries no key either, and a later age check binds to it by key', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identifyWf });
    const browser = new SignerBrowser(t.baseUrl, created.body.id);
    await browser.start();
    const id: string = created.body.id;
    expect((await share(browser.client, 'adult')).status).toBe(200);
    // while the session runs the service holds the first step's key on the session row, and only there
    const running = await t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });
    expect(running.anchorHolderKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await share(browser.client, 'adult')).status).toBe(200);
    const key = await sealedHolderKey(id, 1);
    expect(key.thumbprint).toBe(running.anchorHolderKey);
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].holder_binding).toEqual({ by: 'first', bound_to_stage: null });
    expect(read.body.results[1].holder_binding).toEqual({ by: 'holder_key', bound_to_stage: 0 });
    const audits = await Promise.all([0, 1].map((s) => api.rest('GET', `/v1/audits/${id}_${s}`)));
    expect(leaks([read.body, audits.map((a) => a.body)], key)).toEqual([]);
  });

  it('a session whose first step completed before ADR 0046 still binds (its stored result holds the key)', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: ageWf });
    const browser = new SignerBrowser(t.baseUrl, created.body.id);
    await browser.start();
    const id: string = created.body.id;
    expect((await share(browser.client, 'adult')).status).toBe(200);
    const key = await sealedHolderKey(id, 0);
    // the state an upgrade finds: no anchor_holder_key, the thumbprint in the stored result (old shape)
    const repo = t.svc.ds.getRepository(StepResultEntity);
    const stored = await repo.findOneByOrFail({ sessionId: id, stage: 0 });
    const old = {
      ...JSON.parse(stored.result),
      holder_binding: { by: 'first', bound_to_stage: null, holder_key_thumbprint: key.thumbprint },
    };
    await repo.update({ sessionId: id, stage: 0 }, { result: JSON.stringify(old) });
    await t.svc.ds.getRepository(SessionEntity).update({ id }, { anchorHolderKey: null });
    expect((await share(browser.client, 'adult_second_device')).body.code).toBe('holder_mismatch');
    expect((await share(browser.client, 'adult')).status).toBe(200);
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[1].holder_binding).toEqual({ by: 'holder_key', bound_to_stage: 0 });
  });

  it('a sign step carries the key of its holder signature, in its result and audit record only', async () => {
    const created = await createSignSession(api, signWf, [pdfPart('contract.pdf', minimalPdf('Contract'))]);
    const browser = new SignerBrowser(t.baseUrl, created.body.id);
    await browser.start();
    const id: string = created.body.id;
    expect((await share(browser.client, 'adult')).status).toBe(200);
    expect((await share(browser.client, 'adult')).status).toBe(200);
    const key = await sealedHolderKey(id, 0);
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    const [age, sign] = read.body.results;
    expect(sign.holder_key.thumbprint).toBe(key.thumbprint);
    expect(sign.holder_binding).toEqual({ by: 'holder_key', bound_to_stage: 0 });
    const signAudit = await api.rest('GET', `/v1/audits/${id}_1`);
    expect(signAudit.body.verification.holder_key_thumbprint).toBe(key.thumbprint);
    // the age check of the same session still carries nothing of the key
    const ageAudit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(leaks([age, ageAudit.body], key)).toEqual([]);
  });
});
