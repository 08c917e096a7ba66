// The independent wallet over cross-device OpenID4VP (openid4vp:// link, request_uri, direct_post.jwt), with
// node:crypto and jose only: it fetches the signed request object, checks it like a phone wallet (typ, ES256,
// the x5c leaf chaining to the verifier root it was given, client_id = x509_hash:<SHA-256 of the leaf>), answers
// the mso_mdoc query with the OpenID4VP redirect handover
// ["OpenID4VPHandover", SHA-256(CBOR [client_id, nonce, jwk thumbprint, response_uri])], encrypts the response
// (ECDH-ES, A128GCM, kid of the request's key) and POSTs it form-encoded to response_uri.
import { createHash, X509Certificate } from 'node:crypto';
import { base64url, CompactEncrypt, calculateJwkThumbprint, compactVerify, importJWK, type JWK } from 'jose';
import type { AnnexCOverrides, AnnexCWallet } from './annex-c-wallet';

type Json = Record<string, unknown>;

/** Fetches and checks the request object behind an openid4vp:// link; returns its payload. */
export async function resolveRequest(uri: string, verifierRootPem: string): Promise<Json> {
  const link = new URL(uri);
  const clientId = link.searchParams.get('client_id') ?? '';
  const requestUri = link.searchParams.get('request_uri') ?? '';
  const res = await fetch(requestUri);
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('application/oauth-authz-req+jwt'))
    throw new Error(`request_uri answered ${res.status}`);
  const claims = await checkRequestObject(await res.text(), verifierRootPem);
  if (claims.client_id !== clientId || claims.response_mode !== 'direct_post.jwt')
    throw new Error('request object does not match the link');
  return claims;
}

/**
 * Checks a signed request object like a phone wallet: typ, ES256, the x5c chain (root dropped) to the
 * verifier root it was given, and client_id = x509_hash:<SHA-256 of the leaf>. Returns its claims.
 */
export async function checkRequestObject(jar: string, verifierRootPem: string): Promise<Json> {
  const header = JSON.parse(Buffer.from(jar.split('.')[0] as string, 'base64url').toString('utf8')) as Json;
  if (header.typ !== 'oauth-authz-req+jwt' || header.alg !== 'ES256')
    throw new Error('not a signed request object');
  const chain = (header.x5c as string[]).map((c) => new X509Certificate(Buffer.from(c, 'base64')));
  const root = new X509Certificate(verifierRootPem);
  const leaf = chain[0] as X509Certificate;
  for (let i = 0; i < chain.length; i++) {
    const issuer = chain[i + 1] ?? root;
    if (!(chain[i] as X509Certificate).verify(issuer.publicKey))
      throw new Error('x5c does not chain to the root');
  }
  const { payload } = await compactVerify(jar, leaf.publicKey);
  const claims = JSON.parse(new TextDecoder().decode(payload)) as Json;
  const leafHash = createHash('sha256').update(leaf.raw).digest('base64url');
  if (claims.client_id !== `x509_hash:${leafHash}`)
    throw new Error('client_id is not the x509_hash of the leaf');
  return claims;
}

/** The JWE a wallet sends for an encrypted response: ECDH-ES + A128GCM to the request's key, its kid echoed. */
export async function encryptToRequestKey(
  request: Json,
  params: Json,
  enc: 'A128GCM' | 'A256GCM' = 'A128GCM',
): Promise<string> {
  const key = ((request.client_metadata as Json).jwks as { keys: JWK[] }).keys[0] as JWK;
  const { kty, crv, x, y } = key;
  const offered = (request.client_metadata as Json).encrypted_response_enc_values_supported as
    | string[]
    | undefined;
  if (!(offered ?? ['A128GCM']).includes(enc)) throw new Error(`the verifier does not offer ${enc}`);
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(params)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: key.kid })
    .encrypt(await importJWK({ kty, crv, x, y }, 'ECDH-ES'));
}

/** The RFC 7638 thumbprint (bytes) of the request's response-encryption key, as the mdoc handovers bind it. */
export async function requestKeyThumbprint(request: Json): Promise<Uint8Array> {
  const { kty, crv, x, y } = ((request.client_metadata as Json).jwks as { keys: JWK[] }).keys[0] as JWK;
  return base64url.decode(await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256'));
}

/**
 * The signed DC API request (`openid4vp-v1-signed`, response_mode dc_api.jwt) answered with an mdoc: the page's
 * origin must be in expected_origins; the handover is OpenID4VPDCAPIHandover [origin, nonce, key thumbprint];
 * the answer is `{response: <JWE>}`.
 */
export async function answerSignedDcApiMdoc(input: {
  jar: string;
  verifierRootPem: string;
  origin: string;
  wallet: AnnexCWallet;
}): Promise<{ response: string }> {
  const request = await checkRequestObject(input.jar, input.verifierRootPem);
  if (request.response_mode !== 'dc_api.jwt') throw new Error('not a signed DC API request');
  if (!(request.expected_origins as string[] | undefined)?.includes(input.origin))
    throw new Error('this origin is not among expected_origins');
  const { vp_token } = input.wallet.answerWithHandover(request, 'OpenID4VPDCAPIHandover', [
    input.origin,
    request.nonce,
    await requestKeyThumbprint(request),
  ]);
  return { response: await encryptToRequestKey(request, { vp_token }) };
}

/** Answers a resolved cross-device request with an mdoc, encrypted to the request's key, and POSTs it. */
export async function answerCrossDeviceMdoc(input: {
  request: Json;
  wallet: AnnexCWallet;
  overrides?: AnnexCOverrides & { handoverClientId?: string };
  enc?: 'A128GCM' | 'A256GCM';
}): Promise<{ status: number; body: Json }> {
  const { request } = input;
  const thumbprint = await requestKeyThumbprint(request);
  const { vp_token } = input.wallet.answerWithHandover(
    request,
    'OpenID4VPHandover',
    [input.overrides?.handoverClientId ?? request.client_id, request.nonce, thumbprint, request.response_uri],
    input.overrides,
  );
  const jwe = await encryptToRequestKey(request, { vp_token, state: request.state }, input.enc);
  const res = await fetch(String(request.response_uri), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ response: jwe }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Json };
}
