// Owns the wallet side of the signed transports for the sandbox reference wallet (and for tests): fetch a
// cross-device request_uri over real HTTP, verify the request object like a wallet does (typ, ES256 signature
// by the x5c leaf with jose, leaf chained to a trusted verifier root and not self-signed, root not in x5c,
// client_id bound to the leaf by x509_hash or x509_san_dns, iat/exp, expected_origins over the DC API), answer
// with the reference wallet's presentation, and encrypt the response to the verifier's ephemeral key
// (ECDH-ES, enc from encrypted_response_enc_values_supported) for direct_post.jwt or dc_api.jwt. The persona
// (wallet choice) decides the format: SD-JWT VC, or an mdoc bound to the request's handover.
import { createHash } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import {
  base64url,
  CompactEncrypt,
  compactVerify,
  decodeProtectedHeader,
  importJWK,
  importX509,
  type JWK,
} from 'jose';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { jsonObjectBody, type RouteRegistry, requireString, sendJson } from '../../common/http';
import { RC_WRP_TYP } from '../relying-party/registrar';
import {
  anchorOf,
  registrationClaimsProblem,
  registrationSubjectFor,
} from '../relying-party/registration-certificates';
import type { PresentOverrides, ReferenceWallet } from './reference-wallet';

type Json = Record<string, unknown>;

const pem = (b64Der: string) => `-----BEGIN CERTIFICATE-----\n${b64Der}\n-----END CERTIFICATE-----`;
const refuse = (
  detail: string,
  cause?: unknown,
  code: 'validation_failed' | 'verifier_info_mismatch' | 'verifier_info_invalid' = 'validation_failed',
): never => {
  throw new AppError(code, `The wallet refuses the request: ${detail}`, { param: 'request', cause });
};
/** A refusal of the request's registration certificate (stable codes, ADR 0040). */
const refuseInfo = (detail: string, cause?: unknown): never => refuse(detail, cause, 'verifier_info_invalid');

/** The client_id and request_uri of an `openid4vp://?client_id=…&request_uri=…` link. */
export function parseWalletLink(uri: string): { clientId: string; requestUri: string } {
  let u: URL;
  try {
    u = new URL(uri);
  } catch (e) {
    return refuse('the link is not a URI', e);
  }
  const clientId = u.searchParams.get('client_id');
  const requestUri = u.searchParams.get('request_uri');
  if (u.protocol !== 'openid4vp:' || !clientId || !requestUri) {
    return refuse('the link needs openid4vp:, client_id and request_uri');
  }
  return { clientId, requestUri };
}

/**
 * Verifies a signed request object and returns its payload. `trustedRoots` are base64 DER certificates of
 * the verifier roots this wallet trusts (the sandbox wallet trusts our own verifier root).
 */
