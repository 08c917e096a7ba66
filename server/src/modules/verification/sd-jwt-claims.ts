// The claim-level checks of an SD-JWT VC presentation, split out of presentation-verifier.ts (which owns the
// order of the checks, the signatures, key binding and status): which disclosures are valid and reached from the
// signed payload (RFC 9901), which claims answer the DCQL credential query, and whether the KB-JWT's
// transaction_data_hashes cover exactly the transaction data we sent (OpenID4VP B.3). Pure functions; every
// refusal is an AppError with a code from the closed list.
import { hash } from 'node:crypto';
import { getClaimsSync } from '@sd-jwt/decode';
import { Disclosure } from '@sd-jwt/utils';
import {
  type DcqlCredentialQuery,
  DcqlPresentationResult,
  type DcqlQuery,
  type DcqlSdJwtVcCredential,
} from 'dcql';
import type { JWTPayload } from 'jose';
import { safeEqual } from '../../common/crypto';
import { AppError, type ErrorCode } from '../../common/errors';
import { claimAt } from './dcql';
import { decodeTransactionData, TX_HASH_ALG, transactionDataHash } from './transaction-data';
import type { AkiAuthority } from './trusted-authorities';

type Json = Record<string, unknown>;
const SD_ALG = 'sha-256';
/**
 * The SD-JWT libraries' synchronous hasher (`HasherSync`): only `sha-256` is accepted (disclosedClaims refuses
 * any other `_sd_alg` first). Synchronous, so decoding the disclosures and applying them to the payload take
 * no promise hop per disclosure (ADR 0021, round 3); node:crypto's one-shot `hash` (no Hash object per digest).
 */
const hasher = (data: string, alg: string): Uint8Array => {
  if (alg !== SD_ALG) throw new Error(`unsupported hash algorithm ${alg}`);
  return hash('sha256', data, 'buffer');
};
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Decodes the disclosures with @sd-jwt/utils (`Disclosure.fromEncodeSync`: base64url JSON, digest over the exact
 * encoded string) and applies them with @sd-jwt/decode (`getClaimsSync`), after checking that every one is
 * reached from the signed payload. `encoded` are the disclosure strings between the issuer JWT and the KB-JWT.
 */
export function disclosedClaims(encoded: string[], payload: JWTPayload): Json {
  if ((payload._sd_alg ?? SD_ALG) !== SD_ALG) fail('disclosure_invalid', 'Unsupported _sd_alg.');
  let disclosures: Disclosure[];
  try {
    disclosures = encoded.map((e) => Disclosure.fromEncodeSync(e, { hasher, alg: SD_ALG }));
  } catch (e) {
    return fail('disclosure_invalid', 'A disclosure cannot be decoded.', e);
  }
  const byDigest = new Map<string, unknown>();
  for (const d of disclosures) {
    const dg = d.digestSync({ hasher, alg: SD_ALG });
    if (byDigest.has(dg)) fail('disclosure_invalid', 'A disclosure is repeated.');
    byDigest.set(dg, d.value);
  }
  // Walk from the signed payload: digests in `_sd` arrays and `{"...": digest}` array entries, then into the
  // values of the disclosures reached (nested selective disclosure).
  const reached = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (!isObject(node)) return;
    const refs = [
      ...(Array.isArray(node._sd) ? node._sd : []),
      ...(typeof node['...'] === 'string' ? [node['...']] : []),
    ];
    for (const ref of refs) {
      if (typeof ref === 'string' && byDigest.has(ref) && !reached.has(ref)) {
        reached.add(ref);
        walk(byDigest.get(ref));
      }
    }
    for (const [k, v] of Object.entries(node)) if (k !== '_sd' && k !== '...') walk(v);
  };
  walk(payload);
  if (reached.size !== byDigest.size) {
    fail('disclosure_invalid', 'A disclosure does not match the credential.');
  }
  try {
    return getClaimsSync(payload, disclosures, hasher) as Json;
  } catch (e) {
    return fail('disclosure_invalid', 'The disclosures cannot be applied to the credential.', e);
  }
}

