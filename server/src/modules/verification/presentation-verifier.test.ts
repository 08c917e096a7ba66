// Verifies SD-JWT VC presentations made by the real reference wallet against the real sandbox issuer, with the
// status list fetched over real HTTP from the sandbox routes, on MariaDB.
import type { AddressInfo } from 'node:net';
import { ES256 } from '@sd-jwt/crypto-nodejs';
import express from 'express';
import type { DataSource } from 'typeorm';
import { IsNull } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import { AppError, type ErrorCode } from '../../common/errors';
import { errorHandler, RouteRegistry, requestContext } from '../../common/http';
import { createLogger } from '../../common/logger';
import { configFrom } from '../../config/config';
import { type PresentOverrides, ReferenceWallet } from '../sandbox/reference-wallet';
import { registerSandboxRoutes } from '../sandbox/sandbox.rest';
import { SandboxCredentialEntity } from '../sandbox/sandbox-credential.entity';
import { SANDBOX_STATUS_LIST_ID, SandboxIssuer } from '../sandbox/sandbox-issuer';
import { SandboxKeyEntity } from '../sandbox/sandbox-key.entity';
import { PID_VCT } from './dcql';
import { PresentationVerifier } from './presentation-verifier';
import { buildWalletRequest, newWalletNonce } from './request';
import { httpStatusListFetcher } from './status-list-fetch';
import { TrustStore } from './trust';
import { TrustedIssuerEntity } from './trusted-issuer.entity';

const ORIGIN = 'https://hosted.example';
const ALL_CLAIMS = ['given_name', 'family_name', 'birth_date', 'nationality', 'document_status'];

