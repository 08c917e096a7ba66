// Owns opening an Annex C answer's HPKE ciphertext with node:crypto: RFC 9180 base mode (mode_base, no PSK),
// DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, single-shot (sequence number 0), empty aad. That is the one
// suite Annex C uses, and only the recipient's side. @hpke/core does the same through WebCrypto, where every HKDF
// step is a key import and an async HMAC: about 3 ms per answer against about 0.2 ms here (ADR 0045, "mdoc").
// The wallet side (sealing, the sandbox wallet and the independent test wallet) stays on @hpke/core, so every
// Annex C test opens a ciphertext made by another HPKE implementation.
import { createDecipheriv, createECDH, createHmac, type ECDH } from 'node:crypto';

const KEM_ID = 0x0010; // DHKEM(P-256, HKDF-SHA256)
const KDF_ID = 0x0001; // HKDF-SHA256
const AEAD_ID = 0x0001; // AES-128-GCM
const N_SECRET = 32;
const N_K = 16;
const N_N = 12;
const N_T = 16;
const N_ENC = 65;

const i2osp2 = (n: number): Buffer => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const HPKE_V1 = Buffer.from('HPKE-v1');
const KEM_SUITE = Buffer.concat([Buffer.from('KEM'), i2osp2(KEM_ID)]);
const HPKE_SUITE = Buffer.concat([Buffer.from('HPKE'), i2osp2(KEM_ID), i2osp2(KDF_ID), i2osp2(AEAD_ID)]);
const EMPTY = Buffer.alloc(0);
/** HKDF-Extract's salt when none is given: Hash.length zeros (RFC 5869 2.2). */
const ZERO_SALT = Buffer.alloc(32);
const BLOCK_1 = Buffer.from([1]);
const MODE_BASE = Buffer.from([0]);

// Every label this suite uses, with its fixed prefix, built once: an open is then six HMACs over the received
// and derived values, with no per-call concatenation of constants (ADR 0059, second amendment).
/** LabeledExtract's prefix: "HPKE-v1" || suite_id || label (RFC 9180 4). */
const extractPrefix = (suite: Buffer, label: string): Buffer =>
  Buffer.concat([HPKE_V1, suite, Buffer.from(label)]);
/** LabeledExpand's info prefix: I2OSP(L, 2) || "HPKE-v1" || suite_id || label (RFC 9180 4). */
const expandPrefix = (suite: Buffer, label: string, length: number): Buffer =>
  Buffer.concat([i2osp2(length), HPKE_V1, suite, Buffer.from(label)]);
const EAE_PRK = extractPrefix(KEM_SUITE, 'eae_prk');
const SHARED_SECRET = expandPrefix(KEM_SUITE, 'shared_secret', N_SECRET);
const INFO_HASH = extractPrefix(HPKE_SUITE, 'info_hash');
const SECRET = extractPrefix(HPKE_SUITE, 'secret');
const KEY = expandPrefix(HPKE_SUITE, 'key', N_K);
const BASE_NONCE = expandPrefix(HPKE_SUITE, 'base_nonce', N_N);

/** LabeledExtract(salt, label, ikm) with the label's prefix (HKDF-Extract: HMAC-SHA256 keyed by the salt). */
const labeledExtract = (prefix: Buffer, salt: Uint8Array, ikm: Uint8Array): Buffer =>
  createHmac('sha256', salt.length > 0 ? salt : ZERO_SALT)
    .update(prefix)
    .update(ikm)
    .digest();

/**
 * LabeledExpand(prk, label, info, L) with the label's prefix, for L <= 32: HKDF-Expand's first block T(1) =
 * HMAC(prk, labeled_info || 0x01), cut to L. Every length of this suite (Nsecret 32, Nk 16, Nn 12) is one block.
 */
const labeledExpand = (prefix: Buffer, prk: Uint8Array, info: Uint8Array, length: number): Buffer =>
  createHmac('sha256', prk).update(prefix).update(info).update(BLOCK_1).digest().subarray(0, length);

/** psk_id_hash of mode_base: LabeledExtract("", "psk_id_hash", "") (the default psk_id), the same for every open. */
const PSK_ID_HASH = labeledExtract(extractPrefix(HPKE_SUITE, 'psk_id_hash'), EMPTY, EMPTY);

