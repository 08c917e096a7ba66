// Owns DCQL `trusted_authorities` of type `aki` (OpenID4VP 1.0 §6.1.1, HAIP 1.0 MUST): in every credential query
// of a request, the base64url KeyIdentifiers of the route's trust anchors (their Subject Key Identifier, which is
// the Authority Key Identifier of what they issue), so a wallet offers only credentials we would trust; and on the
// answer, the presented chain must carry one of them as an AKI (or be issued by such an anchor), else
// `issuer_untrusted`. Built from the step's allowed routes and the session's environment (ADR 0036): SD-JWT VC
// queries from the X.509 issuer anchors (operator anchors and ETSI list anchors), mdoc queries from the IACAs of
// the queried docType. A query is left without trusted_authorities (never narrowed wrongly) when its routes trust
// an issuer by key only (no chain, so no AKI), when an anchor has no Subject Key Identifier, or when there is no
// anchor at all (ADR 0050).
import {
  AuthorityKeyIdentifierExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
} from '@peculiar/x509';
import type { DcqlQuery } from 'dcql';
import type { DataSource } from 'typeorm';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { paramFor, sql } from '../../db/fast-sql';
import { CredentialRouteEntity } from '../credential-routes/catalog.entities';
import { STAMP_FROM, type StampedCache, trustStampOf } from './trust-version';

type Json = Record<string, unknown>;
export interface AkiAuthority {
  type: 'aki';
  values: [string, ...string[]];
}

const hexToB64u = (hex: string): string => Buffer.from(hex, 'hex').toString('base64url');

/** The Subject Key Identifier of an anchor certificate, base64url (undefined: the certificate has none). */
export function skiOf(cert: string | Uint8Array): string | undefined {
  const c = new X509Certificate(typeof cert === 'string' ? cert : new Uint8Array(cert));
  const ext = c.getExtension(SubjectKeyIdentifierExtension);
  return ext ? hexToB64u(ext.keyId) : undefined;
}

/** The AKI KeyIdentifiers (base64url) of a presented chain, leaf first. */
export function chainAkis(chain: readonly Uint8Array[]): string[] {
  const out: string[] = [];
  for (const der of chain) {
    const ext = new X509Certificate(new Uint8Array(der)).getExtension(AuthorityKeyIdentifierExtension);
    if (ext?.keyId) out.push(hexToB64u(ext.keyId));
  }
  return out;
}

/** Why a query got no trusted_authorities (none: it got them). */
export type OmittedReason = 'key_only_trust' | 'anchor_without_ski' | 'no_anchor';

/** The trust of a step's allowed routes that a request needs, read in one statement (routeTrust). */
export interface RouteTrust {
  /** Some route asks for a leaf-only x5c (route-request-rules.ts). */
  leafOnly: boolean;
  /** Some route trusts an SD-JWT issuer by key only. */
  keyOnly: boolean;
  /** The routes' X.509 issuer anchors (PEM). */
  x509: string[];
  /** The routes' IACAs (PEM) with their docType. */
  mdoc: { pem: string; doctype: string }[];
  /** The speaking modes the routes set in this environment (route_speaking, ADR 0053). */
  speaking: string[];
}

/** Route trust as read at a trust stamp, per instance (ADR 0063): the caller's cache and the stamp it read. */
export interface CachedRouteTrust {
  cache: StampedCache<RouteTrust>;
  /** The trust stamp read with the session (trust-version.ts); undefined: read every time. */
  stamp: string | undefined;
}

/**
 * The routes' leaf-only flag, key-only trust and anchors, one UNION statement (plain SQL, fast-sql.ts) where
 * there were one per credential query and three more (ADR 0045 amendment); `routes` is the step's allowed
 * routes as a subquery (route-scope.ts allowedRoutesSql), so they are read in the same round trip. The
 * statement also reads the trust stamp (one snapshot); with `cached`, a request holding the same stamp is
 * answered from the cache instead (ADR 0063: every write that changes any of it bumps the stamp).
 */
export async function readRouteTrust(
  ds: DataSource,
  routes: { sql: string; params: unknown[] },
  environment: Environment,
  cached?: CachedRouteTrust,
): Promise<RouteTrust> {
  const cacheKey = JSON.stringify([environment, routes.sql, routes.params]);
  const hit = cached?.cache.get(cacheKey, cached.stamp);
  if (hit) return hit;
  const out: RouteTrust = { leafOnly: false, keyOnly: false, x509: [], mdoc: [], speaking: [] };
  const yes = paramFor(ds, CredentialRouteEntity, 'x5cLeafOnly', true);
  const live = `route_id IN (${routes.sql}) AND environment = ? AND retired_at IS NULL`;
  const scoped = [...routes.params, environment];
  // typed rows first, and text read back as text whatever type the engine gives the UNION's columns
  const rows = await sql<{ kind: unknown; pem: unknown; doctype: unknown }[]>(
    ds,
    `SELECT 'mdoc' AS kind, certificate_pem AS pem, doctype FROM mdoc_trust_anchor WHERE ${live}` +
      ` UNION ALL SELECT 'x509', certificate, NULL FROM trust_anchor WHERE ${live}` +
      ` UNION ALL SELECT 'key', NULL, NULL FROM trusted_issuer WHERE ${live}` +
      ` UNION ALL SELECT 'leaf', NULL, NULL FROM credential_route WHERE id IN (${routes.sql}) AND x5c_leaf_only = ?` +
      ` UNION ALL SELECT 'speak', mode, NULL FROM route_speaking WHERE route_id IN (${routes.sql}) AND environment = ?` +
      ` UNION ALL SELECT 'stamp', cv.version, tv.version FROM ${STAMP_FROM}`,
    [...scoped, ...scoped, ...scoped, ...routes.params, yes, ...routes.params, environment],
  );
  let stamp: string | undefined;
  const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));
  for (const r of rows) {
    const kind = text(r.kind);
    if (kind === 'leaf') out.leafOnly = true;
    else if (kind === 'key') out.keyOnly = true;
    else if (kind === 'speak') out.speaking.push(text(r.pem));
    else if (kind === 'x509') out.x509.push(text(r.pem));
    else if (kind === 'mdoc') out.mdoc.push({ pem: text(r.pem), doctype: text(r.doctype) });
    else if (kind === 'stamp') stamp = trustStampOf({ trust_cv: text(r.pem), trust_tv: text(r.doctype) });
  }
  return cached ? cached.cache.keep(cacheKey, stamp, out) : out;
}

