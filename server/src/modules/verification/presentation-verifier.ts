// Owns verification of a wallet's answer to one of our OpenID4VP requests (SD-JWT VC, `dc+sd-jwt`): response
// shape, issuer trust and signature, disclosures, key binding (nonce, aud, iat, sd_hash), status list and the
// DCQL query. The libraries do the parsing and cryptography; the checks they leave to the caller (typ, aud, iat
// window, sd_hash over the exact string, unreferenced disclosures, status-list binding, transaction_data_hashes
// over the exact stored strings) are explicit here.
// Every refusal is an AppError with a code from the closed list.

import { createHash } from 'node:crypto';
import { getClaimsSync } from '@sd-jwt/decode';
import type { StatusList } from '@sd-jwt/jwt-status-list';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { Disclosure } from '@sd-jwt/utils';
import {
  type DcqlCredentialQuery,
  DcqlPresentationResult,
  type DcqlQuery,
  type DcqlSdJwtVcCredential,
} from 'dcql';
import type { JWK, JWTPayload, ProtectedHeaderParameters } from 'jose';
import { digestEqual, safeEqual } from '../../common/crypto';
import { AppError, type ErrorCode } from '../../common/errors';
import type { Environment } from '../../config/config';
import { answeredCredentialQuery, claimAt, DOCUMENT_STATUS, storedDcqlQuery } from './dcql';
import {
  type DecodedJws,
  decodeCompactJws,
  p256Thumbprint,
  publicKeyOf,
  trustedPublicKey,
  verifyEs256,
} from './es256';
import { AnnexCOpenedResponse, isAnnexCRequest } from './mdoc/annex-c';
import {
  answersMdocQuery,
  type MdocPresentationVerifier,
  type MdocVerifiedPresentation,
  mdocHandoverOf,
} from './mdoc/mdoc-verifier';
import { decodeTransactionData, TX_HASH_ALG, transactionDataHash } from './transaction-data';
import type { IssuerTrust, TrustStore } from './trust';
import { dcqlPresentations } from './vp-token';

export interface VerifiedPresentation {
  /** mso_mdoc results come from mdoc/mdoc-verifier.ts (dispatched below by the format of the answered query). */
  format: 'dc+sd-jwt' | 'mso_mdoc';
  issuer: string;
  vct: string;
  /** Exactly the requested claims (keyed by claim path), plus document_status. */
  claims: Record<string, unknown>;
  /** RFC 7638 SHA-256 thumbprint of the holder key (cnf.jwk), base64url. */
  holderKeyThumbprint: string;
  statusChecked: { uri: string; idx: number; status: 'valid' } | MdocVerifiedPresentation['statusChecked'];
  /** The holder's public key (cnf.jwk, public members only). */
  holderJwk: JWK;
  /** The verification time (`now` of the input): the reference time of age computations. */
  verifiedAt: Date;
  /** The exact presentation string (`<issuer JWT>~<disclosures>~<KB-JWT>`): evidence. */
  presentation: string;
  /** Set for an ISO 18013-7 Annex C answer (`org-iso-mdoc`); OpenID4VP answers leave it out. */
  protocol?: 'org-iso-mdoc';
  /** The key-binding JWT: the holder's signature over nonce, aud, iat, sd_hash and transaction data. */
  keyBindingJwt: string;
  /** mso_mdoc only: the holder's device signature with its payload attached (mdoc-verifier.ts mdocHolderSignature). */
  deviceSignature?: string;
  /** The request's transaction_data strings for our credential that the KB-JWT covers (may be empty). */
  transactionData: string[];
  /** Names of the checks that passed, in order (evidence for the audit record). */
  checks: string[];
}

export interface PresentationVerifierDeps {
  trust: TrustStore;
  /** GET of a status list URI; returns the compact `statuslist+jwt`. */
  fetchStatusList: (uri: string) => Promise<string>;
  /** Oldest accepted KB-JWT `iat`, in seconds before now. */
  kbMaxAgeSeconds?: number;
  /** Clock skew tolerated for exp and a future `iat`, in seconds. */
  skewSeconds?: number;
  /** Verifies answers to mso_mdoc credential queries (absent: such answers are not accepted). */
  mdoc?: Pick<MdocPresentationVerifier, 'verify' | 'verifyAnnexC'>;
}

