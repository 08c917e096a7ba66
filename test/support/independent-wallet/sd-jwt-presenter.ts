// The independent wallet's SD-JWT VC side, written from RFC 9901 (SD-JWT), SD-JWT VC and OpenID4VP 1.0 (B.3)
// with jose only: it reads the request's DCQL itself (dcql-match.ts: the first dc+sd-jwt credential query, in
// credential_sets order, whose vct it holds; with claim_sets the first set it can disclose), keeps exactly the
// disclosures of the requested top-level claims, and appends a key-binding JWT (typ kb+jwt, ES256 by the holder
// key) with iat, aud, the request nonce, sd_hash = b64u(SHA-256(<issuer JWT>~<disclosures>~)) and, for
// transaction data naming the query (transaction-data.ts), transaction_data_hashes (SHA-256 of each string as
// received). The audience is `origin:<origin>` over the DC API (signed or not) and the client_id cross-device.
// Overrides make it lie in exactly one way, for the tamper tests.
import { createHash } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { type DcqlQuery, type Holding, matchDcql } from './dcql-match';
import { forQuery, readTransactionData, txHashB64u } from './transaction-data';

export interface HeldSdJwt {
  /** The SD-JWT as issued: `<issuer JWT>~<disclosure>~...~`. */
  credential: string;
  holderPrivateJwk: JsonWebKey;
}

export interface SdJwtOverrides {
  aud?: string;
  nonce?: string;
  /** Seconds added to the wallet's clock for iat. */
  iatOffset?: number;
  /** Sign the KB-JWT with this key instead of the holder key. */
  kbKey?: JsonWebKey;
  /** KB-JWT typ instead of kb+jwt. */
  kbTyp?: string;
  /** Leave the KB-JWT off (the presentation ends with `~`). */
  noKeyBinding?: boolean;
  /** Leave these requested claims undisclosed. */
  omitClaims?: string[];
  /** Change the value of this disclosed claim (its digest no longer matches). */
  tamperClaim?: string;
  /** Reverse the disclosures after computing sd_hash. */
  reorderAfterBinding?: boolean;
  /** Leave transaction_data_hashes out. */
  omitTransactionDataHashes?: boolean;
  /** Bind these strings' hashes instead of the request's transaction_data. */
  transactionDataAs?: string[];
}

type Json = Record<string, unknown>;

/** name -> disclosure string, for the object-property disclosures `[salt, name, value]` of an SD-JWT. */
function disclosuresByName(parts: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of parts) {
    const decoded = JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[];
    if (decoded.length === 3 && typeof decoded[1] === 'string') out.set(decoded[1], d);
  }
  return out;
}

/** What the wallet holds of an SD-JWT VC, for the DCQL matching: its vct and its disclosable top-level claims. */
export function sdJwtHolding(held: HeldSdJwt): Holding & { disclosures: Map<string, string> } {
  const [issuerJwt, ...rest] = held.credential.split('~');
  const payload = JSON.parse(
    Buffer.from(String(issuerJwt).split('.')[1] as string, 'base64url').toString('utf8'),
  );
  const disclosures = disclosuresByName(rest.filter((p) => p.length > 0));
  return {
    format: 'dc+sd-jwt',
    type: String(payload.vct),
    holds: (path) => path.length === 1 && (disclosures.has(path[0] as string) || path[0] in payload),
    disclosures,
  };
}

/** The vp_token of an SD-JWT VC answer to `request` (any response mode), bound to `aud`. */
export async function presentSdJwt(input: {
  request: Json;
  aud: string;
  held: HeldSdJwt;
  /** The wallet's clock (seconds are taken from it for iat). */
  now: Date;
  overrides?: SdJwtOverrides;
}): Promise<{ vp_token: Record<string, string[]> }> {
  const { request } = input;
  const o = input.overrides ?? {};
  if (typeof request.nonce !== 'string') throw new Error('the request has no nonce');
  const dcql = request.dcql_query as DcqlQuery;
  const holding = sdJwtHolding(input.held);
  const { query, paths } = matchDcql(dcql, 'dc+sd-jwt', [holding]);
  const txData = forQuery(
    readTransactionData(
      request,
      dcql.credentials.map((c) => c.id),
    ),
    query.id,
  );

  const [issuerJwt] = input.held.credential.split('~');
  const omit = new Set(o.omitClaims ?? []);
  let selected = paths
    .map((p) => p[0] as string)
    .filter((name) => !omit.has(name))
    .map((name) => holding.disclosures.get(name))
    .filter((d): d is string => d !== undefined);
  if (o.tamperClaim) {
    selected = selected.map((d) => {
      const [salt, name, value] = JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[];
      if (name !== o.tamperClaim) return d;
      const changed = typeof value === 'boolean' ? !value : 'Tampered';
      return Buffer.from(JSON.stringify([salt, name, changed])).toString('base64url');
    });
  }
  const presented = `${[issuerJwt, ...selected].join('~')}~`;
  if (o.noKeyBinding) return { vp_token: { [query.id]: [presented] } };
  const sdHash = createHash('sha256').update(presented, 'ascii').digest('base64url');
  const bound = o.transactionDataAs ?? txData.map((td) => td.encoded);
  const kb = await new SignJWT({
    iat: Math.floor(input.now.getTime() / 1000) + (o.iatOffset ?? 0),
    aud: o.aud ?? input.aud,
    nonce: o.nonce ?? request.nonce,
    sd_hash: sdHash,
    ...(bound.length > 0 && !o.omitTransactionDataHashes
      ? { transaction_data_hashes: bound.map(txHashB64u), transaction_data_hashes_alg: 'sha-256' }
      : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: o.kbTyp ?? 'kb+jwt' })
    .sign(
      await importJWK((o.kbKey ?? input.held.holderPrivateJwk) as Parameters<typeof importJWK>[0], 'ES256'),
    );
  const shown = o.reorderAfterBinding ? `${[issuerJwt, ...[...selected].reverse()].join('~')}~` : presented;
  return { vp_token: { [query.id]: [shown + kb] } };
}

/** The unsigned DC API request (`openid4vp-v1-unsigned`, response_mode dc_api): audience `origin:<origin>`. */
export async function presentSdJwtDcApi(input: {
  request: Json;
  origin: string;
  held: HeldSdJwt;
  now: Date;
  overrides?: SdJwtOverrides;
}): Promise<{ vp_token: Record<string, string[]> }> {
  if (input.request.response_mode !== 'dc_api') throw new Error('not an unsigned OpenID4VP DC API request');
  return presentSdJwt({ ...input, aud: `origin:${input.origin}` });
}
