// Owns verification of a wallet's answer to one of our OpenID4VP requests (SD-JWT VC, `dc+sd-jwt`): response
// shape, issuer trust and signature, disclosures, key binding (nonce, aud, iat, sd_hash), status list and the
// DCQL query. The libraries do the parsing and cryptography; the checks they leave to the caller (typ, aud, iat
// window, sd_hash over the exact string, unreferenced disclosures, status-list binding) are explicit here.
// Every refusal is an AppError with a code from the closed list.
import {
  parseOpenid4VpAuthorizationResponsePayload,
  validateOpenid4vpAuthorizationResponsePayload,
} from '@openid4vc/openid4vp';
import { SDJwt } from '@sd-jwt/core';
import { digest } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import {
  type DcqlCredentialQuery,
  DcqlPresentationResult,
  type DcqlQuery,
  type DcqlSdJwtVcCredential,
} from 'dcql';
import {
  base64url,
  calculateJwkThumbprint,
  compactVerify,
  decodeJwt,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { safeEqual } from '../../common/crypto';
import { AppError, type ErrorCode } from '../../common/errors';
import type { Environment } from '../../config/config';
import { claimAt, DOCUMENT_STATUS, parseDcqlQuery } from './dcql';
import { SD_JWT_ALGS } from './request';
import type { TrustStore } from './trust';

export interface VerifiedPresentation {
  format: 'dc+sd-jwt';
  issuer: string;
  vct: string;
  /** Exactly the requested claims (keyed by claim path), plus document_status. */
  claims: Record<string, unknown>;
  /** RFC 7638 SHA-256 thumbprint of the holder key (cnf.jwk), base64url. */
  holderKeyThumbprint: string;
  statusChecked: { uri: string; idx: number; status: 'valid' };
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
const hasher = (data: string | ArrayBuffer, alg: string) => digest(data, alg);
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class PresentationVerifier {
  private readonly kbMaxAge: number;
  private readonly skew: number;

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
    const dcqlQuery = parseDcqlQuery(input.request.dcql_query);
    const credentialQuery = dcqlQuery.credentials[0];
    if (dcqlQuery.credentials.length !== 1 || credentialQuery?.format !== 'dc+sd-jwt') {
      throw new Error('the verifier handles requests with exactly one dc+sd-jwt credential query');
    }
    const sdJwtQuery = credentialQuery as DcqlCredentialQuery.SdJwtVc;

    // 1. Response shape (OpenID4VP library), then exactly one presentation string for our query.
    const presented = this.presentationFrom(input, credentialQuery.id);
    checks.push('response_shape');
    const lastTilde = presented.lastIndexOf('~');
    if (lastTilde < 0) fail('presentation_malformed', 'The presentation is not an SD-JWT.');
    const sdJwtPart = presented.slice(0, lastTilde + 1); // what sd_hash covers: up to and including the last ~
    const kbJwt = presented.slice(lastTilde + 1);
    const issuerJwt = presented.slice(0, presented.indexOf('~'));
    let header: ProtectedHeaderParameters;
    let payload: JWTPayload;
    try {
      header = decodeProtectedHeader(issuerJwt);
      payload = decodeJwt(issuerJwt);
    } catch (e) {
      return fail('presentation_malformed', 'The issuer-signed JWT cannot be decoded.', e);
    }

    // 2. Issuer trust comes first: nothing in the credential is believed before its issuer is known.
    const issuer = payload.iss;
    if (typeof issuer !== 'string' || issuer.length === 0) {
      fail('presentation_malformed', 'The credential has no iss.');
    }
    const issuerKey = await this.deps.trust.issuerKey(issuer as string, input.environment);
    if (!issuerKey) {
      return fail('issuer_untrusted', 'The credential issuer is not trusted for this environment.');
    }
    checks.push('issuer_trusted');
    await verifyJws(issuerJwt, issuerKey, 'credential_signature_invalid', 'The issuer signature is invalid.');
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
    const claims = await disclosedClaims(sdJwtPart, payload);
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
    let kbHeader: ProtectedHeaderParameters;
    let kb: JWTPayload;
    try {
      kbHeader = decodeProtectedHeader(kbJwt);
      kb = decodeJwt(kbJwt);
    } catch (e) {
      return fail('key_binding_invalid', 'The key-binding JWT cannot be decoded.', e);
    }
    if (kbHeader.typ !== 'kb+jwt') fail('key_binding_invalid', 'The key-binding JWT typ is not kb+jwt.');
    await verifyJws(
      kbJwt,
      holderJwk as JWK,
      'key_binding_invalid',
      'The key-binding signature is not by cnf.jwk.',
    );
    checks.push('key_binding_signature');
    if (typeof kb.nonce !== 'string' || !safeEqual(kb.nonce, input.expectedNonce)) {
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
    const sdHash = base64url.encode(await hasher(sdJwtPart, SD_ALG));
    if (typeof kb.sd_hash !== 'string' || !safeEqual(kb.sd_hash, sdHash)) {
      fail('sd_hash_mismatch', 'The key-binding sd_hash does not cover this presentation.');
    }
    checks.push('sd_hash');

    // 7. Status list, verified with the same trusted issuer key.
    const statusChecked = await this.checkStatus(payload, issuerKey, now);
    checks.push('status_list');

    return {
      format: 'dc+sd-jwt',
      issuer: issuer as string,
      vct: vct as string,
      claims: { ...answer, [DOCUMENT_STATUS]: statusChecked.status },
      holderKeyThumbprint: await calculateJwkThumbprint(holderJwk as JWK, 'sha256'),
      statusChecked,
      checks,
    };
  }

  private presentationFrom(input: VerifyInput, credentialQueryId: string): string {
    if (isObject(input.response) && 'error' in input.response) {
      fail('presentation_malformed', 'The wallet answered with an error.');
    }
    let presentations: Record<string, unknown[]>;
    try {
      const payload = parseOpenid4VpAuthorizationResponsePayload(input.response as Json);
      const validated = validateOpenid4vpAuthorizationResponsePayload({
        // The library's request type is a zod output type; our request is the same JSON object.
        authorizationRequestPayload: input.request as Parameters<
          typeof validateOpenid4vpAuthorizationResponsePayload
        >[0]['authorizationRequestPayload'],
        authorizationResponsePayload: payload,
      });
      if (validated.type !== 'dcql') throw new Error('not a DCQL response');
      presentations = validated.dcql.presentations;
    } catch (e) {
      return fail('presentation_malformed', 'The wallet response is not an OpenID4VP DCQL response.', e);
    }
    for (const id of Object.keys(presentations)) {
      if (id !== credentialQueryId) fail('presentation_malformed', 'The vp_token answers an unknown query.');
    }
    const entries = presentations[credentialQueryId];
    if (!entries) {
      return fail('claims_missing', 'The vp_token has no presentation for the requested credential.');
    }
    if (entries.length !== 1 || typeof entries[0] !== 'string') {
      fail('presentation_malformed', 'Exactly one SD-JWT presentation string is expected.');
    }
    return entries[0] as string;
  }

  private async checkStatus(
    payload: JWTPayload,
    issuerKey: JWK,
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
    let header: ProtectedHeaderParameters;
    let claims: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      claims = decodeJwt(token);
    } catch (e) {
      return fail('status_check_failed', 'The status list token cannot be decoded.', e);
    }
    if (header.typ !== 'statuslist+jwt') fail('status_check_failed', 'The status list token typ is wrong.');
    await verifyJws(
      token,
      issuerKey,
      'status_check_failed',
      'The status list is not signed by the credential issuer.',
    );
    if (claims.sub !== uri) fail('status_check_failed', 'The status list token is for another URI (sub).');
    if (typeof claims.exp === 'number' && claims.exp + this.skew <= now) {
      fail('status_check_failed', 'The status list token has expired.');
    }
    let status: number;
    try {
      status = getListFromStatusListJWT(token).getStatus(idx);
    } catch (e) {
      return fail('status_check_failed', 'The status index is outside the status list.', e);
    }
    if (status === 1) fail('credential_revoked', 'The credential has been revoked.');
    if (status === 2) fail('credential_suspended', 'The credential is suspended.');
    if (status !== 0) fail('status_check_failed', 'The credential status is not recognised.');
    return { uri, idx, status: 'valid' };
  }
}

/** JWS signature check with an allow-list of algorithms (never `none`). */
async function verifyJws(jws: string, jwk: JWK, code: ErrorCode, detail: string): Promise<void> {
  try {
    const key = await importJWK(jwk, SD_JWT_ALGS[0]);
    await compactVerify(jws, key, { algorithms: [...SD_JWT_ALGS] });
  } catch (e) {
    fail(code, detail, e);
  }
}

/** Decodes the disclosures with @sd-jwt/core and returns the disclosed claims, after checking every digest. */
async function disclosedClaims(sdJwtPart: string, payload: JWTPayload): Promise<Json> {
  if ((payload._sd_alg ?? SD_ALG) !== SD_ALG) fail('disclosure_invalid', 'Unsupported _sd_alg.');
  let sdjwt: SDJwt;
  try {
    sdjwt = await SDJwt.fromEncode(sdJwtPart, hasher);
  } catch (e) {
    return fail('disclosure_invalid', 'A disclosure cannot be decoded.', e);
  }
  const disclosures = sdjwt.disclosures ?? [];
  const byDigest = new Map<string, unknown>();
  for (const d of disclosures) {
    const dg = await d.digest({ hasher, alg: SD_ALG });
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
    return (await sdjwt.getClaims(hasher)) as Json;
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
  for (const claimQuery of credentialQuery.claims ?? []) {
    const value = claimAt(claims, claimQuery.path);
    if (value === undefined) {
      fail('claims_missing', `The requested claim ${claimQuery.path.join('.')} was not disclosed.`);
    }
    answer[claimQuery.path.join('.')] = value;
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
    satisfied = result.can_be_satisfied;
  } catch (e) {
    fail('claims_missing', 'The presentation does not satisfy the query.', e);
  }
  if (!satisfied) fail('claims_missing', 'The presentation does not satisfy the query.');
  return answer;
}