describe('presentation verifier (dc+sd-jwt) with the sandbox issuer and reference wallet', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let baseUrl: string;
  const clock = new ManualClock(Date.parse('2026-11-22T10:00:00Z'));
  let issuer: SandboxIssuer;
  let wallet: ReferenceWallet;
  let verifier: PresentationVerifier;

  beforeAll(async () => {
    db = await migratedTestDatabase('verification');
    ds = db.ds;

    const app = express();
    const router = express.Router();
    app.use(requestContext(clock), express.json(), router);
    app.use(errorHandler(createLogger('silent')));
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    issuer = new SandboxIssuer({ ds, config: configFrom({ BASE_URL: baseUrl }), clock });
    await issuer.ensureSeeded();
    wallet = new ReferenceWallet({ ds, clock });
    const reg = new RouteRegistry();
    registerSandboxRoutes(reg, { issuer, wallet });
    const pass: express.RequestHandler = (_req, _res, next) => next();
    reg.mount(router, { public: pass, signer: pass, sandbox: pass });
    verifier = new PresentationVerifier({
      trust: new TrustStore(ds),
      fetchStatusList: httpStatusListFetcher(),
    });
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await db?.close();
  });

  const newRequest = (claims = ALL_CLAIMS, vct = PID_VCT) => {
    const nonce = newWalletNonce();
    return { nonce, request: buildWalletRequest({ nonce, claims, vct }).request };
  };

  const verify = (
    request: Record<string, unknown>,
    nonce: string,
    response: unknown,
    environment = 'sandbox',
  ) =>
    verifier.verify({
      request,
      expectedNonce: nonce,
      expectedAudience: `origin:${ORIGIN}`,
      environment: environment as 'sandbox' | 'production',
      response,
      now: clock.now(),
    });

  /** A presentation by the real wallet code, possibly dishonest, verified as the session service would. */
  const presentAndVerify = async (
    persona: string,
    overrides: PresentOverrides = {},
    environment = 'sandbox',
  ) => {
    const { nonce, request } = newRequest();
    const response = await wallet.presentWith({ persona, request, origin: ORIGIN, overrides });
    return verify(request, nonce, response, environment);
  };

  const codeOf = async (p: Promise<unknown>): Promise<ErrorCode | 'resolved'> =>
    p.then(
      () => 'resolved' as const,
      (e: unknown) => {
        if (e instanceof AppError) return e.code;
        throw e;
      },
    );

  it('accepts the adult persona over HTTP and returns exactly the requested claims plus document_status', async () => {
    const { nonce, request } = newRequest();
    const res = await fetch(`${baseUrl}/sandbox/wallet/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ persona: 'adult', request, origin: ORIGIN }),
    });
    expect(res.status).toBe(200);
    const { response } = (await res.json()) as { response: unknown };

    const result = await verify(request, nonce, response);
    expect(result.claims).toEqual({
      given_name: 'Erika',
      family_name: 'Mustermann',
      birth_date: '1984-01-12',
      nationality: 'DE',
      document_status: 'valid',
    });
    expect(result).toMatchObject({
      format: 'dc+sd-jwt',
      issuer: `${baseUrl}/sandbox/issuer`,
      vct: 'urn:eudi:pid:1',
      statusChecked: {
        uri: expect.stringMatching(`^${baseUrl}/sandbox/status-lists/`),
        idx: 0,
        status: 'valid',
      },
    });
    expect(result.holderKeyThumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.checks).toEqual(
      expect.arrayContaining(['issuer_signature', 'nonce', 'audience', 'sd_hash', 'status_list']),
    );
  });

  it('discloses only what was asked: a one-claim request yields one disclosure and one claim', async () => {
    const { nonce, request } = newRequest(['given_name', 'document_status']);
    const response = await wallet.respond({ persona: 'adult', request, origin: ORIGIN });
    const presentation = response.vp_token.pid?.[0] ?? '';
    expect(presentation.split('~')).toHaveLength(3); // issuer JWT, one disclosure, KB-JWT
    const result = await verify(request, nonce, response);
    expect(result.claims).toEqual({ given_name: 'Erika', document_status: 'valid' });
  });

  it('serves the status list as application/statuslist+jwt and lists the personas', async () => {
    const res = await fetch(`${baseUrl}/sandbox/status-lists/stl_sandbox_pid_1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/statuslist\+jwt/);
    const personas = (await (await fetch(`${baseUrl}/sandbox/wallet/personas`)).json()) as {
      personas: { id: string }[];
    };
    expect(personas.personas.map((p) => p.id)).toEqual(
      expect.arrayContaining([
        'adult',
        'minor',
        'revoked',
        'suspended',
        'expired',
        'unknown_issuer',
        'unknown_holder_key',
      ]),
    );
  });

  it('refuses each bad presentation with its own code', async () => {
    const nowS = Math.floor(clock.now().getTime() / 1000);
    const otherKey = (await ES256.generateKeyPair()).privateKey;
    const wrongTyp = await issuer.issueFor('adult', { typ: 'vc+sd-jwt' });
    const plain = newRequest();
    // Reordered disclosures: every digest still matches, but the KB-JWT covered another exact string.
    const reordered = newRequest();
    const honest = (await wallet.respond({ persona: 'adult', request: reordered.request, origin: ORIGIN }))
      .vp_token;
    const [jwt, d1, d2, ...rest] = (honest.pid?.[0] ?? '').split('~');
    const swapped = { vp_token: { pid: [[jwt, d2, d1, ...rest].join('~')] } };
    const cases: [string, Promise<unknown>, ErrorCode][] = [
      ['tampered disclosure', presentAndVerify('adult', { tamperDisclosure: true }), 'disclosure_invalid'],
      ['wrong nonce', presentAndVerify('adult', { nonce: newWalletNonce() }), 'nonce_mismatch'],
      ['wrong aud', presentAndVerify('adult', { aud: 'origin:https://evil.example' }), 'audience_mismatch'],
      ['KB-JWT by another key', presentAndVerify('adult', { kbKey: otherKey }), 'key_binding_invalid'],
      ['unknown holder key persona', presentAndVerify('unknown_holder_key'), 'key_binding_invalid'],
      ['untrusted issuer', presentAndVerify('unknown_issuer'), 'issuer_untrusted'],
      ['revoked', presentAndVerify('revoked'), 'credential_revoked'],
      ['suspended', presentAndVerify('suspended'), 'credential_suspended'],
      ['expired credential', presentAndVerify('expired'), 'credential_expired'],
      ['stale iat', presentAndVerify('adult', { iat: nowS - 600 }), 'key_binding_stale'],
      ['iat in the future', presentAndVerify('adult', { iat: nowS + 60 }), 'key_binding_stale'],
      ['missing KB-JWT', presentAndVerify('adult', { omitKeyBinding: true }), 'key_binding_missing'],
      ['wrong typ', presentAndVerify('adult', { credential: wrongTyp }), 'credential_type_invalid'],
      [
        'requested claim not disclosed',
        presentAndVerify('adult', { omitClaims: ['birth_date'] }),
        'claims_missing',
      ],
      ['sandbox credential in production', presentAndVerify('adult', {}, 'production'), 'issuer_untrusted'],
      [
        'malformed response',
        verify(plain.request, plain.nonce, { vp_token: 'nope' }),
        'presentation_malformed',
      ],
      ['reordered disclosures', verify(reordered.request, reordered.nonce, swapped), 'sd_hash_mismatch'],
      [
        'wallet error response',
        verify(plain.request, plain.nonce, { error: 'access_denied' }),
        'presentation_malformed',
      ],
    ];
    const outcomes = await Promise.all(cases.map(async ([name, p, code]) => [name, await codeOf(p), code]));
    for (const [name, got, want] of outcomes) expect({ name, code: got }).toEqual({ name, code: want });
  });

  it('sees a status change at once: verified status lists are remembered by the exact token, not by the list', async () => {
    // The same verifier verified this list before; the revocation changes the token, so nothing stale is used.
    expect(await codeOf(presentAndVerify('adult'))).toBe('resolved');
    await issuer.lists.setStatus(SANDBOX_STATUS_LIST_ID, 0, 1);
    try {
      expect(await codeOf(presentAndVerify('adult'))).toBe('credential_revoked');
    } finally {
      await issuer.lists.setStatus(SANDBOX_STATUS_LIST_ID, 0, 0);
    }
    expect(await codeOf(presentAndVerify('adult'))).toBe('resolved');
  });

  it('refuses a replayed presentation made for another request (its nonce)', async () => {
    const first = newRequest();
    const response = await wallet.respond({ persona: 'adult', request: first.request, origin: ORIGIN });
    const second = newRequest();
    expect(await codeOf(verify(second.request, second.nonce, response))).toBe('nonce_mismatch');
  });

  it('the wallet refuses a request its persona cannot satisfy', async () => {
    const { request } = newRequest(['given_name'], 'urn:example:other:1');
    expect(await codeOf(wallet.respond({ persona: 'adult', request, origin: ORIGIN }))).toBe(
      'claims_missing',
    );
  });

  it('seeding is idempotent, and a new BASE_URL re-issues credentials and moves trust (status indices kept)', async () => {
    const count = async () => ({
      keys: await ds.getRepository(SandboxKeyEntity).count(),
      credentials: await ds.getRepository(SandboxCredentialEntity).count(),
      trusted: await ds.getRepository(TrustedIssuerEntity).countBy({ retiredAt: IsNull() }),
    });
    const before = await count();
    const adultBefore = await ds.getRepository(SandboxCredentialEntity).findOneByOrFail({ persona: 'adult' });
    await issuer.ensureSeeded();
    expect(await count()).toEqual(before);
    // 8 personas (adult_second_device: ADR 0026) with a holder key each, the issuer keys, one trusted issuer
    expect(before).toEqual({ keys: 10, credentials: 8, trusted: 1 });
    expect(
      (await ds.getRepository(SandboxCredentialEntity).findOneByOrFail({ persona: 'adult' })).credential,
    ).toBe(adultBefore.credential);

    const moved = new SandboxIssuer({
      ds,
      config: configFrom({ BASE_URL: 'https://sandbox.moved.example' }),
      clock,
    });
    await moved.ensureSeeded();
    const adultMoved = await ds.getRepository(SandboxCredentialEntity).findOneByOrFail({ persona: 'adult' });
    expect(adultMoved.credential).not.toBe(adultBefore.credential);
    expect(adultMoved.statusIndex).toBe(adultBefore.statusIndex);
    const trust = new TrustStore(ds);
    expect(await trust.issuerKey(`${baseUrl}/sandbox/issuer`, 'sandbox')).toBeNull();
    expect(await trust.issuerKey('https://sandbox.moved.example/sandbox/issuer', 'sandbox')).not.toBeNull();
    expect(await trust.issuerKey('https://sandbox.moved.example/sandbox/issuer', 'production')).toBeNull();

    // Back to the real base: the original registration is current again and the adult verifies again.
    await issuer.ensureSeeded();
    expect(await count()).toEqual(before);
    expect((await presentAndVerify('adult')).claims.document_status).toBe('valid');
  });
});
