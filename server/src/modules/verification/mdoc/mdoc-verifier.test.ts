// Verifies ISO mdoc presentations made by the real sandbox mdoc wallet code against the real sandbox mdoc
// issuer (IACA + document signer certificates, MSO signed with @owf/mdoc), with the trust anchors read from
// MariaDB. Every dishonest or unacceptable presentation is refused with its stable code.
import { generateKeyPairSync } from 'node:crypto';
import { cborDecode, cborEncode } from '@owf/mdoc';
import { base64url, calculateJwkThumbprint, type JWK } from 'jose';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../../app/test-database';
import { ManualClock } from '../../../common/clock';
import { AppError, type ErrorCode } from '../../../common/errors';
import { mdocCredentialIdOf, SandboxMdocIssuer } from '../../sandbox/mdoc/mdoc-issuer';
import { type MdocPresentOverrides, MdocReferenceWallet } from '../../sandbox/mdoc/mdoc-wallet';
import { SandboxCredentialEntity } from '../../sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../sandbox/sandbox-issuer';
import { PID_VCT } from '../dcql';
import { newWalletNonce } from '../request';
import { answersMdocQuery, mdocHandoverOf } from './mdoc-handover';
import {
  dcqlQueryWithAlternatives,
  MDOC_AV,
  MDOC_MDL,
  MDOC_PID,
  MDOC_VP_FORMAT,
  mdocAgeOverQuery,
  mdocAgeQuery,
  mdocCredentialQuery,
  mdocIdentifyQuery,
} from './mdoc-query';
import { MdocTrustStore } from './mdoc-trust';
import { MdocTrustAnchorEntity } from './mdoc-trust-anchor.entity';
import { MdocPresentationVerifier } from './mdoc-verifier';

const ORIGIN = 'https://hosted.example';
const IDENTIFY = ['given_name', 'family_name', 'birth_date', 'nationality', 'document_status'];
type Query = Parameters<typeof dcqlQueryWithAlternatives>[0][number];

