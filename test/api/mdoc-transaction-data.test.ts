// sign and attestation with ISO mdoc (mso_mdoc), as a business and an auditor observe them: the request offers
// the SD-JWT VC PID, the mdoc PID or the mDL, with one transaction_data entry naming all three; an mdoc wallet
// binds the hash of the exact string received in a device-signed namespace named like the type
// (transaction_data_hash, transaction_data_hash_alg), which its device signature covers and which the MSO's
// KeyAuthorizations must authorize. Completion over the hosted transport and cross-device gives the business the
// same result fields as SD-JWT VC, with a holder signature that verifies offline under the holder key. Missing,
// altered or unauthorized device-signed data, other documents or terms, and a wallet signing with a key other
// than the credential's (the unknown_holder_key persona, both formats) are refused and complete nothing.
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { base64url, calculateJwkThumbprint, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StepEvidenceEntity } from '../../server/src/modules/evidence/step-evidence.entity';
import { SandboxMdocIssuer } from '../../server/src/modules/sandbox/mdoc/mdoc-issuer';
import type { MdocPresentOverrides } from '../../server/src/modules/sandbox/mdoc/mdoc-wallet';
import { readMdocHolderSignature } from '../../server/src/modules/verification/mdoc/mdoc-device-auth';
import { MDOC_MDL, MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { expectNothingStored } from '../support/nothing-stored';
import { pdfPart, setUpSignWorkflow, startSignSession } from '../support/sign-workflow';
import { SignerClient, startedSession } from '../support/signer';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const txHash = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url');
const decodeTx = (s: string): Json => JSON.parse(new TextDecoder().decode(base64url.decode(s)));
const encodeTx = (v: Json) => base64url.encode(JSON.stringify(v));
const TERMS = 'I accept the terms of the loan agreement no. 7.';
const SIGN = 'urn:service:sign:1';
const ATTEST = 'urn:service:attest:1';

/** CBOR head for a major type and length (enough for the Sig_structure below). */
function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  if (length < 65536) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(length, 1);
  return b;
}
const bstr = (b: Uint8Array) => Buffer.concat([cborHead(2, b.length), b]);

/**
 * Verifies an mdoc holder signature as a business would offline: COSE_Sign1 Sig_structure
 * ["Signature1", protected, h'', payload] (RFC 9052 4.4), ES256 under the holder key, built by hand here.
 */
function holderSignatureVerifies(holderSignature: string, jwk: JWK): boolean {
  const { protectedHeader, payload, signature } = readMdocHolderSignature(holderSignature);
  const toBeSigned = Buffer.concat([
    cborHead(4, 4),
    cborHead(3, 10),
    Buffer.from('Signature1'),
    bstr(protectedHeader),
    bstr(new Uint8Array()),
    bstr(payload),
  ]);
  return verify(
    'sha256',
    toBeSigned,
    {
      key: createPublicKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' }),
      dsaEncoding: 'ieee-p1363',
    },
    signature,
  );
}

const otherPublicJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
  format: 'jwk',
}) as JWK;

