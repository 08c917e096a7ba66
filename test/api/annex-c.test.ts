// ISO/IEC 18013-7 Annex C (`org-iso-mdoc`, the DC API protocol of Safari and Apple Wallet) over real HTTP, with
// the independent wallet of test/support/independent-wallet (its own CBOR and COSE, @hpke/core: no library of
// the verifier). Honest identify and age_verify sessions complete and say which protocol was used (audit record
// and evidence), the same wallet completes the other protocols, and sign and attestation are not offered over
// Annex C (it cannot carry their transaction data). The refusals: annex-c.refusals.test.ts.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { MDOC_AV, MDOC_MDL, MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { annexCSuite } from '../support/annex-c-suite';
import { Api, type Json, type TestService } from '../support/harness';
import { AnnexCWallet, readAnnexCRequest } from '../support/independent-wallet/annex-c-wallet';
import {
  answerCrossDeviceMdoc,
  answerSignedDcApiMdoc,
  resolveRequest,
} from '../support/independent-wallet/cross-device';
import { presentSdJwtDcApi } from '../support/independent-wallet/sd-jwt-presenter';
import { createSignSession, pdfPart } from '../support/sign-workflow';
import { SignerClient } from '../support/signer';
import { minimalPdf, publishWorkflow } from '../support/workflows';