/** Checks the claims against the credential query and returns exactly the requested ones (keyed by path). */
export function answerQuery(
  credentialQuery: DcqlCredentialQuery.SdJwtVc,
  dcqlQuery: DcqlQuery,
  vct: string,
  claims: Json,
  /** The trusted authority the presented chain matched (trusted-authorities.ts), when the query has any. */
  authority?: AkiAuthority,
): Json {
  const answer: Json = {};
  const claimQueries = credentialQuery.claims ?? [];
  // With claim_sets, the first set (in the verifier's order of preference) whose claims are all disclosed is
  // the answer; without, every requested claim must be disclosed.
  const sets = credentialQuery.claim_sets ?? [claimQueries.map((c, i) => c.id ?? String(i))];
  const byId = new Map(claimQueries.map((c, i) => [c.id ?? String(i), c]));
  const disclosed = (id: string) => {
    const q = byId.get(id);
    return q !== undefined && claimAt(claims, q.path) !== undefined;
  };
  const chosen = sets.find((set) => set.every(disclosed));
  if (!chosen) {
    const missing = (sets[0] ?? []).filter((id) => !disclosed(id)).map((id) => byId.get(id)?.path.join('.'));
    return fail('claims_missing', `The requested claim ${missing.join(', ')} was not disclosed.`);
  }
  for (const id of chosen) {
    const claimQuery = byId.get(id) as (typeof claimQueries)[number];
    answer[claimQuery.path.join('.')] = claimAt(claims, claimQuery.path);
  }
  let satisfied = false;
  try {
    const result = DcqlPresentationResult.fromDcqlPresentation(
      {
        [credentialQuery.id]: [
          // Holder binding is enforced by policy afterwards (KB-JWT required), so the presentation claims it.
          {
            credential_format: 'dc+sd-jwt',
            vct,
            claims: claims as DcqlSdJwtVcCredential['claims'],
            cryptographic_holder_binding: true,
            ...(authority ? { authority } : {}),
          },
        ],
      },
      { dcqlQuery },
    );
    // This credential query's match (credential_sets were checked when the answered query was chosen).
    satisfied = result.credential_matches[credentialQuery.id]?.success === true;
  } catch (e) {
    fail('claims_missing', 'The presentation does not satisfy the query.', e);
  }
  if (!satisfied) fail('claims_missing', 'The presentation does not satisfy the query.');
  return answer;
}

/**
 * OpenID4VP B.3: when the request carried transaction_data for our credential, the KB-JWT must carry
 * `transaction_data_hashes` = base64url(SHA-256(each exact string we sent)) and `transaction_data_hashes_alg`
 * `sha-256` (required, since every entry we send names it). Hashes are compared with the STORED request's
 * strings, exactly and completely (no missing and no extra entry). Returns the strings covered.
 */
export function checkTransactionData(request: Json, credentialQueryId: string, kb: JWTPayload): string[] {
  const sent = Array.isArray(request.transaction_data) ? (request.transaction_data as unknown[]) : [];
  // Our own stored request: its entries decode (a failure here is our bug, hence a plain Error).
  const ours = sent.filter(
    (s): s is string =>
      typeof s === 'string' &&
      ((decodeTransactionData(s).credential_ids as unknown[] | undefined) ?? []).includes(credentialQueryId),
  );
  if (ours.length === 0) return [];
  const hashes = kb.transaction_data_hashes;
  if (hashes === undefined)
    fail(
      'transaction_data_missing',
      'The key-binding JWT has no transaction_data_hashes for the documents or terms.',
    );
  if (!Array.isArray(hashes) || !hashes.every((h) => typeof h === 'string'))
    fail('transaction_data_mismatch', 'transaction_data_hashes must be an array of strings.');
  if (kb.transaction_data_hashes_alg !== TX_HASH_ALG)
    fail('transaction_data_mismatch', `transaction_data_hashes_alg must be ${TX_HASH_ALG}.`);
  const got = hashes as string[];
  const expected = ours.map(transactionDataHash);
  if (got.length !== expected.length || !expected.every((h) => got.some((g) => safeEqual(g, h))))
    fail(
      'transaction_data_mismatch',
      'The key-binding JWT covers other transaction data than this request sent (documents or terms differ).',
    );
  return ours;
}
