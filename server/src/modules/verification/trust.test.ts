// Issuer trust through X.509 anchors held in the database, on MariaDB: a full SD-JWT VC presentation whose
// header carries an x5c chain is verified by the real PresentationVerifier against anchors stored per
// environment. Certificates are made here with @peculiar/x509 (no files); the clock is fixed.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import { AppError, type ErrorCode } from '../../common/errors';
import { ensureRoute } from '../catalog/catalog.factory';
import { PID_VCT } from './dcql';
import { PresentationVerifier } from './presentation-verifier';
import { buildWalletRequest, newWalletNonce } from './request';
import { TrustStore } from './trust';
import { TrustAnchorEntity } from './trust-anchor.entity';
import {
  issueCertificate,
  issueSdJwtVc,
  rootCa as makeRoot,
  type PkiParty as Party,
  publicJwkOf,
  type San,
  statusListToken,
  x5cOf,
} from './x509-test-pki';

const ISS = 'https://pid.issuer.example/issuer';
const ROUTE = 'rte_test_pid';
const ORIGIN = 'https://hosted.example';
const LIST_URI = 'https://pid.issuer.example/status/1';
const NOW = new Date('2026-11-22T10:00:00Z');

const rootCa = (name: string) =>
  makeRoot(name, { notBefore: new Date('2025-01-01Z'), notAfter: new Date('2035-01-01Z') });

const issued = (
  issuer: Party,
  name: string,
  opts: { ca?: boolean; san?: San[]; notBefore?: Date; notAfter?: Date },
): Promise<Party> =>
  issueCertificate(issuer, name, {
    ...opts,
    notBefore: opts.notBefore ?? new Date('2026-01-01Z'),
    notAfter: opts.notAfter ?? new Date('2027-06-01Z'),
  });

