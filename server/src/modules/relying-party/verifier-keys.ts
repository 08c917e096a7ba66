// Owns the pieces every verifier signing identity shares, whichever chain it signs under (the self-made local
// chain, an imported access certificate, a registrar-issued business leaf): P-256 keys sealed under the local
// master key, and turning a key + chain into a VerifierIdentity (x509_hash client id, x5c without the root).
import { createHash, createPublicKey, webcrypto } from 'node:crypto';
import { calculateX509HashClientIdPrefixValue } from '@openid4vc/openid4vp';
import * as x509 from '@peculiar/x509';
import { CompactSign, importJWK, type JWK } from 'jose';
import type { KeySealer } from '../kms/key-sealer';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
export const DAY_MS = 86_400_000;

export interface VerifierIdentity {
  host: string;
  /** `x509_hash:<base64url sha-256 of the leaf DER>`. */
  clientId: string;
  /** `x509_san_dns:<host>`: the same leaf, named by its SAN. */
  sanDnsClientId: string;
  /** base64 DER, leaf first, without the root. */
  x5c: string[];
  /** base64 DER of the trust anchor. */
  rootCertificate: string;
  /** PEM of the trust anchor, for wallets that want to trust this verifier. */
  rootPem: string;
  notAfter: Date;
  /** Signs a compact JWS with the leaf key (ES256); the caller sets typ and x5c in the header. */
  sign(header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string>;
}

export const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest());

/** A fresh extractable P-256 key pair: its public JWK and the private JWK sealed under `aad`. */
export async function newSealedKey(
  sealer: KeySealer,
  aad: string,
): Promise<{ publicJwk: JWK; privateKeyEnc: string; keys: CryptoKeyPair }> {
  const keys = (await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as unknown as CryptoKeyPair;
  const priv = await webcrypto.subtle.exportKey('jwk', keys.privateKey as never);
  const { kty, crv, x, y } = priv;
  return {
    publicJwk: { kty, crv, x, y } as JWK,
    privateKeyEnc: sealer.seal(aad, Buffer.from(JSON.stringify(priv))),
    keys,
  };
}

export function openSealedJwk(sealer: KeySealer, aad: string, sealed: string): JWK {
  return JSON.parse(sealer.open(aad, sealed).toString('utf8')) as JWK;
}

/** The WebCrypto key pair of a sealed private JWK (for @peculiar/x509: CSRs and certificates). */
export async function cryptoKeyPair(privateJwk: JWK): Promise<CryptoKeyPair> {
  const { kty, crv, x, y, d } = privateJwk;
  const privateKey = await webcrypto.subtle.importKey('jwk', { kty, crv, x, y, d }, EC, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', { kty, crv, x, y }, EC, true, ['verify']);
  return { privateKey, publicKey } as unknown as CryptoKeyPair;
}

/** DER SubjectPublicKeyInfo of a public JWK, to compare with a certificate's key. */
export const spkiOfJwk = (jwk: JWK): Buffer =>
  createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'der' });

export async function identityFrom(opts: {
  host: string;
  x5c: string[];
  rootCertificate: string;
  notAfter: Date;
  privateJwk: JWK;
}): Promise<VerifierIdentity> {
  const leafDer = Buffer.from(opts.x5c[0] as string, 'base64');
  const hash = await calculateX509HashClientIdPrefixValue({
    x509Certificate: new Uint8Array(leafDer),
    hash: (data) => sha256(data),
  });
  const key = await importJWK({ ...opts.privateJwk, key_ops: undefined, ext: undefined }, 'ES256');
  return {
    host: opts.host,
    clientId: `x509_hash:${hash}`,
    sanDnsClientId: `x509_san_dns:${opts.host}`,
    x5c: opts.x5c,
    rootCertificate: opts.rootCertificate,
    rootPem: new x509.X509Certificate(Buffer.from(opts.rootCertificate, 'base64')).toString('pem'),
    notAfter: opts.notAfter,
    sign: (header, payload) =>
      new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ ...header, alg: 'ES256' })
        .sign(key),
  };
}