/** SKIs by anchor PEM (content-addressed, so never stale; bounded). */
const skiByPem = new Map<string, string | undefined>();
const SKI_CACHE_MAX = 512;
function cachedSki(pem: string): string | undefined {
  if (skiByPem.has(pem)) return skiByPem.get(pem);
  const ski = skiOf(pem);
  if (skiByPem.size >= SKI_CACHE_MAX) skiByPem.delete(skiByPem.keys().next().value as string);
  skiByPem.set(pem, ski);
  return ski;
}

/** The aki values for one credential query, or why there are none. */
function akiValuesFor(
  query: DcqlQuery['credentials'][number],
  trust: RouteTrust | undefined,
): AkiAuthority | OmittedReason {
  if (!trust) return 'no_anchor';
  let pems: string[];
  if (query.format === 'mso_mdoc') {
    const doctype = (query.meta as { doctype_value?: string } | undefined)?.doctype_value;
    pems = trust.mdoc.filter((a) => !doctype || a.doctype === doctype).map((a) => a.pem);
  } else {
    if (trust.keyOnly) return 'key_only_trust';
    pems = trust.x509;
  }
  if (pems.length === 0) return 'no_anchor';
  const values = new Set<string>();
  for (const pem of pems) {
    const ski = cachedSki(pem);
    if (!ski) return 'anchor_without_ski';
    values.add(ski);
  }
  return { type: 'aki', values: [...values] as [string, ...string[]] };
}

/**
 * The request with `trusted_authorities` in every credential query that can have them; `omitted` names the
 * queries left without, and why. `trust` is the allowed routes' (readRouteTrust; undefined: no route).
 */
export function withTrustedAuthorities(
  request: Json,
  trust: RouteTrust | undefined,
): { request: Json; omitted: Record<string, OmittedReason> } {
  const dcql = request.dcql_query as DcqlQuery | undefined;
  if (!dcql) return { request, omitted: {} };
  const omitted: Record<string, OmittedReason> = {};
  const credentials = [];
  for (const q of dcql.credentials) {
    const ta = akiValuesFor(q, trust);
    if (typeof ta === 'string') {
      omitted[q.id] = ta;
      credentials.push(q);
    } else credentials.push({ ...q, trusted_authorities: [ta] });
  }
  return { request: { ...request, dcql_query: { ...dcql, credentials } }, omitted };
}

/**
 * Enforces the answered query's `aki` trusted_authorities on the presented chain (leaf first, as in x5c or
 * x5chain): one certificate must carry one of the values as its AKI. Returns the authority to hand to the dcql
 * matcher (undefined when the query has none). A chain outside them is `issuer_untrusted`.
 */
export function requireTrustedAuthority(
  query: { trusted_authorities?: readonly { type: string; values: readonly string[] }[] },
  chain: readonly Uint8Array[],
): AkiAuthority | undefined {
  const wanted = (query.trusted_authorities ?? []).filter((t) => t.type === 'aki').flatMap((t) => t.values);
  if (!query.trusted_authorities?.length) return undefined;
  let akis: string[];
  try {
    akis = chainAkis(chain);
  } catch (e) {
    throw new AppError('presentation_malformed', 'The credential’s certificate chain cannot be read.', {
      cause: e,
    });
  }
  const hit = akis.find((a) => wanted.includes(a));
  if (!hit) {
    throw new AppError(
      'issuer_untrusted',
      'The credential’s certificate chain is outside the trusted_authorities of the request.',
    );
  }
  return { type: 'aki', values: [hit] };
}

/** A DCQL query (as received) without trusted_authorities: for a wallet that does not filter by them. */
export function withoutTrustedAuthorities(dcql: unknown): unknown {
  if (typeof dcql !== 'object' || dcql === null) return dcql;
  const q = dcql as { credentials?: unknown };
  if (!Array.isArray(q.credentials)) return dcql;
  return {
    ...q,
    credentials: q.credentials.map((c) => {
      if (typeof c !== 'object' || c === null) return c;
      const { trusted_authorities: _ignored, ...rest } = c as Json;
      return rest;
    }),
  };
}
