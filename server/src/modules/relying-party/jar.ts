// Owns signed request objects (JAR, RFC 9101, as profiled by OpenID4VP 1.0 and HAIP) for the two signed
// transports: the W3C Digital Credentials API (`openid4vp-v1-signed`, response_mode dc_api.jwt, expected_origins)
// and cross-device (QR / `openid4vp://` link with request_uri, response_mode direct_post.jwt, response_uri).
// Both start from the step's unsigned request (primitives.ts), add the x509 client identifier, the ephemeral
// response-encryption key and the response mode, and are signed by @openid4vc/openid4vp's
// createOpenid4vpAuthorizationRequest (typ oauth-authz-req+jwt, ES256, x5c without the root) with our key.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { exportJWK, importX509, type JWK } from 'jose';
import { RESPONSE_ENCRYPTION_ENC_VALUES } from './response-encryption';
import type { VerifierIdentity } from './verifier-identity';

export const SIGNED_DC_API_PROTOCOL = 'openid4vp-v1-signed';
export const JAR_TYP = 'oauth-authz-req+jwt';
export const JAR_CONTENT_TYPE = 'application/oauth-authz-req+jwt';
/** Static `aud` of a request object when the wallet's issuer is not discovered (OpenID4VP §5.8). */
export const SELF_ISSUED_AUD = 'https://self-issued.me/v2';

type Json = Record<string, unknown>;

export interface SignedRequest {
  /** The authorization request parameters inside the JAR (what the response is verified against). */
  payload: Json;
  /** The compact JWS. */
  requestObject: string;
}

function withEncryption(base: Json, responseJwk: JWK): Json {
  const meta = (base.client_metadata ?? {}) as Json;
  return {
    ...meta,
    jwks: { keys: [responseJwk] },
    encrypted_response_enc_values_supported: [...RESPONSE_ENCRYPTION_ENC_VALUES],
  };
}

async function sign(
  identity: VerifierIdentity,
  payload: Json,
  opts: { requestUri?: string; now: Date; expiresAt: Date; leafOnly?: boolean; walletNonce?: string },
) {
  const leaf = await importX509(
    `-----BEGIN CERTIFICATE-----\n${identity.x5c[0]}\n-----END CERTIFICATE-----`,
    'ES256',
    { extractable: true },
  );
  const signerJwk = await exportJWK(leaf);
  return createOpenid4vpAuthorizationRequest({
    // The library's payload type is a zod output type; ours is the same JSON object.
    authorizationRequestPayload: payload as Parameters<
      typeof createOpenid4vpAuthorizationRequest
    >[0]['authorizationRequestPayload'],
    jar: {
      // leafOnly: the German rule, only the access certificate in x5c (ADR 0050); else leaf and intermediates
      jwtSigner: {
        method: 'x5c',
        alg: 'ES256',
        x5c: opts.leafOnly ? identity.x5c.slice(0, 1) : identity.x5c,
      },
      requestUri: opts.requestUri,
      expiresInSeconds: Math.max(1, Math.floor((opts.expiresAt.getTime() - opts.now.getTime()) / 1000)),
      // iat/exp from our clock (the library would take the system time for them)
      additionalJwtPayload: {
        aud: SELF_ISSUED_AUD,
        iat: Math.floor(opts.now.getTime() / 1000),
        exp: Math.floor(opts.expiresAt.getTime() / 1000),
        // request_uri_method=post: the wallet's nonce, echoed so it knows the object is fresh (OpenID4VP §5.10)
        ...(opts.walletNonce !== undefined ? { wallet_nonce: opts.walletNonce } : {}),
      },
    },
    callbacks: {
      signJwt: async (_signer, jwt) => ({
        jwt: await identity.sign({ ...jwt.header, typ: JAR_TYP }, jwt.payload as Json),
        signerJwk: { ...signerJwk, kty: signerJwk.kty ?? 'EC' },
      }),
      encryptJwe: () => {
        throw new Error('request objects are signed, not encrypted');
      },
    },
    now: opts.now,
  });
}

/** The signed request for `navigator.credentials.get` with protocol openid4vp-v1-signed: data = {request}. */
export async function buildSignedDcApiRequest(opts: {
  base: Json;
  identity: VerifierIdentity;
  origin: string;
  responseJwk: JWK;
  now: Date;
  expiresAt: Date;
  leafOnly?: boolean;
}): Promise<SignedRequest> {
  const payload: Json = {
    ...opts.base,
    client_id: opts.identity.clientId,
    response_mode: 'dc_api.jwt',
    expected_origins: [opts.origin],
    client_metadata: withEncryption(opts.base, opts.responseJwk),
  };
  const created = await sign(opts.identity, payload, opts);
  if (!created.jar) throw new Error('no request object was created');
  return { payload, requestObject: created.jar.authorizationRequestJwt };
}

/** The cross-device request: its JAR is served at request_uri; `uri` is the openid4vp:// link for the QR code. */
export async function buildCrossDeviceRequest(opts: {
  base: Json;
  identity: VerifierIdentity;
  requestId: string;
  requestUri: string;
  responseUri: string;
  responseJwk: JWK;
  now: Date;
  expiresAt: Date;
  leafOnly?: boolean;
}): Promise<SignedRequest & { uri: string }> {
  const { response_mode: _unsigned, ...base } = opts.base;
  const payload: Json = {
    ...base,
    client_id: opts.identity.clientId,
    response_mode: 'direct_post.jwt',
    response_uri: opts.responseUri,
    // the wallet echoes state; it names the request, which is already public in the URIs
    state: opts.requestId,
    client_metadata: withEncryption(opts.base, opts.responseJwk),
  };
  const created = await sign(opts.identity, payload, opts);
  if (!created.jar) throw new Error('no request object was created');
  // request_uri_method=post: a wallet that can may POST its metadata and a nonce to request_uri; one that
  // cannot keeps GETting it (OpenID4VP §5.10). The library has no option for it, so it goes on the link here.
  const link = new URL(created.authorizationRequest);
  link.searchParams.set('request_uri_method', 'post');
  return { payload, requestObject: created.jar.authorizationRequestJwt, uri: link.toString() };
}

/**
 * The cross-device request object again, for a wallet that POSTed to request_uri: the same stored request
 * parameters (what the answer is verified against), signed now and carrying the wallet's nonce.
 */
export async function resignForWallet(opts: {
  payload: Json;
  identity: VerifierIdentity;
  requestUri: string;
  walletNonce?: string;
  leafOnly?: boolean;
  now: Date;
  expiresAt: Date;
}): Promise<string> {
  const created = await sign(opts.identity, opts.payload, opts);
  if (!created.jar) throw new Error('no request object was created');
  return created.jar.authorizationRequestJwt;
}

/**
 * @openid4vc/* refuse http:// response_uri/request_uri unless their process-wide `allowInsecureUrls` is set.
 * Local development and the test suite serve the hosted page over http://, so createService turns it on only
 * when HOSTED_URL is http:// outside production. The setter lives in @openid4vc/utils, which is not our
 * direct dependency: resolve the copy that @openid4vc/openid4vp itself uses, so it is the same module instance.
 */
export async function allowInsecureWalletUrls(): Promise<void> {
  const vp = createRequire(import.meta.url).resolve('@openid4vc/openid4vp');
  const utilsPath = createRequire(vp).resolve('@openid4vc/utils');
  const utils = (await import(pathToFileURL(utilsPath).href)) as {
    setGlobalConfig(config: { allowInsecureUrls: boolean }): void;
  };
  utils.setGlobalConfig({ allowInsecureUrls: true });
}