export interface VerifyInput {
  /** The exact request sent to the wallet. */
  request: Record<string, unknown>;
  expectedNonce: string;
  /** `origin:<hosted page origin>` for the DC API. */
  expectedAudience: string;
  environment: Environment;
  response: unknown;
  now: Date;
}

type Json = Record<string, unknown>;
const SD_ALG = 'sha-256';
/**
 * The SD-JWT libraries' synchronous hasher (`HasherSync`): only `sha-256` is accepted (disclosedClaims refuses
 * any other `_sd_alg` first). Synchronous, so decoding the disclosures and applying them to the payload take
 * no promise hop per disclosure (ADR 0021, round 3).
 */
const hasher = (data: string, alg: string): Uint8Array => {
  if (alg !== SD_ALG) throw new Error(`unsupported hash algorithm ${alg}`);
  return createHash('sha256').update(data).digest();
};
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class PresentationVerifier {
  private readonly kbMaxAge: number;
  private readonly skew: number;
  /** Verified, decoded status lists by (token hash, key): see verifiedStatusList. */
  private readonly statusLists = new Map<string, StatusList>();

  constructor(private readonly deps: PresentationVerifierDeps) {
    this.kbMaxAge = deps.kbMaxAgeSeconds ?? 300;
    this.skew = deps.skewSeconds ?? 5;
  }

  async verify(input: VerifyInput): Promise<VerifiedPresentation> {
    const checks: string[] = [];
    const now = Math.floor(input.now.getTime() / 1000);
    // Our own request: a failure here is a bug on our side, not the wallet's, so it is a plain Error.
    if (input.request.nonce !== input.expectedNonce) {
      throw new Error('request nonce differs from expected nonce');
    }
    if (isAnnexCRequest(input.request) || input.response instanceof AnnexCOpenedResponse) {
      // Only our own decryption makes an AnnexCOpenedResponse, and only for an Annex C request.
      if (
        !(input.response instanceof AnnexCOpenedResponse) ||
        !isAnnexCRequest(input.request) ||
        !this.deps.mdoc
      )
        throw new Error('an Annex C request is verified from its opened response only');
      return this.deps.mdoc.verifyAnnexC({
        request: input.request,
        expectedNonce: input.expectedNonce,
        deviceResponse: input.response.deviceResponse,
        environment: input.environment,
        now: input.now,
      });
    }
    if (this.deps.mdoc && answersMdocQuery(input.request, input.response)) {
      return this.deps.mdoc.verify({ ...input, ...mdocHandoverOf(input.request, input.expectedAudience) });
    }
    const dcqlQuery = storedDcqlQuery(input.request.dcql_query);
    if (!dcqlQuery.credentials.some((c) => c.format === 'dc+sd-jwt')) {
      // mdoc answers were dispatched above; a request without an SD-JWT query that gets here is our bug
      throw new Error('the request has no dc+sd-jwt credential query to verify against');
    }

    // 1. Response shape (OpenID4VP library), then exactly one presentation string, for the dc+sd-jwt query the
    // wallet chose among the request's alternatives (credential_sets).
    const { credentialQuery: sdJwtQuery, presented } = this.presentationFrom(input, dcqlQuery);
    checks.push('response_shape');
    const lastTilde = presented.lastIndexOf('~');
    if (lastTilde < 0) fail('presentation_malformed', 'The presentation is not an SD-JWT.');
    const sdJwtPart = presented.slice(0, lastTilde + 1); // what sd_hash covers: up to and including the last ~
    const kbJwt = presented.slice(lastTilde + 1);
    const issuerJwt = presented.slice(0, presented.indexOf('~'));
    // each JWS of the presentation is decoded once (es256.ts), then its signature checked from that decoding
    const issuerJws = decodeJws(
      issuerJwt,
      'presentation_malformed',
      'The issuer-signed JWT cannot be decoded.',
    );
    const header = issuerJws.header as ProtectedHeaderParameters;
    const payload = issuerJws.payload as JWTPayload;

    // 2. Issuer trust comes first: nothing in the credential is believed before its issuer is known.
    const issuer = payload.iss;
    if (typeof issuer !== 'string' || issuer.length === 0) {
      fail('presentation_malformed', 'The credential has no iss.');
    }
    // A configured key, or an x5c chain to a stored anchor bound to iss (trust.ts); else issuer_untrusted.
    const trusted = await this.deps.trust.trustIssuer(issuer as string, input.environment, header, input.now);
    const issuerKey = trusted.key;
    checks.push('issuer_trusted');
    verifyJws(
      issuerJws,
      issuerKey,
      'trusted',
      'credential_signature_invalid',
      'The issuer signature is invalid.',
    );
    checks.push('issuer_signature');

    // 3. Type and validity of the credential.
    if (header.typ !== 'dc+sd-jwt') fail('credential_type_invalid', 'The credential typ is not dc+sd-jwt.');
    const vct = payload.vct;
    const vctValues = sdJwtQuery.meta?.vct_values ?? [];
    if (typeof vct !== 'string' || !vctValues.includes(vct)) {
      fail('credential_type_invalid', 'The credential type (vct) was not requested.');
    }
    checks.push('credential_type');
    if (typeof payload.exp === 'number' && payload.exp + this.skew <= now) {
      fail('credential_expired', 'The credential has expired.');
    }
    if (typeof payload.nbf === 'number' && payload.nbf - this.skew > now) {
      fail('credential_expired', 'The credential is not valid yet.');
    }
    checks.push('credential_validity');

    // 4. Disclosures: every one must be referenced by a digest in the signed payload (the library silently
    // ignores unreferenced ones, which is how a tampered disclosure would slip through).
    // the disclosures: between the issuer JWT's `~` and the last `~` (none when those are the same `~`)
    const encodedDisclosures =
      lastTilde === issuerJwt.length ? [] : presented.slice(issuerJwt.length + 1, lastTilde).split('~');
    const claims = disclosedClaims(encodedDisclosures, payload);
    checks.push('disclosures');

    // 5. The disclosed claims answer the query (dcql, plus an explicit per-claim check for a precise answer).
    const answer = answerQuery(sdJwtQuery, dcqlQuery, vct as string, claims);
    checks.push('dcql_query');

    // 6. Key binding: required by policy, whatever the credential or the query says.
    if (kbJwt.length === 0) fail('key_binding_missing', 'The presentation has no key-binding JWT.');
    const holderJwk = (payload.cnf as { jwk?: unknown } | undefined)?.jwk;
    if (!isObject(holderJwk)) {
      return fail('key_binding_invalid', 'The credential has no holder key (cnf.jwk).');
    }
    const kbJws = decodeJws(kbJwt, 'key_binding_invalid', 'The key-binding JWT cannot be decoded.');
    const kb = kbJws.payload as JWTPayload;
    if (kbJws.header.typ !== 'kb+jwt') fail('key_binding_invalid', 'The key-binding JWT typ is not kb+jwt.');
    verifyJws(
      kbJws,
      holderJwk as JWK,
      'holder',
      'key_binding_invalid',
      'The key-binding signature is not by cnf.jwk.',
    );
    checks.push('key_binding_signature');
    if (typeof kb.nonce !== 'string' || !digestEqual(kb.nonce, input.expectedNonce)) {
      fail('nonce_mismatch', 'The key-binding nonce is not the request nonce.');
    }
    checks.push('nonce');
    if (kb.aud !== input.expectedAudience) {
      fail('audience_mismatch', 'The key-binding aud is not this verifier.');
    }
    checks.push('audience');
    if (typeof kb.iat !== 'number' || kb.iat > now + this.skew || kb.iat < now - this.kbMaxAge - this.skew) {
      fail('key_binding_stale', 'The key-binding iat is outside the accepted window.');
    }
    checks.push('key_binding_fresh');
    const sdHash = createHash('sha256').update(sdJwtPart).digest('base64url');
    if (typeof kb.sd_hash !== 'string' || !digestEqual(kb.sd_hash, sdHash)) {
      fail('sd_hash_mismatch', 'The key-binding sd_hash does not cover this presentation.');
    }
    checks.push('sd_hash');
    const transactionData = checkTransactionData(input.request, sdJwtQuery.id, kb);
    if (transactionData.length > 0) checks.push('transaction_data');

    // 7. Status list, verified with the same trusted issuer key.
    const statusChecked = await this.checkStatus(payload, trusted, now);
    checks.push('status_list');

    return {
      format: 'dc+sd-jwt',
      issuer: issuer as string,
      vct: vct as string,
      claims: { ...answer, [DOCUMENT_STATUS]: statusChecked.status },
      holderKeyThumbprint: p256Thumbprint(holderJwk as JWK),
      statusChecked,
      holderJwk: publicJwkOf(holderJwk as JWK),
      verifiedAt: input.now,
      presentation: presented,
      keyBindingJwt: kbJwt,
      transactionData,
      checks,
    };
  }

  private presentationFrom(
    input: VerifyInput,
    dcqlQuery: DcqlQuery,
  ): { credentialQuery: DcqlCredentialQuery.SdJwtVc; presented: string } {
    const presentations = dcqlPresentations(input.request, input.response);
    // Unknown ids, several alternatives or none: refused here (presentation_malformed / claims_missing).
    const credentialQuery = answeredCredentialQuery(dcqlQuery, Object.keys(presentations));
    if (credentialQuery.format !== 'dc+sd-jwt') {
      // an mso_mdoc answer reaches this path only when no mdoc verifier is configured
      fail('presentation_malformed', `Answers in ${credentialQuery.format} are not accepted here.`);
    }
    const entries = presentations[credentialQuery.id] as unknown[];
    if (entries.length !== 1 || typeof entries[0] !== 'string') {
      fail('presentation_malformed', 'Exactly one SD-JWT presentation string is expected.');
    }
    return {
      credentialQuery: credentialQuery as DcqlCredentialQuery.SdJwtVc,
      presented: entries[0] as string,
    };
  }

  /**
   * The status list of a token whose signature `key` verified, decompressed. Verification and decompression
   * are pure functions of (token bytes, key), so their result is memoized under exactly that pair (SHA-256 of
   * the token and the key's public members): a status-list cache hit (TTL, status-list-fetch.ts) or a refetch
   * of an unchanged list skips the third ES256 verify and the inflate. A new token (a status changed, a new
   * `iat`) or another key is a miss. Everything that depends on time or on the reference (typ, the trust
   * decision for the key, sub, exp, the index) is still checked on every use by the caller.
   */
  private verifiedStatusList(token: string, decoded: DecodedJws, key: JWK): StatusList {
    const memoKey = `${createHash('sha256').update(token).digest('base64url')} ${p256Thumbprint(key)}`;
    const hit = this.statusLists.get(memoKey);
    if (hit) return hit;
    verifyJws(
      decoded,
      key,
      'trusted',
      'status_check_failed',
      'The status list is not signed by the credential issuer.',
    );
    let list: StatusList;
    try {
      list = getListFromStatusListJWT(token);
    } catch (e) {
      return fail('status_check_failed', 'The status list cannot be decoded.', e);
    }
    if (this.statusLists.size >= 256) this.statusLists.delete(this.statusLists.keys().next().value as string);
    this.statusLists.set(memoKey, list);
    return list;
  }

  private async checkStatus(
    payload: JWTPayload,
    trusted: IssuerTrust,
    now: number,
  ): Promise<VerifiedPresentation['statusChecked']> {
    const ref = (payload.status as { status_list?: { idx?: unknown; uri?: unknown } } | undefined)
      ?.status_list;
    const idx = ref?.idx;
    const uri = ref?.uri;
    if (typeof uri !== 'string' || typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0) {
      return fail('status_check_failed', 'The credential has no usable status list reference.');
    }
    let token: string;
    try {
      token = await this.deps.fetchStatusList(uri);
    } catch (e) {
      return fail('status_check_failed', 'The status list could not be fetched.', e);
    }
    const decoded = decodeJws(token, 'status_check_failed', 'The status list token cannot be decoded.');
    const header = decoded.header as ProtectedHeaderParameters;
    const claims = decoded.payload as JWTPayload;
    if (header.typ !== 'statuslist+jwt') fail('status_check_failed', 'The status list token typ is wrong.');
    let listKey: JWK;
    try {
      listKey = await trusted.statusListKey(header, new Date(now * 1000));
    } catch (e) {
      return fail('status_check_failed', "The status list is not signed with the issuer's trust.", e);
    }
    const list = this.verifiedStatusList(token, decoded, listKey);
    if (claims.sub !== uri) fail('status_check_failed', 'The status list token is for another URI (sub).');
    if (typeof claims.exp === 'number' && claims.exp + this.skew <= now) {
      fail('status_check_failed', 'The status list token has expired.');
    }
    let status: number;
    try {
      status = list.getStatus(idx);
    } catch (e) {
      return fail('status_check_failed', 'The status index is outside the status list.', e);
    }
    if (status === 1) fail('credential_revoked', 'The credential has been revoked.');
    if (status === 2) fail('credential_suspended', 'The credential is suspended.');
    if (status !== 0) fail('status_check_failed', 'The credential status is not recognised.');
    return { uri, idx, status: 'valid' };
  }
}

