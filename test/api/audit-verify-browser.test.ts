// The dashboard's in-browser audit check (hosted-web/src/dashboard/audit-verify.ts) run in Node's WebCrypto
// against a real record signed by the service: read over GraphQL by the business's dashboard user (the way
// the session detail reads it) and over REST, with the public key set from GET
// /.well-known/service-audit-jwks.json. A genuine record verifies; any change to its content, digest,
// signature or key id makes it fail with a reason. Its canonical form matches the server's (RFC 8785).
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  derToRawSignature,
  fetchAuditJwks,
  verifyAuditRecord,
} from '../../hosted-web/src/dashboard/audit-verify';
import { auditRecordProblem } from '../../server/src/modules/audit/verify';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';

describe('in-browser audit verification (dashboard)', () => {
  let t: TestService;
  let record: Json;
  let digest: string;
  let jwks: Json;

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'audit-verify-web' });
    const api = new Api(t.baseUrl, (await createBusiness(t, 'Verify GmbH')).apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, 'http://127.0.0.1:9/hook');
    const sessionId = (await api.rest('POST', '/v1/sessions', { workflow_id: workflowId })).body.id;
    const signer = new SignerClient(t.baseUrl, sessionId);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    const res = await api.gql(
      'query($id: ID!) { auditRecord(id: $id) { auditId stage kid digest record } }',
      {
        id: `${sessionId}_0`,
      },
    );
    expect(res.errors).toBeUndefined();
    ({ record, digest } = res.data.auditRecord);
    expect(res.data.auditRecord).toMatchObject({ auditId: `${sessionId}_0`, stage: 0 });
    // the dashboard's record is exactly what REST answers
    expect(record).toEqual((await api.rest('GET', `/v1/audits/${sessionId}_0`)).body);
    jwks = await fetchAuditJwks(t.baseUrl);
  });
  afterAll(async () => t?.stop());

  it('a genuine record verifies, with the digest the dashboard was given', async () => {
    expect(auditRecordProblem(record, jwks)).toBeNull(); // the server's own offline check agrees
    const v = await verifyAuditRecord(record, jwks, digest);
    expect(v).toEqual({ ok: true, kid: record.service_signature.kid, digest });
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a changed record fails: against its digest, and on the signature alone', async () => {
    const tampered = { ...record, stage: record.stage + 1 };
    expect(await verifyAuditRecord(tampered, jwks, digest)).toEqual({
      ok: false,
      reason: 'the record does not match its digest (its content was changed)',
    });
    expect(await verifyAuditRecord(tampered, jwks)).toEqual({
      ok: false,
      reason: 'the signature does not match the record',
    });
    const facts = { ...record, verification: { ...record.verification, issuer: 'https://evil.example' } };
    expect((await verifyAuditRecord(facts, jwks)).ok).toBe(false);
    expect(auditRecordProblem(facts, jwks)).not.toBeNull();
  });

  it('a changed digest, signature or key id fails', async () => {
    expect((await verifyAuditRecord(record, jwks, '0'.repeat(64))).ok).toBe(false);
    const der = Buffer.from(record.service_signature.value, 'base64url');
    der[der.length - 1] ^= 0x01; // last byte of s
    const badSig = {
      ...record,
      service_signature: { ...record.service_signature, value: der.toString('base64url') },
    };
    expect(await verifyAuditRecord(badSig, jwks, digest)).toEqual({
      ok: false,
      reason: 'the signature does not match the record',
    });
    const badKid = { ...record, service_signature: { ...record.service_signature, kid: 'nope' } };
    expect(await verifyAuditRecord(badKid, jwks, digest)).toEqual({
      ok: false,
      reason: 'no key with kid nope in the public key set',
    });
    const noSig = { ...record, service_signature: undefined };
    expect((await verifyAuditRecord(noSig, jwks, digest)).ok).toBe(false);
    // another P-256 key under the same kid: the signature does not match
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const swapped = { keys: [{ ...other, kid: record.service_signature.kid }] };
    expect((await verifyAuditRecord(record, swapped, digest)).ok).toBe(false);
  });

  it('canonicalizes exactly as the server (RFC 8785)', () => {
    const samples: unknown[] = [
      record,
      {
        b: 1,
        a: [3, 'x', null, true, { z: 0.1, y: -0, x: 1e21, w: 1e-7 }],
        é: 'ü\u2028"\\\n',
        '\u{1F600}': 1,
      },
      { '\u00e9': 1, e: 2, E: 3, '10': 4, '9': 5 },
      [],
      {},
      'plain',
      12345678901234567000,
    ];
    for (const s of samples) expect(canonicalJson(s)).toBe(canonicalize(s));
  });

  it('turns DER ECDSA signatures into the raw r||s WebCrypto verifies', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (let i = 0; i < 40; i++) {
      const msg = Buffer.from(`message ${i}`);
      const der = sign('sha256', msg, { key: privateKey, dsaEncoding: 'der' });
      const raw = derToRawSignature(new Uint8Array(der));
      if (!raw) throw new Error('DER signature not converted');
      // node verifies the converted signature as IEEE P1363 (r||s)
      expect(verify('sha256', msg, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
    }
    expect(derToRawSignature(new Uint8Array([0x30, 0x02, 0x02, 0x00]))).toBeNull();
    expect(derToRawSignature(new Uint8Array([0x31, 0x00]))).toBeNull();
  });
});