/**
 * The recipient's P-256 key (private JWK): an ECDH of node:crypto holding its private scalar, and its public key
 * serialized (uncompressed point, from the JWK's x and y as before).
 * Why an ECDH and not KeyObjects: the DH takes the sender's point as bytes (computeSecret), where
 * diffieHellman() wants a KeyObject, and importing a P-256 JWK costs about as much as the DH itself (about
 * 50 µs each for the private and the public key). The ECDH with its scalar set does the same DH for about
 * 90 µs in all instead of about 200 µs (ADR 0059 amendment), and refuses a point that is not on the curve as
 * the import did (ERR_CRYPTO_ECDH_INVALID_PUBLIC_KEY).
 */
export interface HpkeRecipientKey {
  privateKey: ECDH;
  publicKeyBytes: Buffer;
}

export function hpkeRecipientKey(jwk: JsonWebKey): HpkeRecipientKey {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y || !jwk.d)
    throw new Error('an HPKE recipient key is a private P-256 JWK');
  const x = Buffer.from(jwk.x, 'base64url');
  const y = Buffer.from(jwk.y, 'base64url');
  const d = Buffer.from(jwk.d, 'base64url');
  if (x.length !== 32 || y.length !== 32 || d.length !== 32)
    throw new Error('a P-256 JWK has 32-byte coordinates and private scalar');
  // setPrivateKey refuses a scalar outside 1..n-1, as the JWK import did
  const privateKey = createECDH('prime256v1');
  privateKey.setPrivateKey(d);
  return { privateKey, publicKeyBytes: Buffer.concat([Buffer.from([4]), x, y]) };
}

/**
 * RFC 9180 OpenBase + Open for the suite above: decapsulates `enc` with the recipient key, runs the key schedule
 * with `info`, and opens `cipherText` (AES-128-GCM, tag appended, empty aad, nonce = base_nonce). Throws when the
 * encapsulated key is not a P-256 point or the AEAD does not open (another key, info, enc or ciphertext).
 */
export function hpkeOpenBase(input: {
  recipient: HpkeRecipientKey;
  enc: Uint8Array;
  info: Uint8Array;
  cipherText: Uint8Array;
}): Buffer {
  const { recipient, enc, info, cipherText } = input;
  if (enc.length !== N_ENC || enc[0] !== 4) throw new Error('enc is not an uncompressed P-256 point');
  if (cipherText.length < N_T) throw new Error('the ciphertext is shorter than its tag');
  // Decap: DH(skR, pkE), then ExtractAndExpand over kem_context = enc || pkRm. node:crypto refuses a point that
  // is not on the curve.
  const dh = recipient.privateKey.computeSecret(enc);
  const eaePrk = labeledExtract(EAE_PRK, EMPTY, dh);
  // kem_context = enc || pkRm, given to the HMAC in its two parts (the same bytes, no concatenation)
  const sharedSecret = createHmac('sha256', eaePrk)
    .update(SHARED_SECRET)
    .update(enc)
    .update(recipient.publicKeyBytes)
    .update(BLOCK_1)
    .digest();
  // KeySchedule, mode_base (0x00), default PSK and PSK id (empty).
  const infoHash = labeledExtract(INFO_HASH, EMPTY, info);
  const context = Buffer.concat([MODE_BASE, PSK_ID_HASH, infoHash]);
  const secret = labeledExtract(SECRET, sharedSecret, EMPTY);
  const key = labeledExpand(KEY, secret, context, N_K);
  const baseNonce = labeledExpand(BASE_NONCE, secret, context, N_N);
  // Open with sequence number 0: the nonce is base_nonce itself.
  // aad is empty: GCM without setAAD authenticates exactly that (RFC 9180 5.2, Open(key, nonce, aad = "", ct))
  const decipher = createDecipheriv('aes-128-gcm', key, baseNonce, { authTagLength: N_T });
  decipher.setAuthTag(cipherText.subarray(cipherText.length - N_T));
  const plaintext = decipher.update(cipherText.subarray(0, cipherText.length - N_T));
  // final() checks the tag (it throws on any change); GCM returns no more bytes from it, so the plaintext is
  // update's buffer as it is, not a copy joined with an empty one (a pooled allocation per answer)
  const rest = decipher.final();
  return rest.length === 0 ? plaintext : Buffer.concat([plaintext, rest]);
}