/**
 * JWS signature check, ES256 only (never `none`): es256.ts. A trusted key (issuer, status list) is imported
 * once per distinct key; a holder key (cnf.jwk, one per credential) on every call.
 */
function verifyJws(
  jws: DecodedJws,
  jwk: JWK,
  kind: 'trusted' | 'holder',
  code: ErrorCode,
  detail: string,
): void {
  try {
    verifyEs256(jws, kind === 'trusted' ? trustedPublicKey(jwk) : publicKeyOf(jwk));
  } catch (e) {
    fail(code, detail, e);
  }
}

/** A compact JWS decoded once (header and payload JSON objects), or the refusal `code`. */
function decodeJws(jws: string, code: ErrorCode, detail: string): DecodedJws {
  try {
    return decodeCompactJws(jws);
  } catch (e) {
    return fail(code, detail, e);
  }
}

/**
 * Decodes the disclosures with @sd-jwt/utils (`Disclosure.fromEncodeSync`: base64url JSON, digest over the exact
 * encoded string) and applies them with @sd-jwt/decode (`getClaimsSync`), after checking that every one is
 * reached from the signed payload. `encoded` are the disclosure strings between the issuer JWT and the KB-JWT.
 */
function disclosedClaims(encoded: string[], payload: JWTPayload): Json {
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
function answerQuery(
  credentialQuery: DcqlCredentialQuery.SdJwtVc,
  dcqlQuery: DcqlQuery,
  vct: string,
  claims: Json,
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

/** The public members of an EC/OKP/RSA JWK (what a result may show). */
function publicJwkOf(jwk: JWK): JWK {
  const out: Record<string, string> = {};
  for (const k of ['kty', 'crv', 'x', 'y', 'n', 'e'] as const) {
    const v = jwk[k];
    if (v !== undefined) out[k] = v;
  }
  return out as JWK;
}

/**
 * OpenID4VP B.3: when the request carried transaction_data for our credential, the KB-JWT must carry
 * `transaction_data_hashes` = base64url(SHA-256(each exact string we sent)) and `transaction_data_hashes_alg`
 * `sha-256` (required, since every entry we send names it). Hashes are compared with the STORED request's
 * strings, exactly and completely (no missing and no extra entry). Returns the strings covered.
 */
function checkTransactionData(request: Json, credentialQueryId: string, kb: JWTPayload): string[] {
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