export async function verifyRequestObject(
  jwt: string,
  opts: {
    trustedRoots: string[];
    now: Date;
    origin?: string;
    /** Registrar anchors trusted for verifier_info only (imported registration certificates, ADR 0040). */
    registrarRoots?: string[];
  },
): Promise<Json> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch (e) {
    return refuse('the request object is not a JWS', e);
  }
  if (header.typ !== 'oauth-authz-req+jwt') refuse('typ is not oauth-authz-req+jwt');
  if (header.alg !== 'ES256') refuse('alg is not ES256');
  const x5c = header.x5c;
  if (!Array.isArray(x5c) || x5c.length === 0 || typeof x5c[0] !== 'string') refuse('no x5c');
  const chain = (x5c as string[]).map((c) => new x509.X509Certificate(Buffer.from(c, 'base64')));
  const leaf = chain[0] as x509.X509Certificate;
  let payload: Json;
  try {
    const verified = await compactVerify(jwt, await importX509(pem(x5c?.[0] as string), 'ES256'), {
      algorithms: ['ES256'],
    });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Json;
  } catch (e) {
    return refuse('the signature is not by the x5c leaf', e);
  }

  // Chain: leaf (+ intermediates) up to a trusted root that is NOT itself in x5c; the leaf is not self-signed.
  const roots = opts.trustedRoots.map((r) => new x509.X509Certificate(Buffer.from(r, 'base64')));
  const isRoot = (c: x509.X509Certificate) =>
    roots.some((r) => Buffer.from(r.rawData).equals(Buffer.from(c.rawData)));
  if (chain.some(isRoot)) refuse('x5c contains the trust anchor');
  if (await leaf.isSelfSigned()) refuse('the signing certificate is self-signed');
  for (const [i, cert] of chain.entries()) {
    if (cert.notBefore > opts.now || cert.notAfter < opts.now) refuse('a certificate is not valid now');
    const issuer = chain[i + 1] ?? roots.find((r) => r.subject === cert.issuer);
    if (!issuer) refuse('the chain does not end at a trusted verifier root');
    if (!(await cert.verify({ publicKey: issuer as x509.X509Certificate, signatureOnly: true }))) {
      refuse('a certificate of the chain is not signed by its issuer');
    }
  }

  // client_id is bound to the leaf.
  const clientId = payload.client_id;
  if (typeof clientId !== 'string') return refuse('no client_id');
  if (clientId.startsWith('x509_hash:')) {
    const hash = base64url.encode(createHash('sha256').update(Buffer.from(leaf.rawData)).digest());
    if (clientId !== `x509_hash:${hash}`) refuse('client_id is not the hash of the leaf');
  } else if (clientId.startsWith('x509_san_dns:')) {
    const dns = clientId.slice('x509_san_dns:'.length);
    const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
    if (!san?.names.items.some((n) => n.type === 'dns' && n.value === dns)) refuse('client_id is not a SAN');
    const uri = payload.response_uri;
    if (typeof uri === 'string' && new URL(uri).hostname !== dns) refuse('response_uri is on another host');
  } else {
    refuse('client_id is not an x509 client identifier');
  }

  await checkVerifierInfo(payload, [...opts.trustedRoots, ...(opts.registrarRoots ?? [])], opts.now, leaf);
  const now = Math.floor(opts.now.getTime() / 1000);
  if (typeof payload.exp === 'number' && payload.exp <= now) refuse('the request object has expired');
  if (typeof payload.iat === 'number' && payload.iat > now + 60)
    refuse('the request object is from the future');
  if (opts.origin !== undefined) {
    const origins = payload.expected_origins;
    if (!Array.isArray(origins) || !origins.includes(opts.origin)) refuse('this origin is not expected');
  }
  return payload;
}

/**
 * Checks OpenID4VP `verifier_info` registration certificates (ETSI TS 119 475 `rc-wrp+jwt`, ADR 0035): each
 * is signed by the key of its x5c certificate, which must be one of the trusted roots (the registrar CA), is
 * current, and its `sub` names the request's client_id. A mismatch means someone else's registration was
 * attached to this request: refused.
 */
async function checkVerifierInfo(
  payload: Json,
  trustedRoots: string[],
  now: Date,
  leaf: x509.X509Certificate,
): Promise<void> {
  const info = payload.verifier_info;
  if (info === undefined) return;
  if (!Array.isArray(info) || info.length === 0) refuseInfo('verifier_info must be a non-empty array');
  for (const entry of info as Json[]) {
    if (typeof entry?.format !== 'string' || entry.data === undefined)
      refuseInfo('verifier_info needs format and data');
    if (entry.format !== 'jwt' || typeof entry.data !== 'string') continue;
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(entry.data);
    } catch (e) {
      return refuseInfo('verifier_info data is not a JWT', e);
    }
    if (header.typ !== RC_WRP_TYP) continue;
    const signer = Array.isArray(header.x5c) ? header.x5c[0] : undefined;
    let signerCert: x509.X509Certificate | undefined;
    try {
      signerCert =
        typeof signer === 'string' ? new x509.X509Certificate(Buffer.from(signer, 'base64')) : undefined;
    } catch (e) {
      refuseInfo('the registration certificate x5c is not a certificate', e);
    }
    if (!signerCert || !(await anchorOf(signerCert, trustedRoots, now)))
      refuseInfo('the registration certificate is not signed by a trusted registrar');
    let rc: Json;
    try {
      const verified = await compactVerify(entry.data, await importX509(pem(signer as string), 'ES256'));
      rc = JSON.parse(new TextDecoder().decode(verified.payload)) as Json;
    } catch (e) {
      return refuseInfo('the registration certificate signature does not verify', e);
    }
    checkRcClaims(
      rc,
      registrationSubjectFor(Buffer.from(leaf.rawData).toString('base64'), String(payload.client_id)),
      now,
    );
  }
}

