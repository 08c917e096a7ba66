// ISO mdoc (mso_mdoc) through the real service, with the requests workflows really make: identify and
// age_verify offer the SD-JWT VC PID or an mdoc (DCQL credential_sets); the test person picked in the
// reference wallet decides the format. The hosted transport verifies the DeviceResponse (dispatch by the
// answered query's format) and completes the step with its audit record; cross-device (signed request_uri,
// encrypted direct_post.jwt, redirect handover) and the signed DC API work with mdoc too. Dishonest answers and
// answers outside the offered alternatives are refused with their stable code and complete nothing. sign and
// attestation offer mdoc too (device-signed transaction data: test/api/mdoc-transaction-data.test.ts).
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StepEvidenceEntity } from '../../server/src/modules/evidence/step-evidence.entity';
import type { MdocPresentOverrides } from '../../server/src/modules/sandbox/mdoc/mdoc-wallet';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { encryptResponse, postResponse } from '../../server/src/modules/sandbox/signed-request-wallet';
import { MDOC_AV, MDOC_MDL, MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { MdocTrustAnchorEntity } from '../../server/src/modules/verification/mdoc/mdoc-trust-anchor.entity';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { expectNothingStored } from '../support/nothing-stored';
import { SignerClient } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

const IDENTIFY_CLAIMS = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birth_date: '1984-01-12',
  nationality: 'DE',
  document_status: 'valid',
};

