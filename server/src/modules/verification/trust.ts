// Owns issuer trust, per credential route and environment (ADR 0036: trust belongs to a route, wallet x issuer x
// environment; a step's allowed routes decide which routes' trust entries may validate a credential). An issuer
// (`iss`) is trusted on a route in one of two ways, both held in the database:
// - a configured public key (trusted_issuer): the key verifies its credentials and its status lists;
// - an X.509 trust anchor (trust_anchor, configured or made from an ETSI trust list's entity): a credential whose
//   JOSE header carries an `x5c` chain is trusted when the chain validates to an anchor stored for that `iss`,
//   environment and one of the allowed routes (every certificate valid at the verification time, CA
//   constraints on issuing certificates), and the leaf certificate names the issuer (a SAN URI equal to `iss`,
//   or a SAN dNSName equal to the host of an https `iss`). The leaf's key then verifies the credential; the
//   issuer's status lists verify with the same trust (the same leaf key, or their own x5c chain to an anchor of
//   the same route and the same trusted entity, bound to the same issuer).
// Everything else is `issuer_untrusted`, with a detail naming the routes that were tried.
// Caching (ADR 0045, ADR 0063): the stored trust is read with the trust stamp in the same statement (one
// snapshot); a caller that read the stamp with its session (RouteQuery.stamp) is answered from this instance's
// cache while the stamp it read equals the one the cached read saw, and every write that changes trust bumps
// the stamp in its own transaction (trust-version.ts), so a change on any node counts at the next request on
// every node. Without a stamp, the trust is read every time. Also cached per instance, pure functions of bytes:
// a stored anchor parsed from its PEM (by the PEM text), and a chain that validated (by issuer, the presented
// x5c and the fingerprints of the anchors it was validated against, with the validity window of its path).
// Retiring or adding an anchor changes the anchor set read, hence the key: the old entry is never consulted
// again (and ages out). Validity at the verification time is still checked on every call.
import { createHash, createPublicKey } from 'node:crypto';
import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  X509Certificate,
  X509ChainBuilder,
} from '@peculiar/x509';
import type { JWK } from 'jose';
import { type DataSource, IsNull } from 'typeorm';
import { Bounded } from '../../common/bounded-map';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import type { Environment } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import { sql } from '../../db/fast-sql';
import { CredentialRouteEntity } from '../credential-routes/catalog.entities';
import { TrustAnchorEntity } from './trust-anchor.entity';
import { type RouteScope, routeNames, scopeSql, stampOf, trustKey } from './trust-scope';
import { bumpTrustVersion, STAMP_FROM, StampedCache, trustStampOf } from './trust-version';

/** Longest x5c chain accepted (leaf plus intermediates). */
const MAX_X5C = 5;

export { type RouteQuery, type RouteScope, routeList, scopeSql } from './trust-scope';

/** The trust decision for one credential's issuer. */
export interface IssuerTrust {
  /** The key that verifies the issuer's signature. */
  key: JWK;
  via: 'key' | 'x509';
  /** x509: SHA-256 fingerprint (hex) of the anchor the chain validated to. */
  anchorFingerprint?: string;
  /** The credential route whose trust entry validated the credential. */
  routeId: string;
  /** x509: the anchor's trust list and entity (NULL/undefined for an operator-configured anchor). */
  trustListId?: string | null;
  entity?: string | null;
  /** The key that must have signed a status-list token of this issuer, given the token's JOSE header. */
  statusListKey(header: { x5c?: unknown }, now: Date): Promise<JWK>;
}

const untrusted = (detail: string, cause?: unknown): never => {
  throw new AppError('issuer_untrusted', detail, { cause });
};

export const fingerprintOf = (cert: X509Certificate): string =>
  createHash('sha256').update(Buffer.from(cert.rawData)).digest('hex');

/** Parses a PEM string or DER bytes. */
export function parseCertificate(input: string | Uint8Array): X509Certificate {
  return new X509Certificate(typeof input === 'string' ? input : Buffer.from(input));
}

