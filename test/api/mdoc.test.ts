// ISO mdoc (mso_mdoc) through the real service: the sandbox seeds the mdoc issuer and the personas' documents,
// the reference wallet answers an mdoc request over the sandbox HTTP route, and the hosted transport verifies
// the DeviceResponse (dispatch by the answered query's format) and completes the step with its audit record;
// dishonest answers are refused with their stable code and complete nothing.
// The request builder does not offer mdoc to workflows yet, so each case swaps the stored request's DCQL query
// for the one mdocIdentifyQuery / mdocAgeQuery make (same nonce): exactly what the request would carry.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import type { MdocPresentOverrides } from '../../server/src/modules/sandbox/mdoc/mdoc-wallet';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import {
  dcqlQueryWithAlternatives,
  MDOC_MDL,
  MDOC_PID,
  MDOC_VP_FORMAT,
  mdocIdentifyQuery,
} from '../../server/src/modules/verification/mdoc/mdoc-query';
import { MdocTrustAnchorEntity } from '../../server/src/modules/verification/mdoc/mdoc-trust-anchor.entity';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient } from '../support/signer';

describe('ISO mdoc presentations over the hosted transport', () => {
  let t: TestService;
  let api: Api;
  let workflowId: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'mdoc', workers: false });
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId } = await setUpIdentifyWorkflow(api, 'http://127.0.0.1:9/hooks'));
  });
  afterAll(async () => t?.stop());

  /** A started session whose open wallet request asks for the mdoc PID (or another mdoc query). */
  async function mdocSession(doctype = MDOC_PID.doctype) {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const request: Json = {
      ...wr.body.request,
      dcql_query: dcqlQueryWithAlternatives([
        mdocIdentifyQuery('pid_mdoc', doctype, ['given_name', 'family_name', 'birth_date', 'nationality']),
      ]),
      client_metadata: { vp_formats_supported: { ...MDOC_VP_FORMAT } },
    };
    await t.svc.ds
      .getRepository(WalletRequestEntity)
      .update({ id: wr.body.request_id }, { request: JSON.stringify(request) });
    return { id: created.body.id as string, signer, requestId: wr.body.request_id as string, request };
  }

  it('seeds the mdoc issuer, its sandbox trust anchor and the personas documents at start', async () => {
    const docs = await t.svc.ds.getRepository(SandboxCredentialEntity).findBy({ format: 'mso_mdoc' });
    expect(
      docs
        .filter((d) => d.persona === 'adult')
        .map((d) => d.vct)
        .sort(),
    ).toEqual(['eu.europa.ec.av.1', 'eu.europa.ec.eudi.pid.1', 'org.iso.18013.5.1.mDL'].sort());
    const anchors = await t.svc.ds.getRepository(MdocTrustAnchorEntity).find();
    expect(new Set(anchors.map((a) => a.environment))).toEqual(new Set(['sandbox']));
  });

  it('completes an identify step with the mdoc PID from the reference wallet (sandbox HTTP route)', async () => {
    const { id, signer, requestId, request } = await mdocSession();
    const res = await fetch(`${t.baseUrl}/sandbox/wallet/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ persona: 'adult', request, origin: t.baseUrl }),
    });
    expect(res.status).toBe(200);
    const { response } = (await res.json()) as Json;
    expect(Object.keys(response.vp_token)).toEqual(['pid_mdoc']);

    const ok = await signer.submit(requestId, response);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims).toEqual({
      given_name: 'Erika',
      family_name: 'Mustermann',
      birth_date: '1984-01-12',
      nationality: 'DE',
      document_status: 'not_applicable',
    });
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('"format":"mso_mdoc"');
    expect(JSON.stringify(audit.body)).toContain(`"vct":"${MDOC_PID.doctype}"`);
    expect(JSON.stringify(audit.body)).toContain('"status":"not_applicable"');
    expect(JSON.stringify(audit.body)).toContain('"device_signature"');
    expect(await t.svc.ds.getRepository(WebhookEventEntity).countBy({ sessionId: id })).toBeGreaterThan(0);
  });

  it('completes an identify step with the mobile driving licence', async () => {
    const { id, signer, requestId, request } = await mdocSession(MDOC_MDL.doctype);
    const response = await t.svc.wallet.presentMdoc({ persona: 'adult', request, origin: t.baseUrl });
    expect((await signer.submit(requestId, response)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims.family_name).toBe('Mustermann');
  });

  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const cases: { name: string; persona?: string; overrides?: MdocPresentOverrides; code: string }[] = [
    { name: 'a tampered element', overrides: { tamperElement: 'given_name' }, code: 'disclosure_invalid' },
    {
      name: 'another nonce in the transcript',
      overrides: { nonce: 'B'.repeat(43) },
      code: 'key_binding_invalid',
    },
    {
      name: 'another origin in the transcript',
      overrides: { origin: 'https://evil.example' },
      code: 'key_binding_invalid',
    },
    {
      name: 'a device signature by another key',
      overrides: { deviceKey: otherKey },
      code: 'key_binding_invalid',
    },
    { name: 'an untrusted IACA', persona: 'unknown_issuer', code: 'issuer_untrusted' },
    { name: 'an expired MSO', persona: 'expired', code: 'credential_expired' },
    { name: 'a missing element', overrides: { omitElements: ['nationality'] }, code: 'claims_missing' },
  ];

  it.each(cases)('refuses $name with $code and completes nothing', async ({ persona, overrides, code }) => {
    const { id, signer, requestId, request } = await mdocSession();
    const response = await t.svc.wallet.presentMdoc({
      persona: persona ?? 'adult',
      request,
      origin: t.baseUrl,
      overrides,
    });
    const res = await signer.submit(requestId, response);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results).toEqual([]);
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(0);
    expect(await t.svc.ds.getRepository(AuditRecordEntity).countBy({ sessionId: id })).toBe(0);
  });
});