/** The shared claim rule (registrationClaimsProblem), as the wallet's refusals. */
function checkRcClaims(rc: Json, subject: string, now: Date): void {
  const problem = registrationClaimsProblem(rc, subject, now);
  if (problem === 'sub')
    refuse(
      'verifier_info does not match the signer (sub names another relying party)',
      undefined,
      'verifier_info_mismatch',
    );
  if (problem) refuseInfo(`the registration certificate ${problem}`);
}

/** What a wallet screen shows from a verified request's registration certificate (undefined: none). */
export function relyingPartyShown(
  payload: Json,
): { name: string; purpose: string | null; via: string | null } | undefined {
  const info = Array.isArray(payload.verifier_info) ? (payload.verifier_info as Json[]) : [];
  for (const entry of info) {
    if (entry?.format !== 'jwt' || typeof entry.data !== 'string') continue;
    const [, body] = entry.data.split('.');
    const rc = JSON.parse(Buffer.from(body ?? '', 'base64url').toString('utf8')) as Json;
    const purpose = Array.isArray(rc.purpose) ? (rc.purpose as Json[])[0]?.value : undefined;
    // the intermediary acting for the relying party (ETSI TS 119 475 `intermediary.sname`, ADR 0053)
    const via = (rc.intermediary as Json | undefined)?.sname;
    if (typeof rc.name === 'string')
      return {
        name: rc.name,
        purpose: typeof purpose === 'string' ? purpose : null,
        via: typeof via === 'string' ? via : null,
      };
  }
  return undefined;
}

/** The verifier's response-encryption key: the client_metadata.jwks key for ECDH-ES (with a kid). */
export function responseKeyOf(request: Json): JWK {
  const keys = ((request.client_metadata as Json | undefined)?.jwks as { keys?: JWK[] } | undefined)?.keys;
  const key = keys?.find((k) => k.alg === 'ECDH-ES' && k.use !== 'sig' && typeof k.kid === 'string');
  if (!key) return refuse('no ECDH-ES key in client_metadata.jwks');
  return key;
}

/** The response parameters as a JWE to the verifier's key (or to `opts.jwk`, for negative tests). */
export async function encryptResponse(params: Json, request: Json, opts: { jwk?: JWK; enc?: string } = {}) {
  const jwk = opts.jwk ?? responseKeyOf(request);
  const offered = (request.client_metadata as Json | undefined)?.encrypted_response_enc_values_supported;
  const enc = opts.enc ?? (Array.isArray(offered) && typeof offered[0] === 'string' ? offered[0] : 'A128GCM');
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(params)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: jwk.kid })
    .encrypt(await importJWK(jwk, 'ECDH-ES'));
}

/** The reference wallet speaking the signed transports, over real HTTP for cross-device. */
export class SignedRequestWallet {
  constructor(
    private readonly deps: {
      wallet: ReferenceWallet;
      /** base64 DER verifier roots this wallet trusts. */
      trustedRoots: () => Promise<string[]>;
      /** Registrar anchors this wallet trusts for registration certificates (REGISTRATION_CERT_ANCHORS_FILE). */
      registrarRoots?: string[];
      clock: Clock;
      /** Origins whose request_uri this wallet may fetch (the sandbox wallet fetches only from our host). */
      allowedOrigins?: string[];
    },
  ) {}

