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
import { type DataSource, In, IsNull } from 'typeorm';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { MdocTrustAnchorEntity } from './mdoc/mdoc-trust-anchor.entity';
import { TrustAnchorEntity } from './trust-anchor.entity';
import { TrustedIssuerEntity } from './trusted-issuer.entity';

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

/** The aki values for one credential query, or why there are none. */
async function akiValuesFor(
  ds: DataSource,
  query: DcqlQuery['credentials'][number],
  routes: string[],
  environment: Environment,
): Promise<AkiAuthority | OmittedReason> {
  if (routes.length === 0) return 'no_anchor';
  let pems: string[];
  if (query.format === 'mso_mdoc') {
    const doctype = (query.meta as { doctype_value?: string } | undefined)?.doctype_value;
    const rows = await ds.getRepository(MdocTrustAnchorEntity).find({
      select: { certificatePem: true },
      where: { routeId: In(routes), environment, retiredAt: IsNull(), ...(doctype ? { doctype } : {}) },
    });
    pems = rows.map((r) => r.certificatePem);
  } else {
    const keyOnly = await ds.getRepository(TrustedIssuerEntity).count({
      where: { routeId: In(routes), environment, retiredAt: IsNull() },
    });
    if (keyOnly > 0) return 'key_only_trust';
    const rows = await ds.getRepository(TrustAnchorEntity).find({
      select: { certificate: true },
      where: { routeId: In(routes), environment, retiredAt: IsNull() },
    });
    pems = rows.map((r) => r.certificate);
  }
  if (pems.length === 0) return 'no_anchor';
  const values = new Set<string>();
  for (const pem of pems) {
    const ski = skiOf(pem);
    if (!ski) return 'anchor_without_ski';
    values.add(ski);
  }
  return { type: 'aki', values: [...values] as [string, ...string[]] };
}

/**
 * The request with `trusted_authorities` in every credential query that can have them; `omitted` names the
 * queries left without, and why.
 */
export async function withTrustedAuthorities(
  ds: DataSource,
  request: Json,
  routes: string[],
  environment: Environment,
): Promise<{ request: Json; omitted: Record<string, OmittedReason> }> {
  const dcql = request.dcql_query as DcqlQuery | undefined;
  if (!dcql) return { request, omitted: {} };
  const omitted: Record<string, OmittedReason> = {};
  const credentials = [];
  for (const q of dcql.credentials) {
    const ta = await akiValuesFor(ds, q, routes, environment);
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