describe('sign and attestation with ISO mdoc (device-signed transaction data)', () => {
  let t: TestService;
  let api: Api;
  let secret: string;
  const receiver = new WebhookReceiver();
  let signWf: string;
  let attestWf: string;
  const contract = minimalPdf('Loan agreement no. 7');

  beforeAll(async () => {
    t = await startTestService({ label: 'mdoc_tx' });
    await receiver.start();
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: signWf, webhookSecret: secret } = await setUpSignWorkflow(api, {
      webhookUrl: receiver.url,
    }));
    ({ workflowId: attestWf } = await publishWorkflow(api, [{ primitive: 'attestation', terms: TERMS }]));
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  const started = (created: { status: number; body: Json }) => startedSession(t.baseUrl, created);
  const newSignSession = () => startSignSession(api, signWf, [pdfPart('loan.pdf', contract)]);
  const newAttestSession = () => api.rest('POST', '/v1/sessions', { workflow_id: attestWf }).then(started);

  /** The reference wallet's answer as the hosted page gets it (sandbox HTTP route). */
  async function walletRespond(persona: string, request: Json) {
    const res = await fetch(`${t.baseUrl}/sandbox/wallet/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ persona, request, origin: t.baseUrl }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }

  async function crossDevice(signer: SignerClient, persona: string) {
    await signer.showCurrentDocuments(); // as the page does on a sign step (ADR 0029)
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    return t.svc.signedWallet.answerCrossDevice({ persona, uri: cd.body.uri });
  }

  async function resultOf(id: string) {
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    const { completed_at: _c, stage: _s, audit_id: _a, primitive: _p, ...result } = read.body.results[0];
    return result as Json;
  }

  /** The business's holder proof of an mdoc answer: verifies offline and covers exactly the transaction data. */
  async function expectMdocHolderProof(result: Json, type: string, doctype: string) {
    expect(holderSignatureVerifies(result.holder_signature, result.holder_key.jwk)).toBe(true);
    expect(holderSignatureVerifies(result.holder_signature, otherPublicJwk)).toBe(false);
    const { deviceAuthentication } = readMdocHolderSignature(result.holder_signature);
    expect(deviceAuthentication.docType).toBe(doctype);
    expect(deviceAuthentication.deviceNamespaces).toEqual({
      [type]: {
        transaction_data_hash: txHash(result.transaction_data),
        transaction_data_hash_alg: 'sha-256',
      },
    });
    expect(result.holder_key.thumbprint).toBe(await calculateJwkThumbprint(result.holder_key.jwk, 'sha256'));
    expect(Object.keys(result.holder_key.jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
  }

  /** Nothing of the refused step was stored (support/nothing-stored.ts). */
  const nothingCompleted = (id: string) => expectNothingStored(t, api, id, { status: null });

  it('a sign request offers the SD-JWT VC PID, the mdoc PID or the mDL; its transaction data names all three', async () => {
    const { signer } = await newSignSession();
    const wr = (await signer.walletRequest()).body;
    const q = wr.request.dcql_query;
    expect(q.credentials.map((c: Json) => [c.id, c.format])).toEqual([
      ['pid', 'dc+sd-jwt'],
      ['pid_mdoc', 'mso_mdoc'],
      ['mdl', 'mso_mdoc'],
    ]);
    expect(q.credentials[1].claims.map((c: Json) => c.path)).toEqual([
      [MDOC_PID.namespace, 'given_name'],
      [MDOC_PID.namespace, 'family_name'],
    ]);
    expect(q.credential_sets).toEqual([{ options: [['pid'], ['pid_mdoc'], ['mdl']], required: true }]);
    expect(Object.keys(wr.request.client_metadata.vp_formats_supported).sort()).toEqual([
      'dc+sd-jwt',
      'mso_mdoc',
    ]);
    expect(decodeTx(wr.request.transaction_data[0])).toMatchObject({
      type: SIGN,
      credential_ids: ['pid', 'pid_mdoc', 'mdl'],
      documents: [{ label: 'loan.pdf', sha256: sha256Hex(contract) }],
    });
    expect(wr.sandbox_personas.map((p: Json) => p.id)).toEqual(
      expect.arrayContaining([
        'adult',
        'adult_mdoc',
        'adult_mdl',
        'unknown_holder_key',
        'unknown_holder_key_mdoc',
      ]),
    );
    expect(wr.sandbox_personas.find((p: Json) => p.id === 'unknown_holder_key').label).toBe(
      'Erika Mustermann (unknown holder key)',
    );
  });

  it('sign with the mdoc PID from the hosted page: same result fields as SD-JWT VC, device-signed proof', async () => {
    const { id, signer } = await newSignSession();
    const wr = (await signer.walletRequest()).body;
    const answer = await walletRespond('adult_mdoc', wr.request);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['pid_mdoc']);
    const ok = await signer.submit(wr.request_id, answer.body.response);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');

    const result = await resultOf(id);
    expect(result.documents).toEqual([
      {
        label: 'loan.pdf',
        sha256: sha256Hex(contract),
        size: contract.length,
        content_type: 'application/pdf',
      },
    ]);
    expect(result.transaction_data).toBe(wr.request.transaction_data[0]);
    await expectMdocHolderProof(result, SIGN, MDOC_PID.doctype);

    // the same fields as an SD-JWT VC signature of the same workflow
    const sdJwt = await newSignSession();
    const sdWr = (await sdJwt.signer.walletRequest()).body;
    const sdAnswer = await walletRespond('adult', sdWr.request);
    expect(Object.keys(sdAnswer.body.response.vp_token)).toEqual(['pid']);
    expect((await sdJwt.signer.submit(sdWr.request_id, sdAnswer.body.response)).body.status).toBe(
      'completed',
    );
    const sdResult = await resultOf(sdJwt.id);
    expect(Object.keys(result).sort()).toEqual(Object.keys(sdResult).sort());
    // the same person, one holder key per credential: the SD-JWT VC and the mdoc are bound to the same key
    expect(result.holder_key).toEqual(sdResult.holder_key);

    await expect
      .poll(() => receiver.deliveries.filter((d) => d.body.event === 'step.completed').length, {
        timeout: 20_000,
      })
      .toBeGreaterThanOrEqual(2);
    const hookOf = (sid: string) =>
      receiver.deliveries.find((d) => d.body.event === 'step.completed' && d.body.data.session_id === sid);
    const hook = hookOf(id);
    expect(hook && signatureValid(hook, secret)).toBe(true);
    expect(Object.keys(hook?.body.data ?? {}).sort()).toEqual(
      Object.keys(hookOf(sdJwt.id)?.body.data ?? {}).sort(),
    );
    expect(hook?.body.data).toMatchObject({
      documents: result.documents,
      holder_signature: result.holder_signature,
    });

    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.body.verification).toMatchObject({
      format: 'mso_mdoc',
      vct: MDOC_PID.doctype,
      transaction_data_hashes_alg: 'sha-256',
      transaction_data_hashes: [txHash(wr.request.transaction_data[0])],
    });
    expect(audit.body.verification.checks).toEqual(
      expect.arrayContaining(['device_signature', 'device_key_authorizations', 'transaction_data']),
    );
    expect(await t.svc.ds.getRepository(StepEvidenceEntity).countBy({ sessionId: id })).toBe(1);
  });

  it('sign cross-device with the mobile driving licence (signed request_uri, direct_post.jwt)', async () => {
    const { id, signer } = await newSignSession();
    expect(await crossDevice(signer, 'adult_mdl')).toEqual({
      status: 200,
      // the same-device redirect back to the hosted page (ADR 0050)
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });
    expect((await signer.session()).body.status).toBe('completed');
    const result = await resultOf(id);
    expect(result.documents).toEqual([
      {
        label: 'loan.pdf',
        sha256: sha256Hex(contract),
        size: contract.length,
        content_type: 'application/pdf',
      },
    ]);
    expect(decodeTx(result.transaction_data)).toMatchObject({ type: SIGN });
    await expectMdocHolderProof(result, SIGN, MDOC_MDL.doctype);
    const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
    expect(audit).toContain('openid4vp-cross-device');
    expect(audit).toContain(MDOC_MDL.doctype);
  });

  it('attestation with an mdoc, from the hosted page (mDL) and cross-device (mdoc PID)', async () => {
    const hosted = await newAttestSession();
    const wr = (await hosted.signer.walletRequest()).body;
    expect(decodeTx(wr.request.transaction_data[0])).toMatchObject({
      type: ATTEST,
      credential_ids: ['pid', 'pid_mdoc', 'mdl'],
      terms_sha256: sha256Hex(TERMS),
    });
    const answer = await walletRespond('adult_mdl', wr.request);
    expect(Object.keys(answer.body.response.vp_token)).toEqual(['mdl']);
    expect((await hosted.signer.submit(wr.request_id, answer.body.response)).body.status).toBe('completed');
    const result = await resultOf(hosted.id);
    expect(Object.keys(result).sort()).toEqual(
      ['holder_binding', 'holder_key', 'holder_signature', 'terms_sha256', 'transaction_data'].sort(),
    );
    expect(result.terms_sha256).toBe(sha256Hex(TERMS));
    await expectMdocHolderProof(result, ATTEST, MDOC_MDL.doctype);

    const cd = await newAttestSession();
    expect(await crossDevice(cd.signer, 'adult_mdoc')).toEqual({
      status: 200,
      // the same-device redirect back to the hosted page (ADR 0050)
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });
    const cdResult = await resultOf(cd.id);
    expect(cdResult.terms_sha256).toBe(sha256Hex(TERMS));
    await expectMdocHolderProof(cdResult, ATTEST, MDOC_PID.doctype);
  });

  const withOtherDocumentHash = (request: Json) => {
    const td = decodeTx(request.transaction_data[0]);
    td.documents[0].sha256 = sha256Hex('another contract');
    return encodeTx(td);
  };

  const cases: {
    name: string;
    code: string;
    attest?: boolean;
    overrides: (request: Json) => Promise<MdocPresentOverrides> | MdocPresentOverrides;
  }[] = [
    {
      name: 'no device-signed transaction data hash',
      code: 'transaction_data_missing',
      overrides: () => ({ omitTransactionData: true }),
    },
    {
      name: 'an altered transaction_data_hash',
      code: 'transaction_data_mismatch',
      overrides: () => ({ transactionDataHash: new Uint8Array(randomBytes(32)) }),
    },
    {
      name: 'a wrong document hash (the wallet signed other documents)',
      code: 'transaction_data_mismatch',
      overrides: (request) => ({ transactionDataSigned: [withOtherDocumentHash(request)] }),
    },
    {
      name: 'other terms (attestation)',
      code: 'transaction_data_mismatch',
      attest: true,
      overrides: (request) => ({
        transactionDataSigned: [encodeTx({ ...decodeTx(request.transaction_data[0]), terms: 'Nothing.' })],
      }),
    },
    {
      name: 'another transaction_data_hash_alg',
      code: 'transaction_data_mismatch',
      overrides: () => ({ transactionDataHashAlg: 'sha-512' }),
    },
    {
      name: 'device-signed data changed after signing',
      code: 'key_binding_invalid',
      overrides: () => ({ alterDeviceSignedAfterSigning: true }),
    },
    {
      name: 'a namespace the MSO does not authorize (no KeyAuthorizations)',
      code: 'device_signed_unauthorized',
      overrides: async () => ({
        credential: await new SandboxMdocIssuer({ ds: t.svc.ds, clock: t.svc.clock }).issueFor(
          'adult',
          MDOC_PID.doctype,
          { keyAuthorizations: null },
        ),
      }),
    },
    {
      name: 'a namespace the MSO does not authorize (only another element)',
      code: 'device_signed_unauthorized',
      overrides: async () => ({
        credential: await new SandboxMdocIssuer({ ds: t.svc.ds, clock: t.svc.clock }).issueFor(
          'adult',
          MDOC_PID.doctype,
          { keyAuthorizations: { dataElements: new Map([[SIGN, ['something_else']]]) } },
        ),
      }),
    },
  ];

  it.each(cases)('refuses $name with $code and completes nothing', async ({ code, attest, overrides }) => {
    const { id, signer } = attest ? await newAttestSession() : await newSignSession();
    const wr = (await signer.walletRequest()).body;
    const response = await t.svc.wallet.presentMdoc({
      persona: 'adult',
      doctypes: [MDOC_PID.doctype],
      request: wr.request,
      origin: t.baseUrl,
      overrides: await overrides(wr.request),
    });
    const res = await signer.submit(wr.request_id, response);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);
    await nothingCompleted(id);
  });

  it('accepts element-level KeyAuthorizations (dataElements) for the transaction data elements', async () => {
    const { id, signer } = await newSignSession();
    const wr = (await signer.walletRequest()).body;
    const credential = await new SandboxMdocIssuer({ ds: t.svc.ds, clock: t.svc.clock }).issueFor(
      'adult',
      MDOC_PID.doctype,
      {
        keyAuthorizations: {
          dataElements: new Map([[SIGN, ['transaction_data_hash', 'transaction_data_hash_alg']]]),
        },
      },
    );
    const response = await t.svc.wallet.presentMdoc({
      persona: 'adult',
      request: wr.request,
      origin: t.baseUrl,
      overrides: { credential },
    });
    expect((await signer.submit(wr.request_id, response)).body.status).toBe('completed');
    await expectMdocHolderProof(await resultOf(id), SIGN, MDOC_PID.doctype);
  });

  it('refuses the unknown holder key persona in both formats (key_binding_invalid)', async () => {
    const { id, signer } = await newSignSession();
    for (const persona of ['unknown_holder_key', 'unknown_holder_key_mdoc']) {
      const wr = (await signer.walletRequest()).body;
      const answer = await walletRespond(persona, wr.request);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body.response.vp_token)).toEqual([
        persona.endsWith('_mdoc') ? 'pid_mdoc' : 'pid',
      ]);
      const res = await signer.submit(wr.request_id, answer.body.response);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('key_binding_invalid');
    }
    // cross-device too
    expect(await crossDevice(signer, 'unknown_holder_key_mdoc')).toMatchObject({
      status: 422,
      body: { code: 'key_binding_invalid' },
    });
    await nothingCompleted(id);
  });
});