describe('issuer trust through X.509 anchors', () => {
  let db: MigratedTestDatabase;
  let ds: DataSource;
  let trust: TrustStore;
  let verifier: PresentationVerifier;
  const clock = new ManualClock(NOW.getTime());
  const statusLists = new Map<string, string>();

  let root: Party;
  let intermediate: Party;
  let leaf: Party;
  let holder: CryptoKeyPair;

  beforeAll(async () => {
    db = await migratedTestDatabase('trust');
    ds = db.ds;
    trust = new TrustStore(ds);
    verifier = new PresentationVerifier({
      trust,
      fetchStatusList: async (uri) => {
        const token = statusLists.get(uri);
        if (!token) throw new Error('no such list');
        return token;
      },
    });

    root = await rootCa('PID Root CA');
    intermediate = await issued(root, 'PID Issuing CA', { ca: true, notAfter: new Date('2030-01-01Z') });
    leaf = await issued(intermediate, 'PID Issuer signer', {
      san: [
        { type: 'url', value: ISS },
        { type: 'dns', value: 'pid.issuer.example' },
      ],
    });
    holder = (await rootCa('holder')).keys;
    await ensureRoute(ds, { id: ROUTE, walletId: 'wal_t', issuerId: 'iss_t', identifier: ISS, now: NOW });
    // the anchor is stored as PEM for production, and as DER (the other accepted input) for the sandbox
    await trust.addAnchor({
      issuer: ISS,
      environment: 'production',
      routeId: ROUTE,
      name: 'PID Root',
      certificate: root.cert.toString('pem'),
      now: NOW,
    });
    await trust.addAnchor({
      issuer: ISS,
      environment: 'sandbox',
      routeId: ROUTE,
      name: 'PID Root',
      certificate: new Uint8Array(root.cert.rawData),
      now: NOW,
    });
    await publishStatusList(leaf);
  });

  afterAll(async () => {
    await db?.close();
  });

  /** The issuer's status list (everything valid), signed by `signer`, optionally with its x5c. */
  async function publishStatusList(signer: Party, x5c?: string[]) {
    statusLists.set(
      LIST_URI,
      await statusListToken({ signer, uri: LIST_URI, iat: Math.floor(NOW.getTime() / 1000), x5c }),
    );
  }

  /** Issues a PID-shaped SD-JWT VC signed by `signer` with header x5c, presents it, verifies it. */
  async function presentAndVerify(opts: {
    signer: Party;
    x5c: string[] | undefined;
    iss?: string;
    environment?: 'sandbox' | 'production';
  }) {
    const iat = Math.floor(NOW.getTime() / 1000);
    const credential = await issueSdJwtVc({
      signer: opts.signer,
      x5c: opts.x5c,
      payload: {
        iss: opts.iss ?? ISS,
        iat,
        exp: iat + 86_400 * 365,
        vct: PID_VCT,
        cnf: { jwk: await publicJwkOf({ keys: holder }) },
        status: { status_list: { idx: 3, uri: LIST_URI } },
        given_name: 'Erika',
        family_name: 'Mustermann',
      },
      disclosable: ['given_name', 'family_name'],
    });
    const nonce = newWalletNonce();
    const { request, credentialQueryId } = buildWalletRequest({
      nonce,
      claims: ['given_name', 'family_name', 'document_status'],
      vct: PID_VCT,
    });
    const wallet = new SDJwtVcInstance({
      hasher: digest,
      hashAlg: 'sha-256',
      kbSigner: await ES256.getSigner(await webcrypto.subtle.exportKey('jwk', holder.privateKey)),
      kbSignAlg: 'ES256',
    });
    const presentation = await wallet.present(
      credential,
      { given_name: true, family_name: true },
      { kb: { payload: { iat, aud: `origin:${ORIGIN}`, nonce } } },
    );
    return verifier.verify({
      request,
      expectedNonce: nonce,
      expectedAudience: `origin:${ORIGIN}`,
      environment: opts.environment ?? 'production',
      response: { vp_token: { [credentialQueryId]: [presentation] } },
      now: clock.now(),
    });
  }

  const codeOf = async (p: Promise<unknown>): Promise<ErrorCode | 'resolved'> =>
    p.then(
      () => 'resolved' as const,
      (e: unknown) => {
        if (e instanceof AppError) return e.code;
        throw e;
      },
    );

  it('verifies a credential whose x5c chain leads to a stored anchor, with the status list under the same trust', async () => {
    const result = await presentAndVerify({ signer: leaf, x5c: x5cOf(leaf, intermediate) });
    expect(result.issuer).toBe(ISS);
    expect(result.claims).toEqual({
      given_name: 'Erika',
      family_name: 'Mustermann',
      document_status: 'valid',
    });
    expect(result.checks).toContain('issuer_trusted');

    // the same anchor in the sandbox (stored from DER), and a chain that repeats the root
    await expect(
      presentAndVerify({
        signer: leaf,
        x5c: x5cOf(leaf, intermediate),
        environment: 'sandbox',
      }),
    ).resolves.toMatchObject({ issuer: ISS });
    await expect(
      presentAndVerify({ signer: leaf, x5c: x5cOf(leaf, intermediate, root) }),
    ).resolves.toMatchObject({ issuer: ISS });

    const decided = await trust.trustIssuer(ISS, 'production', { x5c: x5cOf(leaf, intermediate) }, NOW);
    expect(decided.via).toBe('x509');
    const leafPublic = await webcrypto.subtle.exportKey('jwk', leaf.keys.publicKey);
    expect(decided.key).toEqual({ kty: 'EC', crv: 'P-256', x: leafPublic.x, y: leafPublic.y });
  });

  it('accepts a status list signed by another certificate of the same issuer under the same anchor', async () => {
    const listSigner = await issued(intermediate, 'PID Status signer', {
      san: [{ type: 'url', value: ISS }],
    });
    await publishStatusList(listSigner, x5cOf(listSigner, intermediate));
    try {
      const result = await presentAndVerify({ signer: leaf, x5c: x5cOf(leaf, intermediate) });
      expect(result.claims.document_status).toBe('valid');

      // a status list under an untrusted root is refused, and the credential with it
      const rogueRoot = await rootCa('Rogue Root');
      const rogue = await issued(rogueRoot, 'Rogue status signer', { san: [{ type: 'url', value: ISS }] });
      await publishStatusList(rogue, x5cOf(rogue));
      expect(await codeOf(presentAndVerify({ signer: leaf, x5c: x5cOf(leaf, intermediate) }))).toBe(
        'status_check_failed',
      );
    } finally {
      await publishStatusList(leaf);
    }
  });

  it('refuses an expired leaf, a chain to an untrusted root, an iss the leaf does not name, and a missing chain', async () => {
    const expired = await issued(intermediate, 'PID Issuer signer (old)', {
      san: [{ type: 'url', value: ISS }],
      notBefore: new Date('2025-06-01Z'),
      notAfter: new Date('2026-06-01Z'),
    });
    expect(await codeOf(presentAndVerify({ signer: expired, x5c: x5cOf(expired, intermediate) }))).toBe(
      'issuer_untrusted',
    );

    const otherRoot = await rootCa('Other Root CA');
    const otherCa = await issued(otherRoot, 'Other Issuing CA', { ca: true });
    const otherLeaf = await issued(otherCa, 'Other signer', { san: [{ type: 'url', value: ISS }] });
    expect(
      await codeOf(
        presentAndVerify({
          signer: otherLeaf,
          x5c: x5cOf(otherLeaf, otherCa, otherRoot),
        }),
      ),
    ).toBe('issuer_untrusted');

    const elsewhere = await issued(intermediate, 'Another issuer signer', {
      san: [
        { type: 'url', value: 'https://another.issuer.example' },
        { type: 'dns', value: 'another.issuer.example' },
      ],
    });
    expect(await codeOf(presentAndVerify({ signer: elsewhere, x5c: x5cOf(elsewhere, intermediate) }))).toBe(
      'issuer_untrusted',
    );

    // a leaf that names the issuer only by the DNS host of its https iss is bound to it
    const byHost = await issued(intermediate, 'PID Issuer signer (dns)', {
      san: [{ type: 'dns', value: 'pid.issuer.example' }],
    });
    await expect(
      trust.trustIssuer(ISS, 'production', { x5c: x5cOf(byHost, intermediate) }, NOW),
    ).resolves.toMatchObject({ via: 'x509' });

    // no x5c and no configured key; a leaf signing for an issuer without anchors; the anchor of another environment
    expect(await codeOf(presentAndVerify({ signer: leaf, x5c: undefined }))).toBe('issuer_untrusted');
    expect(
      await codeOf(
        presentAndVerify({
          signer: leaf,
          x5c: x5cOf(leaf, intermediate),
          iss: 'https://pid.issuer.example/other',
        }),
      ),
    ).toBe('issuer_untrusted');
  });

  it('refuses a chain whose intermediate is not a CA, a self-signed signer, and a signature by a key other than the leaf', async () => {
    const notCa = await issued(root, 'Not a CA', { notAfter: new Date('2030-01-01Z') });
    const below = await issued(notCa, 'Signer below a non-CA', { san: [{ type: 'url', value: ISS }] });
    expect(await codeOf(presentAndVerify({ signer: below, x5c: x5cOf(below, notCa) }))).toBe(
      'issuer_untrusted',
    );
    expect(await codeOf(presentAndVerify({ signer: root, x5c: x5cOf(root) }))).toBe('issuer_untrusted');
    // the chain is fine, but the credential is signed by another key: the leaf key does not verify it
    const other = await issued(intermediate, 'Unrelated', { san: [{ type: 'url', value: ISS }] });
    expect(await codeOf(presentAndVerify({ signer: other, x5c: x5cOf(leaf, intermediate) }))).toBe(
      'credential_signature_invalid',
    );
  });

  it('checks validity at the verification time: the same chain is refused once the leaf has expired', async () => {
    const later = new ManualClock(Date.parse('2027-07-01T00:00:00Z'));
    await expect(
      trust.trustIssuer(ISS, 'production', { x5c: x5cOf(leaf, intermediate) }, later.now()),
    ).rejects.toMatchObject({ code: 'issuer_untrusted' });
    await expect(
      trust.trustIssuer(ISS, 'production', { x5c: x5cOf(leaf, intermediate) }, NOW),
    ).resolves.toMatchObject({ via: 'x509' });
  });

  it('stores anchors idempotently and refuses a certificate that is not a CA', async () => {
    const before = await ds.getRepository(TrustAnchorEntity).count();
    await trust.addAnchor({
      issuer: ISS,
      environment: 'production',
      routeId: ROUTE,
      name: 'again',
      certificate: root.cert.toString('pem'),
      now: NOW,
    });
    expect(await ds.getRepository(TrustAnchorEntity).count()).toBe(before);
    await expect(
      trust.addAnchor({
        issuer: ISS,
        environment: 'production',
        routeId: ROUTE,
        name: 'leaf',
        certificate: leaf.cert.toString('pem'),
        now: NOW,
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(
      trust.addAnchor({
        issuer: ISS,
        environment: 'production',
        routeId: ROUTE,
        name: 'junk',
        certificate: 'not a certificate',
        now: NOW,
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('from a trust list: the status list signer must chain to the same entity as the credential, on the same route', async () => {
    const iss = 'https://listed.issuer.example';
    await ensureRoute(ds, {
      id: 'rte_listed',
      walletId: 'wal_t',
      issuerId: 'iss_listed',
      identifier: iss,
      now: NOW,
    });
    await ensureRoute(ds, {
      id: 'rte_other',
      walletId: 'wal_u',
      issuerId: 'iss_listed',
      identifier: iss,
      now: NOW,
    });
    const entityA = await rootCa('Entity A Root');
    const entityB = await rootCa('Entity B Root');
    for (const [cert, entity] of [
      [entityA, 'Entity A'],
      [entityB, 'Entity B'],
    ] as const)
      await trust.addAnchor({
        issuer: iss,
        environment: 'production',
        routeId: 'rte_listed',
        name: entity,
        certificate: cert.cert.toString('pem'),
        trustListId: 'tsl_test',
        entity,
        now: NOW,
      });
    const san = [{ type: 'url' as const, value: iss }];
    const signerA = await issued(entityA, 'A signer', { san });
    const statusA = await issued(entityA, 'A status signer', { san });
    const statusB = await issued(entityB, 'B status signer', { san });
    const decided = await trust.trustIssuer(iss, 'production', { x5c: x5cOf(signerA) }, NOW, ['rte_listed']);
    expect(decided).toMatchObject({
      via: 'x509',
      routeId: 'rte_listed',
      trustListId: 'tsl_test',
      entity: 'Entity A',
    });
    await expect(decided.statusListKey({ x5c: x5cOf(statusA) }, NOW)).resolves.toMatchObject({ kty: 'EC' });
    // entity B is on the same list and route, but it is not the entity that issued the credential
    await expect(decided.statusListKey({ x5c: x5cOf(statusB) }, NOW)).rejects.toMatchObject({
      code: 'issuer_untrusted',
    });
    // and on a route the anchors are not held for, the same credential is not trusted (the detail names it)
    await expect(
      trust.trustIssuer(iss, 'production', { x5c: x5cOf(signerA) }, NOW, ['rte_other']),
    ).rejects.toMatchObject({ code: 'issuer_untrusted', message: expect.stringContaining('rte_other') });
    // the allowed routes as a subquery of the trust read (the completion's scope, ADR 0058 amendment): the same
    // decision, and a refusal still names the routes (listed only for it)
    const asQuery = (id: string) => ({
      sql: 'SELECT id FROM credential_route WHERE id = ?',
      params: [id],
      list: async () => [id],
    });
    await expect(
      trust.trustIssuer(iss, 'production', { x5c: x5cOf(signerA) }, NOW, asQuery('rte_listed')),
    ).resolves.toMatchObject({ via: 'x509', routeId: 'rte_listed', entity: 'Entity A' });
    await expect(
      trust.trustIssuer(iss, 'production', { x5c: x5cOf(signerA) }, NOW, asQuery('rte_other')),
    ).rejects.toMatchObject({ code: 'issuer_untrusted', message: expect.stringContaining('rte_other') });
  });

  it('caches a validated chain per instance, yet an anchor retired by another node and an expired leaf count at once', async () => {
    const iss = 'https://cached.issuer.example';
    await ensureRoute(ds, {
      id: 'rte_cached',
      walletId: 'wal_t',
      issuerId: 'iss_cached',
      identifier: iss,
      now: NOW,
    });
    const anchor = await rootCa('Cached Root');
    const signer = await issued(anchor, 'Cached signer', { san: [{ type: 'url', value: iss }] });
    const other = await rootCa('Cached Root, second');
    const otherNode = new TrustStore(ds);
    for (const a of [anchor, other])
      await otherNode.addAnchor({
        issuer: iss,
        environment: 'production',
        routeId: 'rte_cached',
        name: 'Cached',
        certificate: a.cert.toString('pem'),
        now: NOW,
      });
    const decide = (at: Date) => trust.trustIssuer(iss, 'production', { x5c: x5cOf(signer) }, at);
    const first = await decide(NOW);
    expect(await decide(NOW)).toMatchObject({ via: 'x509', key: first.key }); // from the cache
    // the leaf expires on 2027-06-01: a cached chain is refused after, with the full check's reason
    await expect(decide(new Date('2027-07-01Z'))).rejects.toMatchObject({
      code: 'issuer_untrusted',
      message: expect.stringContaining('not valid at the verification time'),
    });
    // retiring the anchor the chain validated to, through the table (another node's write): refused at once
    await ds
      .getRepository(TrustAnchorEntity)
      .update({ issuer: iss, fingerprint: first.anchorFingerprint as string }, { retiredAt: NOW });
    await expect(decide(NOW)).rejects.toMatchObject({ code: 'issuer_untrusted' });
  });
});