describe('ISO 18013-7 Annex C (org-iso-mdoc) with an independent wallet', () => {
  const s = annexCSuite('annex_c');
  const { clock, workflows, newSession, annexCRequest, expectNothingStored } = s;
  let t: TestService;
  let api: Api;
  let origin: string;
  let wallet: AnnexCWallet;
  let devicePrivateJwk: JsonWebKey;
  beforeAll(() => {
    ({ t, api, origin, wallet, devicePrivateJwk } = s.state);
  });

  it('completes identify: the business gets the claims, the audit record says org-iso-mdoc', async () => {
    const { id, signer } = await newSession('identify');
    const { requestId, request } = await annexCRequest(signer);
    // What the wallet's user is asked for: the PID and the mDL alternatives, with exactly the step's elements.
    const read = readAnnexCRequest(request);
    expect(read.docRequests.map((d) => d.docType)).toEqual([
      MDOC_PID.doctype,
      MDOC_MDL.doctype,
      'org.iso.23220.photoid.1', // Apple's Digital ID and Google's ID pass (ADR 0049)
      'com.google.wallet.idcard.1',
    ]);
    expect(read.docRequests[0]?.elements.map(([, el]) => el).sort()).toEqual(
      ['birth_date', 'family_name', 'given_name', 'nationality'].sort(),
    );
    expect(read.nonce.length).toBe(32);
    const res = await signer.submit(requestId, await wallet.answer(request, origin));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    const session = await api.rest('GET', `/v1/sessions/${id}`);
    expect(session.body.results[0].claims).toEqual({
      given_name: 'Erika',
      family_name: 'Mustermann',
      birth_date: '1984-01-12',
      nationality: 'DE',
    });
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('"protocol":"org-iso-mdoc"');
    expect(JSON.stringify(audit.body)).toContain('"format":"mso_mdoc"');
  });

  it('completes age_verify from the age-verification attestation; the evidence names the protocol', async () => {
    const { id, signer } = await newSession('age_verify');
    const { requestId, request } = await annexCRequest(signer);
    expect(readAnnexCRequest(request).docRequests[0]).toEqual({
      docType: MDOC_AV.doctype,
      elements: [[MDOC_AV.namespace, 'age_over_18']],
    });
    const res = await signer.submit(requestId, await wallet.answer(request, origin));
    expect(res.status).toBe(200);
    const session = await api.rest('GET', `/v1/sessions/${id}`);
    expect(session.body.results[0]).toMatchObject({ over: true, threshold: 18 });
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(JSON.stringify(audit.body)).toContain('"protocol":"org-iso-mdoc"');
    const opened = await t.svc.evidence.open(t.svc.ds.manager, id, 0);
    const plaintext = JSON.parse(opened?.toString('utf8') ?? '{}') as Json;
    expect(plaintext.protocol).toBe('org-iso-mdoc');
    expect(plaintext.vct).toBe(MDOC_AV.doctype);
  });

  it('the same independent wallet completes identify over OpenID4VP (unsigned DC API) with the mdoc PID', async () => {
    const { id, signer } = await newSession('identify');
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const answer = wallet.answerOpenId4VpDcApi(wr.body.request as Json, origin);
    expect(Object.keys(answer.vp_token)).toEqual(['pid_mdoc']);
    const res = await signer.submit(wr.body.request_id, answer);
    expect(res.body.status).toBe('completed');
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(JSON.stringify(audit.body)).toContain('"protocol":"openid4vp-v1-unsigned"');
    // bound to another origin: the device signature does not cover this page's handover
    const other = await newSession('identify');
    const wr2 = await other.signer.walletRequest();
    const refused = await other.signer.submit(
      wr2.body.request_id,
      wallet.answerOpenId4VpDcApi(wr2.body.request as Json, origin, { origin: 'https://attacker.example' }),
    );
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 422,
      code: 'key_binding_invalid',
    });
    await expectNothingStored(other.id);
  });

  it('its SD-JWT VC presenter (jose only) completes identify over the unsigned DC API; a wrong aud is refused', async () => {
    const row = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findOneByOrFail({ persona: 'adult', format: 'dc+sd-jwt' });
    const held = { credential: row.credential, holderPrivateJwk: devicePrivateJwk };
    const { id, signer } = await newSession('identify');
    const wr = await signer.walletRequest();
    const answer = await presentSdJwtDcApi({ request: wr.body.request, origin, held, now: clock.now() });
    expect(Object.keys(answer.vp_token)).toEqual(['pid']);
    const res = await signer.submit(wr.body.request_id, answer);
    expect(res.body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0].claims).toMatchObject({ given_name: 'Erika', family_name: 'Mustermann' });
    const other = await newSession('identify');
    const wr2 = await other.signer.walletRequest();
    const wrongAud = await presentSdJwtDcApi({
      request: wr2.body.request,
      origin,
      held,
      now: clock.now(),
      overrides: { aud: 'origin:https://attacker.example' },
    });
    const refused = await other.signer.submit(wr2.body.request_id, wrongAud);
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 422,
      code: 'audience_mismatch',
    });
    await expectNothingStored(other.id);
  });

  it('it completes identify cross-device (signed request_uri checked to the verifier root, direct_post.jwt)', async () => {
    const rootPem = await (await fetch(`${t.baseUrl}/oid4vp/verifier-root.pem`)).text();
    const { id, signer } = await newSession('identify');
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    const request = await resolveRequest(cd.body.uri as string, rootPem);
    const posted = await answerCrossDeviceMdoc({ request, wallet });
    expect(posted.status).toBe(200);
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results[0].claims).toMatchObject({ given_name: 'Erika', family_name: 'Mustermann' });
    // the device signature over another client_id in the handover is refused, and nothing is stored
    const other = await newSession('identify');
    const cd2 = await other.signer.call('POST', '/wallet-request/cross_device');
    const request2 = await resolveRequest(cd2.body.uri as string, rootPem);
    const refused = await answerCrossDeviceMdoc({
      request: request2,
      wallet,
      overrides: { handoverClientId: 'x509_hash:someone-else' },
    });
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 422,
      code: 'key_binding_invalid',
    });
    await expectNothingStored(other.id);
  });

  it('it completes age_verify over the signed DC API (dc_api.jwt, request object checked to the verifier root)', async () => {
    const rootPem = await (await fetch(`${t.baseUrl}/oid4vp/verifier-root.pem`)).text();
    const { id, signer } = await newSession('age_verify');
    const signed = await signer.call('POST', '/wallet-request/dc_api_signed');
    expect(signed.body.protocol).toBe('openid4vp-v1-signed');
    const answer = await answerSignedDcApiMdoc({
      jar: (signed.body.request as { request: string }).request,
      verifierRootPem: rootPem,
      origin,
      wallet,
    });
    expect((await signer.submit(signed.body.request_id, answer)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.results[0]).toMatchObject({ over: true, threshold: 18 });
  });

  it('it completes sign over OpenID4VP with the mdoc, device-signing the documents hash (not over Annex C)', async () => {
    const pdf = minimalPdf('Contract no. 9');
    const created = await createSignSession(api, workflows.sign, [pdfPart('contract.pdf', pdf)]);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    await signer.start();
    const wr = await signer.walletRequest();
    const answer = wallet.answerOpenId4VpDcApi(wr.body.request as Json, origin);
    expect(Object.keys(answer.vp_token)).toEqual(['pid_mdoc']);
    expect((await signer.submit(wr.body.request_id, answer)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${created.body.id}`);
    expect(read.body.results[0].documents[0].sha256).toBe(createHash('sha256').update(pdf).digest('hex'));
  });

  it('its SD-JWT VC presenter completes attestation, binding the terms in transaction_data_hashes', async () => {
    const row = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findOneByOrFail({ persona: 'adult', format: 'dc+sd-jwt' });
    const held = { credential: row.credential, holderPrivateJwk: devicePrivateJwk };
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflows.attestation });
    const signer = new SignerClient(t.baseUrl, created.body.id);
    await signer.start();
    const wr = await signer.walletRequest();
    const answer = await presentSdJwtDcApi({ request: wr.body.request, origin, held, now: clock.now() });
    expect((await signer.submit(wr.body.request_id, answer)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${created.body.id}`);
    expect(read.body.results[0].terms_sha256).toBe(createHash('sha256').update('I agree.').digest('hex'));
  });

  it('the catalog says per primitive which protocols a route answers over (REST and GraphQL)', async () => {
    const res = await api.rest('GET', '/v1/catalog');
    const byId = (id: string) => res.body.routes.find((r: Json) => r.id === id);
    const both = ['openid4vp', 'org-iso-mdoc'];
    expect(byId('rte_sandbox_reference').primitive_protocols).toEqual({
      identify: both,
      age_verify: both,
      sign: ['openid4vp'],
      attestation: ['openid4vp'],
    });
    // an mdoc-only route without sign/attestation: Annex C for what it offers, nothing for the rest
    expect(byId('rte_google_us_mdl').primitive_protocols).toEqual({
      identify: both,
      age_verify: both,
      sign: [],
      attestation: [],
    });
    const gql = await api.gql(
      '{ catalog { id primitiveProtocols { identify ageVerify sign attestation } } }',
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.catalog.find((r: Json) => r.id === 'rte_sandbox_reference').primitiveProtocols).toEqual({
      identify: both,
      ageVerify: both,
      sign: ['openid4vp'],
      attestation: ['openid4vp'],
    });
  });

  it('the sandbox reference wallet answers Annex C too (a test person, over its HTTP route)', async () => {
    for (const [workflow, persona] of [
      ['identify', 'adult_mdoc'],
      ['age_verify', 'adult'],
    ] as const) {
      const { id, signer } = await newSession(workflow);
      const { requestId, request } = await annexCRequest(signer);
      const res = await fetch(`${t.baseUrl}/sandbox/wallet/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ persona, request, origin }),
      });
      expect(res.status).toBe(200);
      const { response } = (await res.json()) as { response: Json };
      expect(Object.keys(response)).toEqual(['response']);
      expect((await signer.submit(requestId, response)).body.status).toBe('completed');
      const audit = await api.rest('GET', `/v1/audits/${id}_0`);
      expect(JSON.stringify(audit.body)).toContain('"protocol":"org-iso-mdoc"');
    }
  });

  it('does not offer an age_verify step above 99 over Annex C (no mdoc can answer it)', async () => {
    const { workflowId } = await publishWorkflow(api, [{ primitive: 'age_verify', threshold: 100 }]);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    await signer.start();
    const wr = await signer.call('POST', '/wallet-request/org_iso_mdoc');
    expect({ status: wr.status, code: wr.body.code }).toEqual({ status: 409, code: 'protocol_not_offered' });
  });

  it.each(['sign', 'attestation'] as const)('does not offer a %s step over Annex C', async (workflow) => {
    const created =
      workflow === 'sign'
        ? await createSignSession(api, workflows.sign, [pdfPart('c.pdf', minimalPdf('C'))])
        : await api.rest('POST', '/v1/sessions', { workflow_id: workflows.attestation });
    const signer = new SignerClient(t.baseUrl, created.body.id);
    await signer.start();
    const wr = await signer.call('POST', '/wallet-request/org_iso_mdoc');
    expect({ status: wr.status, code: wr.body.code }).toEqual({ status: 409, code: 'protocol_not_offered' });
    expect(await t.svc.ds.getRepository(WalletRequestEntity).countBy({ sessionId: created.body.id })).toBe(0);
  });
});