/** True when the leaf certificate names the issuer: SAN URI == iss, or SAN dNSName == host of an https iss. */
export function leafNamesIssuer(leaf: X509Certificate, issuer: string): boolean {
  const san = leaf.getExtension(SubjectAlternativeNameExtension);
  if (!san) return false;
  let host: string | undefined;
  try {
    const u = new URL(issuer);
    if (u.protocol === 'https:') host = u.hostname.toLowerCase();
  } catch {
    host = undefined;
  }
  return san.names.items.some(
    (n) =>
      (n.type === 'url' && n.value === issuer) ||
      (n.type === 'dns' && !!host && n.value.toLowerCase() === host),
  );
}

/**
 * Validates an x5c chain (leaf first, base64 DER per RFC 7515) to one of the anchors at `now` and returns the
 * leaf and the anchor reached. Throws issuer_untrusted (presentation_malformed for an undecodable x5c).
 */
export async function validateX5c(
  x5c: unknown,
  anchors: readonly X509Certificate[],
  now: Date,
): Promise<{ leaf: X509Certificate; anchor: X509Certificate; path: X509Certificate[] }> {
  if (
    !Array.isArray(x5c) ||
    x5c.length === 0 ||
    x5c.length > MAX_X5C ||
    x5c.some((c) => typeof c !== 'string')
  )
    throw new AppError('presentation_malformed', `x5c must be 1-${MAX_X5C} base64 certificates.`);
  let presented: X509Certificate[];
  try {
    presented = (x5c as string[]).map((c) => new X509Certificate(Buffer.from(c, 'base64')));
  } catch (e) {
    throw new AppError('presentation_malformed', 'An x5c certificate cannot be decoded.', { cause: e });
  }
  if (anchors.length === 0) untrusted('No trust anchor is configured for this issuer.');
  const leaf = presented[0] as X509Certificate;
  const anchorPrints = new Set(anchors.map(fingerprintOf));
  if (anchorPrints.has(fingerprintOf(leaf)) || (await leaf.isSelfSigned()))
    untrusted('The signing certificate must not be a trust anchor or self-signed.');

  // Path building (issuer name, key identifiers and signature) over the presented certificates and anchors.
  let built: X509Certificate[];
  try {
    built = [
      ...(await new X509ChainBuilder({ certificates: [...presented.slice(1), ...anchors] }).build(leaf)),
    ];
  } catch (e) {
    return untrusted('The certificate chain cannot be built.', e);
  }
  const anchorAt = built.findIndex((c, i) => i > 0 && anchorPrints.has(fingerprintOf(c)));
  if (anchorAt < 0) untrusted('The certificate chain does not lead to a trusted anchor.');
  const path = built.slice(0, anchorAt + 1);

  for (const [i, cert] of path.entries()) {
    if (now < cert.notBefore || now > cert.notAfter)
      untrusted(`A certificate of the chain (${cert.subject}) is not valid at the verification time.`);
    const issuer = path[i + 1];
    if (issuer && !(await cert.verify({ publicKey: issuer.publicKey, signatureOnly: true })))
      untrusted('A certificate signature of the chain is invalid.');
    const bc = cert.getExtension(BasicConstraintsExtension);
    const ku = cert.getExtension(KeyUsagesExtension);
    if (i === 0) {
      if (bc?.ca) untrusted('The signing certificate is a CA certificate.');
      if (ku && !(ku.usages & KeyUsageFlags.digitalSignature))
        untrusted('The signing certificate is not for digital signatures.');
      continue;
    }
    if (!bc?.ca) untrusted(`A certificate that issues others (${cert.subject}) is not a CA.`);
    // intermediates below this CA in the path (the leaf does not count)
    if (bc?.pathLength !== undefined && i - 1 > bc.pathLength)
      untrusted(`The chain is longer than ${cert.subject} allows.`);
    if (ku && !(ku.usages & KeyUsageFlags.keyCertSign))
      untrusted(`A CA certificate of the chain (${cert.subject}) may not sign certificates.`);
  }
  return { leaf, anchor: path[anchorAt] as X509Certificate, path };
}

