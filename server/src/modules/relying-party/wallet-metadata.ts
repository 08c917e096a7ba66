// Owns what a wallet tells us when it POSTs to request_uri (OpenID4VP 1.0 §5.10, `request_uri_method=post`):
// the form fields `wallet_metadata` (a JSON object, §10) and `wallet_nonce`, read into the few facts that change
// the request object we answer with: the nonce to echo, whether the wallet can verify our signature (ES256) and
// our client identifier prefix (x509_hash), and the key and algorithms to encrypt the request object to when
// the wallet asks for an encrypted one. Anything malformed, or a wallet that can verify nothing we can sign, is
// `wallet_metadata_invalid` with the field in `param` (ADR 0050).
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { AppError } from '../../common/errors';

/** What we sign request objects with, and the client identifier prefix of our signed requests. */
export const REQUEST_OBJECT_SIGNING_ALG = 'ES256';
export const CLIENT_ID_PREFIX = 'x509_hash';
/** Request-object encryption we can do (ECDH-ES on P-256, as HAIP uses for responses). */
const ENCRYPTION_ALGS = ['ECDH-ES'] as const;
const ENCRYPTION_ENCS = ['A256GCM', 'A128GCM'] as const;
const MAX_WALLET_NONCE = 512;

type Json = Record<string, unknown>;

export interface WalletPost {
  walletNonce?: string;
  /** Set when the wallet asked for an encrypted request object and we can do it. */
  encryptTo?: { jwk: JWK; alg: (typeof ENCRYPTION_ALGS)[number]; enc: (typeof ENCRYPTION_ENCS)[number] };
}

const bad = (param: string, detail: string): never => {
  throw new AppError('wallet_metadata_invalid', detail, { param });
};

function stringList(meta: Json, name: string): string[] | undefined {
  const v = meta[name];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x.length <= 200)) {
    return bad(`wallet_metadata.${name}`, `${name} must be a non-empty array of strings.`);
  }
  return v as string[];
}

/** Reads the POSTed form (already parsed from application/x-www-form-urlencoded). */
export function readWalletPost(form: Json): WalletPost {
  const nonce = form.wallet_nonce;
  if (
    nonce !== undefined &&
    (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > MAX_WALLET_NONCE)
  )
    bad('wallet_nonce', `wallet_nonce must be a string of 1 to ${MAX_WALLET_NONCE} characters.`);
  const raw = form.wallet_metadata;
  if (raw === undefined) return nonce === undefined ? {} : { walletNonce: nonce as string };
  let meta: unknown;
  try {
    meta = typeof raw === 'string' ? JSON.parse(raw) : undefined;
  } catch {
    meta = undefined;
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
    return bad('wallet_metadata', 'wallet_metadata must be a JSON object.');
  const m = meta as Json;
  const algs = stringList(m, 'request_object_signing_alg_values_supported');
  if (algs && !algs.includes(REQUEST_OBJECT_SIGNING_ALG))
    bad(
      'wallet_metadata.request_object_signing_alg_values_supported',
      `We sign request objects with ${REQUEST_OBJECT_SIGNING_ALG} only; the wallet supports none of it.`,
    );
  const prefixes = stringList(m, 'client_id_prefixes_supported');
  if (prefixes && !prefixes.includes(CLIENT_ID_PREFIX))
    bad(
      'wallet_metadata.client_id_prefixes_supported',
      `Our client identifier uses the ${CLIENT_ID_PREFIX} prefix; the wallet supports none of it.`,
    );
  const encAlgs = stringList(m, 'request_object_encryption_alg_values_supported');
  const encEncs = stringList(m, 'request_object_encryption_enc_values_supported');
  const out: WalletPost = nonce === undefined ? {} : { walletNonce: nonce as string };
  if (!encAlgs) return out;
  // The wallet asks for an encrypted request object: it needs a key we can encrypt to and algorithms we share.
  const alg = ENCRYPTION_ALGS.find((a) => encAlgs.includes(a));
  if (!alg)
    bad(
      'wallet_metadata.request_object_encryption_alg_values_supported',
      `We encrypt request objects with ${ENCRYPTION_ALGS.join(', ')} only.`,
    );
  const enc = ENCRYPTION_ENCS.find((e) => (encEncs ?? ['A128GCM']).includes(e));
  if (!enc)
    bad(
      'wallet_metadata.request_object_encryption_enc_values_supported',
      `We encrypt request objects with ${ENCRYPTION_ENCS.join(' or ')} only.`,
    );
  const keys = (m.jwks as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(keys))
    return bad('wallet_metadata.jwks', 'An encrypted request object needs jwks.keys.');
  const jwk = (keys as JWK[]).find(
    (k) =>
      typeof k === 'object' &&
      k !== null &&
      k.kty === 'EC' &&
      k.crv === 'P-256' &&
      typeof k.x === 'string' &&
      typeof k.y === 'string' &&
      k.d === undefined &&
      (k.use === undefined || k.use === 'enc'),
  );
  if (!jwk) return bad('wallet_metadata.jwks', 'jwks.keys holds no public EC P-256 encryption key.');
  return { ...out, encryptTo: { jwk, alg: alg as 'ECDH-ES', enc: enc as 'A256GCM' | 'A128GCM' } };
}

/** The signed request object as a nested JWT encrypted to the wallet's key (RFC 7519 §5.2: cty JWT). */
export async function encryptRequestObject(
  jws: string,
  to: NonNullable<WalletPost['encryptTo']>,
): Promise<string> {
  const { kty, crv, x, y } = to.jwk;
  try {
    const key = await importJWK({ kty, crv, x, y }, to.alg);
    return await new CompactEncrypt(new TextEncoder().encode(jws))
      .setProtectedHeader({
        alg: to.alg,
        enc: to.enc,
        cty: 'JWT',
        ...(to.jwk.kid ? { kid: to.jwk.kid } : {}),
      })
      .encrypt(key);
  } catch (e) {
    throw new AppError('wallet_metadata_invalid', 'The wallet’s encryption key is not a valid P-256 key.', {
      param: 'wallet_metadata.jwks',
      cause: e,
    });
  }
}