describe('mdoc presentation verifier with the sandbox mdoc issuer and wallet', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  let issuer: SandboxMdocIssuer;
  let wallet: MdocReferenceWallet;
  let verifier: MdocPresentationVerifier;

  beforeAll(async () => {
    db = await migratedTestDatabase('mdoc');
    ds = db.ds;
    issuer = new SandboxMdocIssuer({ ds, clock });
    await issuer.ensureSeeded();
    wallet = new MdocReferenceWallet({ ds, clock });
    verifier = new MdocPresentationVerifier({ trust: new MdocTrustStore(ds) });
  });

  afterAll(async () => {
    await db?.close();
  });

  /** The DC API request shape of request.ts, with the given credential queries (alternatives when several). */
  const newRequest = (...credentials: Query[]) => {
    const nonce = newWalletNonce();
    const request = {
      response_type: 'vp_token',
      response_mode: 'dc_api',
      nonce,
      dcql_query: dcqlQueryWithAlternatives(credentials),
      client_metadata: { vp_formats_supported: { ...MDOC_VP_FORMAT } },
    };
    return { nonce, request: request as Record<string, unknown> };
  };
  const pidQuery = () => mdocIdentifyQuery('pid_mdoc', MDOC_PID.doctype, IDENTIFY);

  const presentAndVerify = async (
    persona: string,
    opts: {
      overrides?: MdocPresentOverrides;
      query?: Query;
      environment?: 'sandbox' | 'production';
      origin?: string;
    } = {},
  ) => {
    const { nonce, request } = newRequest(opts.query ?? pidQuery());
    const response = await wallet.presentMdoc({
      persona,
      request,
      origin: ORIGIN,
      overrides: opts.overrides,
    });
    return verifier.verify({
      request,
      expectedNonce: nonce,
      origin: opts.origin ?? ORIGIN,
      environment: opts.environment ?? 'sandbox',
      response,
      now: clock.now(),
    });
  };

  const codeOf = async (p: Promise<unknown>): Promise<ErrorCode | 'resolved'> =>
    p.then(
      () => 'resolved' as const,
      (e: unknown) => {
        if (e instanceof AppError) return e.code;
        throw e;
      },
    );

  it('seeds the personas documents idempotently and trusts the sandbox IACA in the sandbox only', async () => {
    const repo = ds.getRepository(SandboxCredentialEntity);
    const rows = await repo.find({ where: { format: 'mso_mdoc' }, order: { id: 'ASC' } });
    const byPersona = (p: string) =>
      rows
        .filter((r) => r.persona === p)
        .map((r) => r.vct)
        .sort();
    expect(byPersona('adult')).toEqual([MDOC_AV.doctype, MDOC_PID.doctype, MDOC_MDL.doctype].sort());
    expect(byPersona('minor')).toEqual([MDOC_AV.doctype, MDOC_PID.doctype].sort());
    // revocation lives in the status lists (ADR 0033): the revoked persona holds all three, the suspended no mDL
    expect(byPersona('revoked')).toEqual([MDOC_AV.doctype, MDOC_PID.doctype, MDOC_MDL.doctype].sort());
    expect(byPersona('suspended')).toEqual([MDOC_AV.doctype, MDOC_PID.doctype].sort());
    expect(rows.every((r) => r.statusIndex === null && /^[A-Za-z0-9_-]+$/.test(r.credential))).toBe(true);

    await issuer.ensureSeeded();
    expect(await repo.find({ where: { format: 'mso_mdoc' }, order: { id: 'ASC' } })).toEqual(rows);
    const anchors = await ds.getRepository(MdocTrustAnchorEntity).find();
    expect(anchors.map((a) => `${a.environment}|${a.doctype}`).sort()).toEqual(
      [MDOC_AV, MDOC_PID, MDOC_MDL].map((t) => `sandbox|${t.doctype}`).sort(),
    );
    expect(anchors[0]?.subject).toContain('CN=Sandbox mdoc IACA');
  });

  it('accepts the adult PID and returns exactly the requested elements, keyed by element name', async () => {
    const result = await presentAndVerify('adult');
    expect(result.claims).toEqual({
      given_name: 'Erika',
      family_name: 'Mustermann',
      birth_date: '1984-01-12',
      nationality: 'DE',
      document_status: 'not_applicable',
    });
    const holder = await loadSandboxKey(ds, 'holder', 'adult');
    expect(result).toMatchObject({
      format: 'mso_mdoc',
      vct: MDOC_PID.doctype,
      issuer: expect.stringContaining('CN=Sandbox mdoc document signer'),
      holderKeyThumbprint: await calculateJwkThumbprint(holder.publicJwk as JWK, 'sha256'),
      statusChecked: { status: 'not_applicable' },
      issuerChain: { iaca: expect.stringContaining('CN=Sandbox mdoc IACA') },
    });
    expect(result.checks).toEqual([
      'response_shape',
      'issuer_trusted',
      'issuer_signature',
      'credential_type',
      'credential_validity',
      'value_digests',
      'dcql_query',
      'device_signature',
      'session_transcript',
      'status_not_applicable',
    ]);
  });

  it('answers age checks from the mDL and the age-verification attestation (adult true, minor false)', async () => {
    const mdl = await presentAndVerify('adult', {
      query: mdocCredentialQuery({
        id: 'mdl',
        doctype: MDOC_MDL.doctype,
        elements: ['age_over_21', 'issuing_country'],
      }),
    });
    expect(mdl.claims).toEqual({
      age_over_21: true,
      issuing_country: 'UT',
      document_status: 'not_applicable',
    });
    const av = await presentAndVerify('adult', { query: mdocAgeOverQuery('av', MDOC_AV.doctype, 18) });
    expect(av.claims.age_over_18).toBe(true);
    const minor = await presentAndVerify('minor', { query: mdocAgeOverQuery('av', MDOC_AV.doctype, 18) });
    expect(minor.claims.age_over_18).toBe(false);
    // ISO 18013-5 nearest age statement: asked age_over_20, the wallet answers with age_over_21 = true.
    const nearest = await presentAndVerify('adult', {
      query: mdocAgeOverQuery('pid_age', MDOC_PID.doctype, 20),
    });
    expect(nearest.claims.age_over_20).toBe(true);
  });

  it('answers the age_verify query: the age statement first, the birth date where none decides', async () => {
    const pid = await presentAndVerify('adult', { query: mdocAgeQuery('age', MDOC_PID.doctype, 18) });
    expect(pid.claims).toEqual({ age_over_18: true, document_status: 'not_applicable' });
    const minor = await presentAndVerify('minor', { query: mdocAgeQuery('age', MDOC_PID.doctype, 18) });
    expect(minor.claims).toEqual({ age_over_18: false, document_status: 'not_applicable' });
    // No statement decides 25 for an adult born 1984 (only age_over_18/21 true): the birth date answers.
    const mdl = await presentAndVerify('adult', { query: mdocAgeQuery('age', MDOC_MDL.doctype, 25) });
    expect(mdl.claims).toEqual({ birth_date: '1984-01-12', document_status: 'not_applicable' });
    const av = await presentAndVerify('adult', { query: mdocAgeQuery('age', MDOC_AV.doctype, 18) });
    expect(av.claims).toEqual({ age_over_18: true, document_status: 'not_applicable' });
  });

  it('binds encrypted (dc_api.jwt) and cross-device (direct_post.jwt) handovers from the stored request', async () => {
    const enc = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const encJwk = { ...enc, use: 'enc', alg: 'ECDH-ES' } as JWK;
    const { nonce, request } = newRequest(pidQuery());
    const signed = { ...request, response_mode: 'dc_api.jwt', client_metadata: { jwks: { keys: [encJwk] } } };
    const handover = mdocHandoverOf(signed, `origin:${ORIGIN}`);
    expect(handover).toMatchObject({ origin: ORIGIN, responseEncryptionJwk: { kty: 'EC', x: enc.x } });
    const verify = (response: unknown, req = signed, h = handover) =>
      verifier.verify({
        request: req,
        expectedNonce: nonce,
        environment: 'sandbox',
        response,
        now: clock.now(),
        ...h,
      });
    const bound = await wallet.presentMdoc({
      persona: 'adult',
      request,
      origin: ORIGIN,
      responseEncryptionJwk: encJwk,
    });
    expect(answersMdocQuery(signed, bound)).toBe(true);
    expect((await verify(bound)).claims.given_name).toBe('Erika');
    // Made for an unencrypted response (null thumbprint): not bound to our encryption key.
    const unbound = await wallet.presentMdoc({ persona: 'adult', request, origin: ORIGIN });
    expect(await codeOf(verify(unbound))).toBe('key_binding_invalid');

    const redirect = { clientId: 'x509_hash:abc', responseUri: 'https://hosted.example/w/responses/wr_1' };
    const crossDevice = {
      ...signed,
      response_mode: 'direct_post.jwt',
      client_id: redirect.clientId,
      response_uri: redirect.responseUri,
    };
    const cd = mdocHandoverOf(crossDevice, redirect.clientId);
    expect(cd.redirect).toEqual(redirect);
    const viaQr = await wallet.presentMdoc({
      persona: 'adult',
      request,
      origin: ORIGIN,
      redirect,
      responseEncryptionJwk: encJwk,
    });
    expect((await verify(viaQr, crossDevice, cd)).vct).toBe(MDOC_PID.doctype);
    // A DC API answer replayed into the cross-device request does not verify.
    expect(await codeOf(verify(bound, crossDevice, cd))).toBe('key_binding_invalid');
  });

  it('tells mdoc answers from SD-JWT answers by the format of the answered query', () => {
    const sdJwt: Query = { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [PID_VCT] } };
    const { request } = newRequest(sdJwt, pidQuery());
    expect(answersMdocQuery(request, { vp_token: { pid_mdoc: ['x'] } })).toBe(true);
    expect(answersMdocQuery(request, { vp_token: JSON.stringify({ pid_mdoc: ['x'] }) })).toBe(true);
    expect(answersMdocQuery(request, { vp_token: { pid: ['x~'] } })).toBe(false);
    expect(answersMdocQuery(request, { error: 'access_denied' })).toBe(false);
  });

  it('answers "SD-JWT PID or mdoc PID" alternatives with the mdoc', async () => {
    const sdJwt: Query = {
      id: 'pid',
      format: 'dc+sd-jwt',
      meta: { vct_values: [PID_VCT] },
      claims: [{ path: ['given_name'] }],
    };
    const { nonce, request } = newRequest(sdJwt, pidQuery());
    expect((request.dcql_query as { credential_sets: unknown }).credential_sets).toEqual([
      { options: [['pid'], ['pid_mdoc']], required: true },
    ]);
    const response = await wallet.presentMdoc({ persona: 'adult', request, origin: ORIGIN });
    expect(Object.keys(response.vp_token)).toEqual(['pid_mdoc']);
    const result = await verifier.verify({
      request,
      expectedNonce: nonce,
      origin: ORIGIN,
      environment: 'sandbox',
      response,
      now: clock.now(),
    });
    expect(result.claims.given_name).toBe('Erika');
  });

  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const cases: {
    name: string;
    persona?: string;
    overrides?: MdocPresentOverrides;
    environment?: 'sandbox' | 'production';
    query?: () => Query;
    code: ErrorCode;
  }[] = [
    {
      name: 'a tampered element value',
      overrides: { tamperElement: 'family_name' },
      code: 'disclosure_invalid',
    },
    {
      name: 'a tampered age statement',
      overrides: { tamperElement: 'age_over_18' },
      query: () => mdocAgeOverQuery('av', MDOC_AV.doctype, 18),
      code: 'disclosure_invalid',
    },
    {
      name: 'a session transcript with another nonce',
      overrides: { nonce: 'A'.repeat(43) },
      code: 'key_binding_invalid',
    },
    {
      name: 'a session transcript with another origin',
      overrides: { origin: 'https://attacker.example' },
      code: 'key_binding_invalid',
    },
    {
      name: 'a device signature by another key',
      overrides: { deviceKey: otherKey },
      code: 'key_binding_invalid',
    },
    { name: 'no DeviceSigned at all', overrides: { omitDeviceSigned: true }, code: 'key_binding_missing' },
    { name: 'an IACA nobody trusts', persona: 'unknown_issuer', code: 'issuer_untrusted' },
    { name: 'the sandbox IACA in production', environment: 'production', code: 'issuer_untrusted' },
    { name: 'an expired MSO', persona: 'expired', code: 'credential_expired' },
    {
      name: 'a requested element left out',
      overrides: { omitElements: ['birth_date'] },
      code: 'claims_missing',
    },
    {
      name: 'a document of another docType',
      overrides: { doctype: MDOC_MDL.doctype },
      code: 'credential_type_invalid',
    },
  ];

  it.each(cases)('refuses $name with $code', async ({ persona, overrides, environment, query, code }) => {
    expect(
      await codeOf(presentAndVerify(persona ?? 'adult', { overrides, environment, query: query?.() })),
    ).toBe(code);
  });

  it('refuses an MSO that is not valid yet, and a response for another origin than the page', async () => {
    const now = clock.now();
    const future = await issuer.issueFor('adult', MDOC_PID.doctype, {
      validity: {
        signed: now,
        validFrom: new Date(now.getTime() + 86_400_000),
        validUntil: new Date(now.getTime() + 2 * 86_400_000),
      },
    });
    expect(await codeOf(presentAndVerify('adult', { overrides: { credential: future } }))).toBe(
      'credential_expired',
    );
    // The wallet bound the answer to ORIGIN; the verifier expects another page origin.
    expect(await codeOf(presentAndVerify('adult', { origin: 'https://other.example' }))).toBe(
      'key_binding_invalid',
    );
  });

  it('refuses an MSO signed outside its document signer certificate validity with its own code', async () => {
    const now = clock.now();
    // The MSO itself is valid now; only its signing date lies years before the document signer certificate.
    const early = await issuer.issueFor('adult', MDOC_PID.doctype, {
      validity: {
        signed: new Date(now.getTime() - 20 * 365 * 86_400_000),
        validFrom: new Date(now.getTime() - 86_400_000),
        validUntil: new Date(now.getTime() + 86_400_000),
      },
    });
    const refused = await presentAndVerify('adult', { overrides: { credential: early } }).catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect([refused.code, refused.message]).toEqual([
      'issuer_certificate_invalid_at_signing',
      'The MSO was signed outside the validity period of its document signer certificate.',
    ]);
  });

  it('refuses an empty DeviceAuth as a missing holder proof (not as a MAC)', async () => {
    const { nonce, request } = newRequest(pidQuery());
    const honest = (await wallet.presentMdoc({ persona: 'adult', request, origin: ORIGIN })) as {
      vp_token: Record<string, string[]>;
    };
    const raw = cborDecode(base64url.decode(honest.vp_token.pid_mdoc?.[0] as string)) as Map<string, unknown>;
    const doc = (raw.get('documents') as Map<string, unknown>[])[0] as Map<string, unknown>;
    (doc.get('deviceSigned') as Map<string, unknown>).set('deviceAuth', new Map());
    const refused = await verifier
      .verify({
        request,
        expectedNonce: nonce,
        origin: ORIGIN,
        environment: 'sandbox',
        response: { vp_token: { pid_mdoc: [base64url.encode(cborEncode(raw))] } },
        now: clock.now(),
      })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect([refused.code, refused.message]).toEqual([
      'key_binding_missing',
      'The DeviceAuth holds neither a device signature nor a device MAC.',
    ]);
  });

  it('refuses a bare string instead of an array of presentations (OpenID4VP 1.0 §8.1)', async () => {
    const { nonce, request } = newRequest(pidQuery());
    const honest = (await wallet.presentMdoc({ persona: 'adult', request, origin: ORIGIN })) as {
      vp_token: Record<string, string[]>;
    };
    const verify = (response: unknown) =>
      verifier.verify({
        request,
        expectedNonce: nonce,
        origin: ORIGIN,
        environment: 'sandbox',
        response,
        now: clock.now(),
      });
    const bare = { vp_token: { pid_mdoc: honest.vp_token.pid_mdoc?.[0] } };
    expect(await codeOf(verify(bare))).toBe('presentation_malformed');
    expect(await codeOf(verify({ vp_token: JSON.stringify(bare.vp_token) }))).toBe('presentation_malformed');
    expect(await codeOf(verify({ vp_token: { pid_mdoc: [] } }))).toBe('presentation_malformed');
    // control: the same presentation in its array completes
    expect(await codeOf(verify(honest))).toBe('resolved');
  });

  it('refuses a document signed by the untrusted IACA, or by the trusted IACA key itself', async () => {
    const foreign = await issuer.issueFor('adult', MDOC_PID.doctype, { signer: 'untrusted' });
    expect(await codeOf(presentAndVerify('adult', { overrides: { credential: foreign } }))).toBe(
      'issuer_untrusted',
    );
    const byRoot = await issuer.issueFor('adult', MDOC_PID.doctype, { signer: 'iaca' });
    expect(await codeOf(presentAndVerify('adult', { overrides: { credential: byRoot } }))).toBe(
      'issuer_untrusted',
    );
  });

  it('refuses malformed vp_token entries with presentation_malformed', async () => {
    const { nonce, request } = newRequest(pidQuery());
    const verify = (response: unknown) =>
      verifier.verify({
        request,
        expectedNonce: nonce,
        origin: ORIGIN,
        environment: 'sandbox',
        response,
        now: clock.now(),
      });
    expect(await codeOf(verify({ vp_token: { pid_mdoc: ['not base64url!'] } }))).toBe(
      'presentation_malformed',
    );
    expect(await codeOf(verify({ vp_token: { pid_mdoc: ['oWFhYWI'] } }))).toBe('presentation_malformed');
    expect(await codeOf(verify({ vp_token: { other: ['x'] } }))).toBe('presentation_malformed');
    expect(await codeOf(verify({ error: 'access_denied' }))).toBe('presentation_malformed');
    const stored = await ds
      .getRepository(SandboxCredentialEntity)
      .findOneByOrFail({ id: mdocCredentialIdOf('adult', MDOC_PID.doctype) });
    // An IssuerSigned alone is not a DeviceResponse.
    expect(await codeOf(verify({ vp_token: { pid_mdoc: [stored.credential] } }))).toBe(
      'presentation_malformed',
    );
  });
});