/** The P-256 public key of a certificate as a JWK (the only issuer key type the verifier accepts). */
export function certificateJwk(cert: X509Certificate): JWK {
  const jwk = createPublicKey({
    key: Buffer.from(cert.publicKey.rawData),
    format: 'der',
    type: 'spki',
  }).export({
    format: 'jwk',
  }) as JWK;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') untrusted('The signing certificate key is not P-256.');
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

/** Refuses (validation_failed) a route id that is not in the catalog. */
export async function requireRoute(ds: DataSource, routeId: string): Promise<void> {
  const found = await ds.getRepository(CredentialRouteEntity).existsBy({ id: routeId });
  if (!found)
    throw new AppError('validation_failed', `No credential route ${routeId} in the catalog.`, {
      param: 'route',
    });
}

/** A stored anchor with where it belongs. */
export interface StoredAnchor {
  cert: X509Certificate;
  /** SHA-256 (hex) of the certificate's DER. */
  fingerprint: string;
  routeId: string;
  trustListId: string | null;
  entity: string | null;
}

/** A chain that validated to an anchor, with what a later call with the same bytes needs. */
interface ValidatedChain {
  leaf: X509Certificate;
  anchorFingerprint: string;
  key: JWK;
  /** The path's validity window: the latest notBefore and the earliest notAfter of its certificates. */
  notBefore: number;
  notAfter: number;
}

export interface TrustStoreOptions {
  /** Entries per cache (parsed anchors, validated chains), oldest dropped first; 0 turns caching off. */
  cacheSize?: number;
}

export class TrustStore {
  /** Stored anchors parsed, by their PEM text (a certificate's bytes never change meaning). */
  private readonly parsed: Bounded<{ cert: X509Certificate; fingerprint: string }>;
  /** Chains that validated, by issuer, x5c and anchor fingerprints (see the module comment). */
  private readonly chains: Bounded<ValidatedChain>;
  /** Configured issuer keys and anchors as read at a trust stamp (ADR 0063). */
  private readonly keys: StampedCache<{ key: JWK; routeId: string } | null>;
  private readonly stored: StampedCache<StoredAnchor[]>;

  constructor(
    private readonly ds: DataSource,
    opts: TrustStoreOptions = {},
  ) {
    const size = opts.cacheSize ?? 512;
    this.parsed = new Bounded(size);
    this.chains = new Bounded(size);
    this.keys = new StampedCache(size);
    this.stored = new StampedCache(size);
  }

  private parseStored(pem: string): { cert: X509Certificate; fingerprint: string } {
    const hit = this.parsed.get(pem);
    if (hit) return hit;
    const cert = parseCertificate(pem);
    return this.parsed.keep(pem, { cert, fingerprint: fingerprintOf(cert) });
  }

  /** The configured public key of an issuer on one of the routes in an environment, if any, with its route. */
  async issuerKey(
    issuer: string,
    environment: Environment,
    routes?: RouteScope,
  ): Promise<{ key: JWK; routeId: string } | null> {
    // One plain indexed statement (fast-sql.ts: a prepared statement on MySQL, no query builder) that reads the
    // trust stamp with the key; a caller holding the same stamp is answered from the cache (ADR 0063), so
    // retiring a key takes effect at the next request on every node.
    const scope = scopeSql(routes, 'ti.route_id');
    const cacheKey = trustKey(['key', issuer, environment], scope);
    const hit = this.keys.get(cacheKey, stampOf(routes));
    if (hit !== undefined) return hit;
    const rows = await sql<
      { public_jwk: string | null; route_id: string | null; trust_cv: unknown; trust_tv: unknown }[]
    >(
      this.ds,
      `SELECT ti.public_jwk, ti.route_id, cv.version AS trust_cv, tv.version AS trust_tv FROM ${STAMP_FROM}
       LEFT JOIN trusted_issuer ti ON ti.issuer = ? AND ti.environment = ? AND ti.retired_at IS NULL
       AND ${scope.where} ORDER BY ti.created_at DESC LIMIT 1`,
      [issuer, environment, ...scope.params],
    );
    const row = rows[0];
    const found =
      row?.public_jwk != null && row.route_id != null
        ? { key: JSON.parse(row.public_jwk) as JWK, routeId: row.route_id }
        : null;
    return this.keys.keep(cacheKey, row ? trustStampOf(row) : undefined, found);
  }

  /** The current anchor certificates of an issuer in an environment on the routes in scope. */
  async anchors(issuer: string, environment: Environment, routes?: RouteScope): Promise<StoredAnchor[]> {
    // read with the trust stamp, answered from the cache at the same stamp (as issuerKey)
    const scope = scopeSql(routes, 'ta.route_id');
    const cacheKey = trustKey(['anchors', issuer, environment], scope);
    const hit = this.stored.get(cacheKey, stampOf(routes));
    if (hit !== undefined) return hit;
    const rows = await sql<
      {
        certificate: string | null;
        route_id: string;
        trust_list_id: string | null;
        entity: string | null;
        trust_cv: unknown;
        trust_tv: unknown;
      }[]
    >(
      this.ds,
      `SELECT ta.certificate, ta.route_id, ta.trust_list_id, ta.entity, cv.version AS trust_cv,
       tv.version AS trust_tv FROM ${STAMP_FROM} LEFT JOIN trust_anchor ta ON ta.issuer = ?
       AND ta.environment = ? AND ta.retired_at IS NULL AND ${scope.where} ORDER BY ta.created_at ASC`,
      [issuer, environment, ...scope.params],
    );
    const anchors = rows
      .filter((r) => r.certificate != null)
      .map((r) => ({
        ...this.parseStored(r.certificate as string),
        routeId: r.route_id,
        trustListId: r.trust_list_id,
        entity: r.entity,
      }));
    return this.stored.keep(cacheKey, rows[0] ? trustStampOf(rows[0]) : undefined, anchors);
  }

  /**
   * Decides whether a credential's issuer is trusted on one of `routes` (the step's allowed routes; undefined:
   * any route) and with which key. A configured key wins (the credential must verify with it, whatever x5c
   * says); otherwise an x5c chain to the issuer's anchors on those routes. Throws issuer_untrusted.
   */
  async trustIssuer(
    issuer: string,
    environment: Environment,
    header: { x5c?: unknown },
    now: Date,
    routes?: RouteScope,
  ): Promise<IssuerTrust> {
    const configured = await this.issuerKey(issuer, environment, routes);
    if (configured)
      return {
        key: configured.key,
        via: 'key',
        routeId: configured.routeId,
        statusListKey: async () => configured.key,
      };
    if (header.x5c === undefined)
      return untrusted(
        `The credential issuer is not trusted on ${await routeNames(routes)} in this environment.`,
      );
    const stored = await this.anchors(issuer, environment, routes);
    if (stored.length === 0)
      untrusted(
        `No trust anchor of this issuer is held for ${await routeNames(routes)} in this environment.`,
      );
    const chain = await this.validateBound(header.x5c, stored, issuer, now, routes);
    const print = chain.anchorFingerprint;
    const matched = stored.find((a) => a.fingerprint === print) as StoredAnchor;
    // the status list must chain to the same route and the same trusted entity (list + entity, or the very
    // anchor when it was configured by hand)
    const sameEntity = stored.filter((a) =>
      matched.trustListId
        ? a.routeId === matched.routeId &&
          a.trustListId === matched.trustListId &&
          a.entity === matched.entity
        : a.fingerprint === print && a.routeId === matched.routeId,
    );
    const key = chain.key;
    return {
      key,
      via: 'x509',
      routeId: matched.routeId,
      trustListId: matched.trustListId,
      entity: matched.entity,
      anchorFingerprint: print,
      statusListKey: async (listHeader, at) => {
        if (listHeader.x5c === undefined) return key;
        return (await this.validateBound(listHeader.x5c, sameEntity, issuer, at, routes)).key;
      },
    };
  }

  /**
   * Validates `x5c` to one of `anchors` at `now` and checks that the leaf names `issuer`; a chain that validated
   * before with the same bytes against the same anchors is answered from the cache while `now` is inside its
   * path's validity window (outside it, the full check runs again and says why).
   */
  private async validateBound(
    x5c: unknown,
    anchors: readonly Pick<StoredAnchor, 'cert' | 'fingerprint'>[],
    issuer: string,
    now: Date,
    routes: RouteScope,
  ): Promise<ValidatedChain> {
    const cacheKey = Array.isArray(x5c)
      ? `${issuer}\n${x5c.join(',')}\n${anchors.map((a) => a.fingerprint).join(',')}`
      : undefined;
    const hit = cacheKey === undefined ? undefined : this.chains.get(cacheKey);
    const t = now.getTime();
    if (hit && t >= hit.notBefore && t <= hit.notAfter) return hit;
    let result: Awaited<ReturnType<typeof validateX5c>>;
    try {
      result = await validateX5c(
        x5c,
        anchors.map((a) => a.cert),
        now,
      );
    } catch (e) {
      if (e instanceof AppError && e.code === 'issuer_untrusted')
        throw new AppError('issuer_untrusted', `${e.message} (${await routeNames(routes)})`, { cause: e });
      throw e;
    }
    if (!leafNamesIssuer(result.leaf, issuer))
      untrusted('The signing certificate does not name the credential issuer (iss).');
    const chain: ValidatedChain = {
      leaf: result.leaf,
      anchorFingerprint: fingerprintOf(result.anchor),
      key: certificateJwk(result.leaf),
      notBefore: Math.max(...result.path.map((c) => c.notBefore.getTime())),
      notAfter: Math.min(...result.path.map((c) => c.notAfter.getTime())),
    };
    return cacheKey === undefined ? chain : this.chains.keep(cacheKey, chain);
  }

  /**
   * Stores an anchor certificate (PEM or DER) for an issuer and environment; idempotent per certificate.
   * An operator action (and the tests' way in); the certificate must be a CA.
   */
  async addAnchor(input: {
    issuer: string;
    environment: Environment;
    /** The credential route the anchor trusts for. */
    routeId: string;
    name: string;
    trustListId?: string | null;
    entity?: string | null;
    certificate: string | Uint8Array;
    now: Date;
  }): Promise<{ id: string; fingerprint: string }> {
    let cert: X509Certificate;
    try {
      cert = parseCertificate(input.certificate);
    } catch (e) {
      throw new AppError('validation_failed', 'The anchor is not a PEM or DER certificate.', {
        param: 'certificate',
        cause: e,
      });
    }
    if (!cert.getExtension(BasicConstraintsExtension)?.ca)
      throw new AppError('validation_failed', 'A trust anchor must be a CA certificate.', {
        param: 'certificate',
      });
    await requireRoute(this.ds, input.routeId);
    const fingerprint = fingerprintOf(cert);
    const repo = this.ds.getRepository(TrustAnchorEntity);
    const existing = await repo.findOneBy({
      issuer: input.issuer,
      environment: input.environment,
      routeId: input.routeId,
      trustListId: input.trustListId ?? IsNull(),
      fingerprint,
      retiredAt: IsNull(),
    });
    if (existing) return { id: existing.id, fingerprint };
    const id = newId('tan');
    // with the trust version (ADR 0063): every node's cached trust of the route is stale from this commit on
    await transactionWithRetry(this.ds, async (m) => {
      await bumpTrustVersion(m);
      await m.getRepository(TrustAnchorEntity).insert({
        id,
        issuer: input.issuer,
        environment: input.environment,
        routeId: input.routeId,
        trustListId: input.trustListId ?? null,
        entity: input.entity ?? null,
        name: input.name,
        certificate: cert.toString('pem'),
        fingerprint,
        notAfter: cert.notAfter,
        createdAt: input.now,
        retiredAt: null,
      });
    });
    return { id, fingerprint };
  }
}