  /** GET request_uri (accepting application/oauth-authz-req+jwt) and verify the request object. */
  async fetchRequest(uri: string): Promise<{ payload: Json; clientId: string }> {
    const { clientId, requestUri } = parseWalletLink(uri);
    const target = new URL(requestUri);
    if (this.deps.allowedOrigins && !this.deps.allowedOrigins.includes(target.origin)) {
      refuse('request_uri is not on an allowed host');
    }
    const res = await fetch(target, { headers: { accept: 'application/oauth-authz-req+jwt' } });
    if (!res.ok) {
      const problem = (await res.json().catch(() => ({}))) as { code?: string };
      throw new AppError(
        'request_not_found',
        `request_uri answered ${res.status} ${problem.code ?? ''}`.trim(),
      );
    }
    if (!res.headers.get('content-type')?.startsWith('application/oauth-authz-req+jwt')) {
      refuse('request_uri did not answer application/oauth-authz-req+jwt');
    }
    const payload = await verifyRequestObject(await res.text(), {
      trustedRoots: await this.deps.trustedRoots(),
      registrarRoots: this.deps.registrarRoots,
      now: this.deps.clock.now(),
    });
    if (payload.client_id !== clientId) refuse('client_id differs from the link');
    if (payload.response_mode !== 'direct_post.jwt' || typeof payload.response_uri !== 'string') {
      refuse('expected response_mode direct_post.jwt with a response_uri');
    }
    return { payload, clientId };
  }

  /** The whole cross-device exchange as `persona`: returns what response_uri answered. */
  async answerCrossDevice(input: {
    persona: string;
    uri: string;
    overrides?: PresentOverrides;
  }): Promise<{ status: number; body: unknown }> {
    const { payload } = await this.fetchRequest(input.uri);
    const presented = await this.deps.wallet.present({
      persona: input.persona,
      request: payload,
      // not used for redirect-based requests: the audience is the client_id
      origin: new URL(payload.response_uri as string).origin,
      overrides: input.overrides ?? {},
      // an mdoc binds the redirect handover (client_id, response_uri) and the encryption key (OpenID4VP B.2.6)
      handover: {
        redirect: { clientId: String(payload.client_id), responseUri: String(payload.response_uri) },
        responseEncryptionJwk: responseKeyOf(payload),
      },
    });
    const jwe = await encryptResponse({ ...presented, state: payload.state }, payload);
    return postResponse(payload.response_uri as string, { response: jwe });
  }

  /** Verifies a signed DC API request (`data` = {request}) as asked from `origin`: its payload. */
  async readSignedDcApi(input: { data: Json; origin: string }): Promise<Json> {
    if (typeof input.data.request !== 'string') refuse('data.request is missing');
    const payload = await verifyRequestObject(input.data.request as string, {
      trustedRoots: await this.deps.trustedRoots(),
      registrarRoots: this.deps.registrarRoots,
      now: this.deps.clock.now(),
      origin: input.origin,
    });
    if (payload.response_mode !== 'dc_api.jwt') refuse('expected response_mode dc_api.jwt');
    return payload;
  }

  /** Answers a signed DC API request (`data` = {request}) from `origin`: returns {response: <JWE>}. */
  async answerSignedDcApi(input: {
    persona: string;
    data: Json;
    origin: string;
    overrides?: PresentOverrides;
  }): Promise<{ response: string }> {
    const payload = await this.readSignedDcApi(input);
    const presented = await this.deps.wallet.present({
      persona: input.persona,
      request: payload,
      origin: input.origin,
      // over the DC API the audience is origin:<origin>, even for a signed request (OpenID4VP A.4)
      overrides: { aud: `origin:${input.origin}`, ...input.overrides },
      // an mdoc binds the origin (DC API handover) and the encryption key
      handover: { responseEncryptionJwk: responseKeyOf(payload) },
    });
    return { response: await encryptResponse({ ...presented }, payload) };
  }
}

/** POSTs form parameters to a response_uri, as a wallet does for direct_post(.jwt). */
export async function postResponse(responseUri: string, form: Record<string, string>) {
  const res = await fetch(responseUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

/** Sandbox tooling: "Open in sandbox wallet" on the hosted page runs the cross-device exchange server-side. */
export function registerSandboxCrossDeviceRoute(reg: RouteRegistry, wallet: SignedRequestWallet): void {
  reg.add({
    method: 'post',
    path: '/sandbox/wallet/cross-device',
    auth: 'sandbox',
    summary: 'The reference wallet answers a cross-device openid4vp:// link as the given persona',
    handler: async (req, res) => {
      const body = jsonObjectBody(req);
      const answer = await wallet.answerCrossDevice({
        persona: requireString(body, 'persona'),
        uri: requireString(body, 'uri'),
      });
      sendJson(res, 200, { response_uri_status: answer.status, response_uri_body: answer.body });
    },
  });
}