describe('ISO mdoc in real wallet requests (identify, age_verify; hosted page, cross-device)', () => {
  let t: TestService;
  let api: Api;
  let identifyWf: string;
  let ageWf: string;
  let age21Wf: string;
  let attestWf: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'mdoc', workers: false });
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: identifyWf } = await setUpIdentifyWorkflow(api, 'http://127.0.0.1:9/hooks'));
    ({ workflowId: ageWf } = await publishWorkflow(api, [{ primitive: 'age_verify', threshold: 18 }]));
    ({ workflowId: age21Wf } = await publishWorkflow(api, [{ primitive: 'age_verify', threshold: 21 }]));
    ({ workflowId: attestWf } = await publishWorkflow(api, [
      { primitive: 'attestation', terms: 'I agree.' },
    ]));
  });
  afterAll(async () => t?.stop());

  /** A started session of `workflowId` and its open wallet request (exactly what the hosted page gets). */
  async function atWalletStep(workflowId = identifyWf) {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    return { id: created.body.id as string, signer, wr: wr.body as Json };
  }

  /** The reference wallet's answer as the hosted page gets it (sandbox HTTP route). */
  async function walletRespond(persona: string, request: Json) {
    const res = await fetch(`${t.baseUrl}/sandbox/wallet/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ persona, request, origin: t.baseUrl }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** Nothing of the refused step was stored (support/nothing-stored.ts). */
  const nothingCompleted = (id: string) => expectNothingStored(t, api, id, { status: null });

  it('seeds the mdoc issuer, its sandbox trust anchor and the personas documents at start', async () => {
    const docs = await t.svc.ds.getRepository(SandboxCredentialEntity).findBy({ format: 'mso_mdoc' });
    expect(
      docs
        .filter((d) => d.persona === 'adult')
        .map((d) => d.vct)
        .sort(),
    ).toEqual([MDOC_AV.doctype, MDOC_PID.doctype, MDOC_MDL.doctype].sort());
    const anchors = await t.svc.ds.getRepository(MdocTrustAnchorEntity).find();
    expect(new Set(anchors.map((a) => a.environment))).toEqual(new Set(['sandbox']));
  });

  it('an identify request offers the SD-JWT VC PID, the mdoc PID or the mDL, and lists the mdoc personas', async () => {
    const { wr } = await atWalletStep();
    const q = wr.request.dcql_query;
    expect(q.credentials.map((c: Json) => [c.id, c.format])).toEqual([
      ['pid', 'dc+sd-jwt'],
      ['pid_mdoc', 'mso_mdoc'],
      ['mdl', 'mso_mdoc'],
      ['photoid_mdoc', 'mso_mdoc'],
      ['idpass_mdoc', 'mso_mdoc'],
    ]);
    expect(q.credentials[1].meta).toEqual({ doctype_value: MDOC_PID.doctype });
    expect(q.credentials[1].claims.map((c: Json) => c.path)).toEqual([
      [MDOC_PID.namespace, 'given_name'],
      [MDOC_PID.namespace, 'family_name'],
      [MDOC_PID.namespace, 'birth_date'],
      [MDOC_PID.namespace, 'nationality'],
    ]);
    expect(q.credentials[2].meta).toEqual({ doctype_value: MDOC_MDL.doctype });
    expect(q.credential_sets).toEqual([
      { options: [['pid'], ['pid_mdoc'], ['mdl'], ['photoid_mdoc'], ['idpass_mdoc']], required: true },
    ]);
    expect(Object.keys(wr.request.client_metadata.vp_formats_supported).sort()).toEqual([
      'dc+sd-jwt',
      'mso_mdoc',
    ]);
    const personas = wr.sandbox_personas.map((p: Json) => p.id);
    expect(personas).toEqual(expect.arrayContaining(['adult', 'adult_mdoc', 'adult_mdl', 'minor_mdoc']));
    expect(wr.sandbox_personas.find((p: Json) => p.id === 'adult_mdl').label).toBe(
      'Erika Mustermann (mobile driving licence)',
    );
  });

  it('the catalog says which formats each primitive accepts on each route', async () => {
    const res = await api.rest('GET', '/v1/catalog');
    const byId = (id: string) => res.body.routes.find((r: Json) => r.id === id);
    expect(byId('rte_sandbox_reference').primitive_formats).toEqual({
      identify: ['dc+sd-jwt', 'mso_mdoc'],
      age_verify: ['dc+sd-jwt', 'mso_mdoc'],
      sign: ['dc+sd-jwt', 'mso_mdoc'],
      attestation: ['dc+sd-jwt', 'mso_mdoc'],
    });
    expect(byId('rte_google_us_mdl')).toMatchObject({
      primitive_formats: { identify: ['mso_mdoc'], age_verify: ['mso_mdoc'], sign: [], attestation: [] },
      capabilities: { identify: true, age_verify: true, sign: false, attestation: false },
    });
    const gql = await api.gql('{ catalog { id primitiveFormats { identify ageVerify sign attestation } } }');
    expect(gql.errors).toBeUndefined();
    expect(gql.data.catalog.find((r: Json) => r.id === 'rte_sandbox_reference').primitiveFormats).toEqual({
      identify: ['dc+sd-jwt', 'mso_mdoc'],
      ageVerify: ['dc+sd-jwt', 'mso_mdoc'],
      sign: ['dc+sd-jwt', 'mso_mdoc'],
      attestation: ['dc+sd-jwt', 'mso_mdoc'],
    });
  });

  it('completes identify with the mdoc PID when the person picks it (hosted page route)', async () => {
    const { id, signer, wr } = await atWalletStep();
    const answer = await walletRespond('adult_mdoc', wr.request);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['pid_mdoc']);
    const ok = await signer.submit(wr.request_id, answer.body.response);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims).toEqual(IDENTIFY_CLAIMS);
    const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
    expect(audit).toContain('"format":"mso_mdoc"');
    expect(audit).toContain(`"vct":"${MDOC_PID.doctype}"`);
    expect(audit).toContain('"status":"valid"');
    expect(audit).toContain('"mechanism":"status_list"');
    expect(audit).toContain('"device_signature"');
  });

  it('completes identify with the mobile driving licence', async () => {
    const { id, signer, wr } = await atWalletStep();
    const answer = await walletRespond('adult_mdl', wr.request);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['mdl']);
    expect((await signer.submit(wr.request_id, answer.body.response)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims).toEqual(IDENTIFY_CLAIMS);
    expect(JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body)).toContain(MDOC_MDL.doctype);
  });

  it('still completes identify with the SD-JWT VC PID from the same request', async () => {
    const { id, signer, wr } = await atWalletStep();
    const answer = await walletRespond('adult', wr.request);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['pid']);
    expect((await signer.submit(wr.request_id, answer.body.response)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims.document_status).toBe('valid');
  });

  it('age_verify with the age-verification attestation: the business gets only {over, threshold}', async () => {
    const { id, signer, wr } = await atWalletStep(ageWf);
    const q = wr.request.dcql_query;
    expect(q.credentials.map((c: Json) => c.id)).toEqual([
      'pid',
      'av_mdoc',
      'pid_mdoc',
      'mdl',
      'photoid_mdoc',
      'idpass_mdoc',
    ]);
    expect(q.credentials[1]).toMatchObject({
      format: 'mso_mdoc',
      meta: { doctype_value: MDOC_AV.doctype },
      claims: [{ path: [MDOC_AV.namespace, 'age_over_18'] }],
    });
    const answer = await walletRespond('adult_mdoc', wr.request);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['av_mdoc']);
    expect((await signer.submit(wr.request_id, answer.body.response)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    const { completed_at: _c, ...result } = read.body.results[0];
    expect(result).toEqual({
      stage: 0,
      primitive: 'age_verify',
      audit_id: `${id}_0`,
      over: true,
      threshold: 18,
      holder_binding: { by: 'first', bound_to_stage: null },
    });
    const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
    // ADR 0046: no holder key, thumbprint or status list index in the age check's audit record
    expect(audit).not.toMatch(/thumbprint|"idx"|"uri"/);
    expect(audit).toContain('"age_basis":"age_over_18"');
    expect(audit).toContain(MDOC_AV.doctype);
    expect(await t.svc.ds.getRepository(StepEvidenceEntity).countBy({ sessionId: id })).toBe(1);
  });

  it('age_verify: the minor completes with over: false from the mdoc', async () => {
    const { id, signer, wr } = await atWalletStep(ageWf);
    const answer = await walletRespond('minor_mdoc', wr.request);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['av_mdoc']);
    expect((await signer.submit(wr.request_id, answer.body.response)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0]).toMatchObject({ primitive: 'age_verify', over: false, threshold: 18 });
  });

  it('age_verify 21: the attestation (age_over_18 only) cannot answer, so the mdoc PID does', async () => {
    const { id, signer, wr } = await atWalletStep(age21Wf);
    const answer = await walletRespond('adult_mdoc', wr.request);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['pid_mdoc']);
    expect((await signer.submit(wr.request_id, answer.body.response)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0]).toMatchObject({ over: true, threshold: 21 });
    // the mDL answers the same request with its own age statement
    const other = await atWalletStep(age21Wf);
    const mdl = await walletRespond('adult_mdl', other.wr.request);
    expect(Object.keys(mdl.body.response.vp_token)).toEqual(['mdl']);
    expect((await other.signer.submit(other.wr.request_id, mdl.body.response)).body.status).toBe('completed');
  });

  it('attestation offers the mdoc alternatives too, and an mdoc pushed at another request is refused', async () => {
    const { id, signer, wr } = await atWalletStep(attestWf);
    expect(wr.request.dcql_query.credentials.map((c: Json) => [c.id, c.format])).toEqual([
      ['pid', 'dc+sd-jwt'],
      ['pid_mdoc', 'mso_mdoc'],
      ['mdl', 'mso_mdoc'],
    ]);
    expect(wr.sandbox_personas.map((p: Json) => p.id)).toContain('adult_mdoc');
    // an mdoc made for another session's request: its device signature covers another nonce
    const elsewhere = await atWalletStep(attestWf);
    const mdoc = await walletRespond('adult_mdoc', elsewhere.wr.request);
    const res = await signer.submit(wr.request_id, mdoc.body.response);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('key_binding_invalid');
    await nothingCompleted(id);
  });

  it('refuses answers outside the offered alternatives: two of them, or an unknown query id', async () => {
    const { id, signer, wr } = await atWalletStep();
    const sdJwt = (await walletRespond('adult', wr.request)).body.response.vp_token;
    const mdoc = (await walletRespond('adult_mdoc', wr.request)).body.response.vp_token;
    const both = await signer.submit(wr.request_id, { vp_token: { ...sdJwt, ...mdoc } });
    expect(both.status).toBe(422);
    expect(both.body.code).toBe('presentation_malformed');

    const next = (await signer.walletRequest()).body;
    const honest = (await walletRespond('adult', next.request)).body.response.vp_token;
    const extra = await signer.submit(next.request_id, { vp_token: { ...honest, other: honest.pid } });
    expect(extra.status).toBe(422);
    expect(extra.body.code).toBe('presentation_malformed');

    const third = (await signer.walletRequest()).body;
    const none = await signer.submit(third.request_id, { vp_token: {} });
    expect(none.status).toBe(422);
    await nothingCompleted(id);
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
    const { id, signer, wr } = await atWalletStep();
    const response = await t.svc.wallet.presentMdoc({
      persona: persona ?? 'adult',
      doctypes: [MDOC_PID.doctype],
      request: wr.request,
      origin: t.baseUrl,
      overrides,
    });
    const res = await signer.submit(wr.request_id, response);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);
    await nothingCompleted(id);
  });

  it('completes identify cross-device with the mdoc PID (signed request_uri, direct_post.jwt)', async () => {
    const { id, signer } = await atWalletStep();
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    const { payload } = await t.svc.signedWallet.fetchRequest(cd.body.uri);
    expect(Object.keys((payload.client_metadata as Json).vp_formats_supported).sort()).toEqual([
      'dc+sd-jwt',
      'mso_mdoc',
    ]);
    // the reference wallet fetches, verifies, presents the mdoc over the redirect handover and posts the JWE
    const answer = await t.svc.signedWallet.answerCrossDevice({ persona: 'adult_mdoc', uri: cd.body.uri });
    expect(answer).toEqual({
      status: 200,
      // the same-device redirect back to the hosted page (ADR 0050)
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });
    expect((await signer.session()).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims).toEqual(IDENTIFY_CLAIMS);
    const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
    expect(audit).toContain('openid4vp-cross-device');
    expect(audit).toContain('"format":"mso_mdoc"');
  });

  it('refuses a cross-device mdoc bound to the DC API handover instead of the redirect one', async () => {
    const { id, signer } = await atWalletStep();
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    const { payload } = await t.svc.signedWallet.fetchRequest(cd.body.uri);
    // origin handover (no redirect): the device signature covers another SessionTranscript
    const presented = await t.svc.wallet.presentMdoc({
      persona: 'adult',
      doctypes: [MDOC_PID.doctype],
      request: payload,
      origin: t.baseUrl,
    });
    const jwe = await encryptResponse({ ...presented, state: payload.state }, payload);
    const res = await postResponse(payload.response_uri as string, { response: jwe });
    expect(res.status).toBe(422);
    expect((res.body as Json).code).toBe('key_binding_invalid');
    await nothingCompleted(id);
  });

  it('completes age_verify over the signed DC API with the mDL (dc_api.jwt)', async () => {
    const { id, signer } = await atWalletStep(ageWf);
    const signed = await signer.call('POST', '/wallet-request/dc_api_signed');
    expect(signed.status).toBe(200);
    const answer = await t.svc.signedWallet.answerSignedDcApi({
      persona: 'adult_mdl',
      data: signed.body.request,
      origin: t.baseUrl,
    });
    const ok = await signer.submit(signed.body.request_id, answer);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0]).toMatchObject({ over: true, threshold: 18 });
    expect(JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body)).toContain(MDOC_MDL.doctype);
  });
});
