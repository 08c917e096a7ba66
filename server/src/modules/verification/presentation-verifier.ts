// Owns verification of a wallet's answer to one of our OpenID4VP requests (SD-JWT VC, `dc+sd-jwt`): response
// shape, issuer trust and signature, disclosures, key binding (nonce, aud, iat, sd_hash), status list and the
// DCQL query. The libraries do the parsing and cryptography; the checks they leave to the caller (typ, aud, iat
// window, sd_hash over the exact string, unreferenced disclosures, status-list binding, transaction_data_hashes
// over the exact stored strings) are explicit here.
// The claim-level checks (disclosures, the DCQL answer, transaction data) are in sd-jwt-claims.ts.
// Every refusal is an AppError with a code from the closed list.

import { hash, type KeyObject } from 'node:crypto';
import type { StatusList } from '@sd-jwt/jwt-status-list';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import type { DcqlCredentialQuery, DcqlQuery } from 'dcql';
import type { JWK, JWTPayload, ProtectedHeaderParameters } from 'jose';
import { digestEqual } from '../../common/crypto';
import { AppError, type ErrorCode } from '../../common/errors';
import type { Environment } from '../../config/config';
import { answeredCredentialQuery, DOCUMENT_STATUS, deepFreeze, StoredDcqlQueries } from './dcql';
import { type DecodedJws, decodeCompactJws, PublicKeyCache, p256Thumbprint, verifyEs256 } from './es256';
import { AnnexCOpenedResponse, isAnnexCRequest } from './mdoc/annex-c';
import {
  answersMdocQuery,
  type MdocPresentationVerifier,
  type MdocVerifiedPresentation,
  mdocHandoverOf,
} from './mdoc/mdoc-verifier';
import { answerQuery, checkTransactionData, disclosedClaims } from './sd-jwt-claims';
import type { IssuerTrust, RouteScope, TrustStore } from './trust';
import { requireTrustedAuthority } from './trusted-authorities';
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
  /** Holder keys (cnf.jwk) remembered once imported (default 1,000; 0: imported on every verification). */
  holderKeyCacheSize?: number;
}

/** A status-list token decoded once, with the lists verified from it, by the key that verified them. */
interface StatusToken {
  decoded: DecodedJws;
  verified: WeakMap<KeyObject, StatusList>;
}

export interface VerifyInput {
  /** The exact request sent to the wallet. */
  request: Record<string, unknown>;
  expectedNonce: string;
  /** `origin:<hosted page origin>` for the DC API. */
  expectedAudience: string;
  environment: Environment;
  /** The credential routes whose issuer trust may validate the credential (ADR 0036); undefined: any route. */
  routes?: RouteScope;
  response: unknown;
  now: Date;
}

