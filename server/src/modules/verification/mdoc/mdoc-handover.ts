// Owns the OpenID4VP side of an mdoc answer's binding: the SessionTranscript of one of our requests (DC API
// handover or redirect handover, with the response-encryption key thumbprint when encrypted), which handover a
// stored request uses, and whether a wallet's answer is for one of the request's mso_mdoc queries.
import { hash } from 'node:crypto';
import { SessionTranscript } from '@owf/mdoc';
import { base64url, calculateJwkThumbprint, type JWK } from 'jose';
import { mdocContext } from './mdoc-context';
import { MDOC_FORMAT } from './mdoc-query';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where the device signature's SessionTranscript comes from (see mdocHandoverOf). */
export interface MdocHandover {
  /** DC API: the origin of the hosted page as the browser reports it (no `origin:` prefix). */
  origin?: string;
  /** Redirect / cross-device (OpenID4VPHandover): the client_id (with prefix) and response_uri of the request. */
  redirect?: { clientId: string; responseUri: string };
  /** The verifier's response-encryption public JWK when the response came encrypted (its thumbprint is in the handover). */
  responseEncryptionJwk?: JWK;
}

/**
 * RFC 7638 SHA-256 thumbprint (base64url) of a JWK: an EC key hashed here, synchronously (jose's goes through
 * WebCrypto's async digest, about a quarter of an mdoc verification's CPU; ADR 0045 amendment), other kinds by jose.
 */
export async function ecThumbprint(jwk: JWK): Promise<string> {
  if (
    jwk.kty !== 'EC' ||
    typeof jwk.crv !== 'string' ||
    typeof jwk.x !== 'string' ||
    typeof jwk.y !== 'string'
  )
    return calculateJwkThumbprint(jwk, 'sha256');
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return hash('sha256', members, 'base64url'); // one-shot: no Hash object per verification
}

/** The SessionTranscript this request binds the device signature to (OpenID4VP 1.0 Appendix B.2.6). */
export async function mdocSessionTranscript(input: {
  nonce: string;
  origin?: string;
  redirect?: { clientId: string; responseUri: string };
  responseEncryptionJwk?: JWK;
}): Promise<SessionTranscript> {
  const jwkThumbprint = input.responseEncryptionJwk
    ? base64url.decode(await ecThumbprint(input.responseEncryptionJwk))
    : undefined;
  if (input.redirect) {
    return SessionTranscript.forOid4Vp(
      {
        clientId: input.redirect.clientId,
        responseUri: input.redirect.responseUri,
        nonce: input.nonce,
        jwkThumbprint,
      },
      mdocContext,
    );
  }
  if (!input.origin)
    throw new Error('an mdoc session transcript needs the origin (DC API) or the redirect handover');
  return SessionTranscript.forOid4VpDcApi(
    { origin: input.origin, nonce: input.nonce, jwkThumbprint },
    mdocContext,
  );
}

/**
 * Dispatch by format: whether the wallet's (decrypted) answer is for one of the request's mso_mdoc credential
 * queries. The vp_token keys are credential query ids; the query says the format.
 */
export function answersMdocQuery(request: Record<string, unknown>, response: unknown): boolean {
  let vp = isObject(response) ? response.vp_token : undefined;
  if (typeof vp === 'string') {
    try {
      vp = JSON.parse(vp);
    } catch {
      return false;
    }
  }
  if (!isObject(vp)) return false;
  const credentials = (
    request.dcql_query as { credentials?: { id?: unknown; format?: unknown }[] } | undefined
  )?.credentials;
  const mdocIds = new Set((credentials ?? []).filter((c) => c.format === MDOC_FORMAT).map((c) => c.id));
  return Object.keys(vp).some((id) => mdocIds.has(id));
}

/**
 * The handover parameters of one of our stored requests: DC API modes bind the page origin (the audience
 * `origin:<origin>` without its prefix); direct_post modes bind client_id and response_uri; the encrypted modes
 * (dc_api.jwt, direct_post.jwt) also bind the thumbprint of the response-encryption key sent in
 * client_metadata.jwks.
 */
export function mdocHandoverOf(request: Record<string, unknown>, expectedAudience: string): MdocHandover {
  const mode = String(request.response_mode ?? '');
  const keys = (
    (request.client_metadata as { jwks?: { keys?: unknown[] } } | undefined)?.jwks?.keys ?? []
  ).filter(isObject);
  const encryptionJwk = mode.endsWith('.jwt') ? (keys.find((k) => k.use === 'enc') ?? keys[0]) : undefined;
  const responseEncryptionJwk = encryptionJwk ? publicMembers(encryptionJwk) : undefined;
  if (mode.startsWith('direct_post')) {
    return {
      redirect: { clientId: String(request.client_id), responseUri: String(request.response_uri) },
      responseEncryptionJwk,
    };
  }
  return { origin: expectedAudience.replace(/^origin:/, ''), responseEncryptionJwk };
}

/** The RFC 7638 members of a public JWK (what its thumbprint is computed over). */
function publicMembers(jwk: Json): JWK {
  const { kty, crv, x, y, n, e } = jwk as Record<string, string | undefined>;
  return Object.fromEntries(
    Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined),
  ) as JWK;
}