type Json = Record<string, unknown>;
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class PresentationVerifier {
  private readonly kbMaxAge: number;
  private readonly skew: number;
  /** Status-list tokens by their exact text, decoded, with their verified lists: see verifiedStatusList. */
  private readonly statusTokens = new Map<string, StatusToken>();
  /** Our stored requests' DCQL queries, parsed once per distinct text. */
  private readonly dcqlQueries = new StoredDcqlQueries();
  /** Keys of the trust store (issuer, status list), imported once per distinct key. */
  private readonly trustedKeys = new PublicKeyCache(1000);
  /**
   * Holder keys (cnf.jwk), imported once per distinct key: the steps of a session are presented with the same
   * credential (ADR 0026), and a credential is presented again in later sessions.
   */
  private readonly holderKeys: PublicKeyCache;

  constructor(private readonly deps: PresentationVerifierDeps) {
    this.kbMaxAge = deps.kbMaxAgeSeconds ?? 300;
    this.skew = deps.skewSeconds ?? 5;
    this.holderKeys = new PublicKeyCache(deps.holderKeyCacheSize ?? 1000);
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
        opened: input.response,
        environment: input.environment,
        routes: input.routes,
        now: input.now,
      });
    }
    if (this.deps.mdoc && answersMdocQuery(input.request, input.response)) {
      return this.deps.mdoc.verify({ ...input, ...mdocHandoverOf(input.request, input.expectedAudience) });
    }
    const dcqlQuery = this.dcqlQueries.get(input.request.dcql_query);
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
    const trusted = await this.deps.trust.trustIssuer(
      issuer as string,
      input.environment,
      header,
      input.now,
      input.routes,
    );
    const issuerKey = trusted.key;
    // the request's trusted_authorities (aki), when it had them: the x5c chain must carry one (ADR 0050)
    const x5c = Array.isArray(header.x5c) ? header.x5c : [];
    const authority = requireTrustedAuthority(
      sdJwtQuery,
      x5c.map((c) => new Uint8Array(Buffer.from(String(c), 'base64'))),
    );
    checks.push('issuer_trusted');
    verifyJws(
      issuerJws,
      () => this.trustedKeys.get(issuerKey),
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
    const answer = answerQuery(sdJwtQuery, dcqlQuery, vct as string, claims, authority);
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
      () => this.holderKeys.get(holderJwk as JWK),
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
    const sdHash = hash('sha256', sdJwtPart, 'base64url');
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
   * The status-list token `token`, decoded once per distinct text: decoding is a pure function of the text, and
   * the result is frozen (shared by every verification that reads the same token). Bounded, oldest out.
   */
  private statusToken(token: string): StatusToken {
    let entry = this.statusTokens.get(token);
    if (!entry) {
      const decoded = deepFreeze(
        decodeJws(token, 'status_check_failed', 'The status list token cannot be decoded.'),
      );
      entry = { decoded, verified: new WeakMap() };
      if (this.statusTokens.size >= 256)
        this.statusTokens.delete(this.statusTokens.keys().next().value as string);
      this.statusTokens.set(token, entry);
    }
    return entry;
  }

  /**
   * The status list of a token whose signature `jwk` verified, decompressed. Verification and decompression
   * are pure functions of (token text, key), so their result is remembered under exactly that pair (the token's
   * entry, then the key's KeyObject, which the content-addressed key cache hands out): a status-list cache hit
   * (TTL, status-list-fetch.ts) or a refetch of an unchanged list skips the third ES256 verify and the inflate.
   * A new token (a status changed, a new `iat`) or another key is a miss. Everything that depends on time or on
   * the reference (typ, the trust decision for the key, sub, exp, the index) is still checked on every use by
   * the caller.
   */
  private verifiedStatusList(token: string, entry: StatusToken, jwk: JWK): StatusList {
    let key: KeyObject;
    try {
      key = this.trustedKeys.get(jwk);
    } catch (e) {
      return fail('status_check_failed', 'The status list is not signed by the credential issuer.', e);
    }
    const hit = entry.verified.get(key);
    if (hit) return hit;
    verifyJws(
      entry.decoded,
      () => key,
      'status_check_failed',
      'The status list is not signed by the credential issuer.',
    );
    let list: StatusList;
    try {
      list = getListFromStatusListJWT(token);
    } catch (e) {
      return fail('status_check_failed', 'The status list cannot be decoded.', e);
    }
    entry.verified.set(key, list);
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
    const entry = this.statusToken(token);
    const decoded = entry.decoded;
    const header = decoded.header as ProtectedHeaderParameters;
    const claims = decoded.payload as JWTPayload;
    if (header.typ !== 'statuslist+jwt') fail('status_check_failed', 'The status list token typ is wrong.');
    let listKey: JWK;
    try {
      listKey = await trusted.statusListKey(header, new Date(now * 1000));
    } catch (e) {
      return fail('status_check_failed', "The status list is not signed with the issuer's trust.", e);
    }
    const list = this.verifiedStatusList(token, entry, listKey);
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
 * JWS signature check, ES256 only (never `none`): es256.ts. `key` imports the key (from a PublicKeyCache of the
 * verifier); a key OpenSSL refuses is refused with `code` like a bad signature.
 */
function verifyJws(jws: DecodedJws, key: () => KeyObject, code: ErrorCode, detail: string): void {
  try {
    verifyEs256(jws, key());
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

/** The public members of an EC/OKP/RSA JWK (what a result may show). */
function publicJwkOf(jwk: JWK): JWK {
  const out: Record<string, string> = {};
  for (const k of ['kty', 'crv', 'x', 'y', 'n', 'e'] as const) {
    const v = jwk[k];
    if (v !== undefined) out[k] = v;
  }
  return out as JWK;
}
