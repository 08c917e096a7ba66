// Owns the crypto callbacks @owf/mdoc needs (its `MdocContext`): digests and randomness (node:crypto), COSE_Sign1
// sign/verify over the library's to-be-signed bytes (node:crypto ECDSA, raw r||s signatures), and the X.509 side
// (@peculiar/x509): subject/issuer fields, the public key of a certificate and the path validation from a
// document signer certificate to one of the trusted IACA roots. Device MAC (mdoc reader ephemeral keys) is not
// used by OpenID4VP and is refused. The library builds and parses the COSE/CBOR structures itself.
// A verifier builds its context with createMdocContext(new CertificateCache()): parsed certificates, their
// public keys and verified certificate signatures are then kept per service instance, keyed by DER hash.
import {
  createPrivateKey,
  createPublicKey,
  hash,
  type KeyObject,
  type JsonWebKey as NodeJwk,
  X509Certificate as NodeX509Certificate,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { CoseKey, Curve, type MdocContext, type Sign1 } from '@owf/mdoc';
import { BasicConstraintsExtension, X509Certificate } from '@peculiar/x509';

/** COSE signature algorithms we accept (issuer and device), with their curve and hash. */
const ALGS = {
  ES256: { curve: 'P-256', hash: 'sha256' },
  // COSE -9 (RFC 9864): the same ECDSA P-256/SHA-256 as -7, fully specified; @owf/mdoc names it through our
  // patch (patches/@owf__mdoc@0.6.0.patch). HAIP 1.0: ES256 is -7 or -9 (ADR 0050).
  ESP256: { curve: 'P-256', hash: 'sha256' },
  ES384: { curve: 'P-384', hash: 'sha384' },
  ES512: { curve: 'P-521', hash: 'sha512' },
} as const;
type AlgName = keyof typeof ALGS;
const CURVE_NAMES: Partial<Record<number, string>> = {
  [Curve['P-256']]: 'P-256',
  [Curve['P-384']]: 'P-384',
  [Curve['P-521']]: 'P-521',
};
/** node:crypto's names of the MSO digest algorithms (ISO 18013-5 9.1.2.5). */
const DIGESTS: Partial<Record<string, string>> = {
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
};
/**
 * A digest as a plain Uint8Array: the one-shot crypto.hash (no Hash object per digest; a verification makes one
 * per disclosed element), viewed without a copy.
 */
function digestOf(algorithm: string, bytes: Uint8Array): Uint8Array {
  const d = hash(algorithm, bytes, 'buffer');
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}
/** Longest issuer path we follow from the document signer to an anchor (DS, intermediates, IACA). */
const MAX_PATH = 4;

const isAlg = (a: unknown): a is AlgName => typeof a === 'string' && Object.hasOwn(ALGS, a);
const b64u = (b: Uint8Array | undefined): string | undefined =>
  b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64url') : undefined;

/**
 * The public JWK of each decoded CoseKey already converted (a verification converts the device key twice: for its
 * signature and for the result). Keyed by the key object, which is read only; private keys are never kept.
 */
const publicJwks = new WeakMap<CoseKey, JsonWebKey>();

/** An EC CoseKey as a JWK node:crypto can import (public, or private when the key has `d`). */
export function coseKeyToEcJwk(key: CoseKey): JsonWebKey {
  const known = publicJwks.get(key);
  if (known) return { ...known };
  const crv = key.curve !== undefined ? CURVE_NAMES[key.curve as number] : undefined;
  if (!crv || !key.x || !key.y) throw new Error('only EC P-256/P-384/P-521 COSE keys are supported');
  const jwk: JsonWebKey = { kty: 'EC', crv, x: b64u(key.x), y: b64u(key.y) };
  if (key.d) jwk.d = b64u(key.d);
  else publicJwks.set(key, { ...jwk });
  return jwk;
}

function verifySign1(sign1: Sign1, key: CoseKey, certs?: CertificateCache): boolean {
  const alg = sign1.signatureAlgorithmName;
  if (!isAlg(alg)) return false; // never `none`, never an algorithm we did not choose
  const jwk = coseKeyToEcJwk(key);
  if (jwk.crv !== ALGS[alg].curve) return false;
  const publicKey =
    certs?.keyObjectOf(key) ??
    certs?.deviceKeyObject(jwk) ??
    createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
  return verify(
    ALGS[alg].hash,
    sign1.toBeSigned,
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    sign1.signature,
  );
}

function signSign1(toBeSigned: Uint8Array, key: CoseKey, algorithm: unknown): Uint8Array {
  const alg =
    algorithm === -7
      ? 'ES256'
      : algorithm === -9
        ? 'ESP256'
        : algorithm === -35
          ? 'ES384'
          : algorithm === -36
            ? 'ES512'
            : algorithm;
  if (!isAlg(alg)) throw new Error(`unsupported COSE signature algorithm ${String(algorithm)}`);
  const privateKey = createPrivateKey({ key: coseKeyToEcJwk(key) as NodeJwk, format: 'jwk' });
  return new Uint8Array(sign(ALGS[alg].hash, toBeSigned, { key: privateKey, dsaEncoding: 'ieee-p1363' }));
}

/** A certificate from DER (copied: @peculiar/x509 wants an ArrayBuffer-backed view). */
export const x509Of = (der: Uint8Array): X509Certificate => new X509Certificate(new Uint8Array(der));

type CertificateData = Awaited<ReturnType<MdocContext['x509']['getCertificateData']>>;

/**
 * What an mdoc verifier learns from certificate bytes, kept per service instance (never a module global): the
 * parsed certificate, its public key, its certificate data (thumbprint...) and whether it is signed by another
 * certificate, each keyed by the SHA-256 of the DER bytes (of both certificates for a signature). All are pure
 * functions of those bytes, so an entry never goes stale and needs no invalidation; the decisions that depend on
 * time or on what is trusted (validity at `now`, CA flags, which anchors a docType trusts) are still made on every
 * call. Bounded: the oldest entry goes when a map is full. The issuer's and trust anchors' certificates repeat on
 * every verification, so the cache turns their parsing and the chain's ECDSA verifications into lookups.
 */
export class CertificateCache {
  private readonly certs = new Map<string, X509Certificate>();
  private readonly keys = new Map<string, CoseKey>();
  private readonly data = new Map<string, CertificateData>();
  private readonly signatures = new Map<string, boolean>();
  private readonly deviceKeys = new Map<string, KeyObject>();
  private readonly keyObjects = new WeakMap<CoseKey, KeyObject>();
  private readonly hashes = new WeakMap<X509Certificate, string>();

  constructor(private readonly maxEntries = 512) {}

  static hashOf(der: Uint8Array): string {
    return hash('sha256', der, 'base64url');
  }

  /**
   * hashOf, once per byte array: a verification looks up the same x5chain and anchor arrays several times (path
   * validation, the issuer name, the key, the certificate data). The arrays are the decoder's views of received
   * bytes and the trust store's DER, neither written to after.
   */
  private readonly arrayHashes = new WeakMap<Uint8Array, string>();
  private hashOfArray(der: Uint8Array): string {
    let h = this.arrayHashes.get(der);
    if (h === undefined) {
      h = CertificateCache.hashOf(der);
      this.arrayHashes.set(der, h);
    }
    return h;
  }

  private remember<T>(map: Map<string, T>, key: string, value: T): T {
    if (map.size >= this.maxEntries) map.delete(map.keys().next().value as string);
    map.set(key, value);
    return value;
  }

  cert(der: Uint8Array): X509Certificate {
    const h = this.hashOfArray(der);
    const hit = this.certs.get(h);
    if (hit) return hit;
    const parsed = x509Of(der);
    this.hashes.set(parsed, h);
    return this.remember(this.certs, h, parsed);
  }

  publicKey(der: Uint8Array): CoseKey {
    const h = this.hashOfArray(der);
    const hit = this.keys.get(h);
    if (hit) return hit;
    const key = publicKeyOf(der);
    const jwk = coseKeyToEcJwk(key);
    this.keyObjects.set(
      key,
      createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' }),
    );
    return this.remember(this.keys, h, key);
  }

  async certificateData(der: Uint8Array): Promise<CertificateData> {
    const h = this.hashOfArray(der);
    return this.data.get(h) ?? this.remember(this.data, h, await certificateDataOf(this.cert(der)));
  }

  /**
   * The node:crypto public key of a device key (the mdoc's holder key, from its MSO), by its public members:
   * a pure function of them, as the SD-JWT holder keys' PublicKeyCache (es256.ts). Bounded; an import OpenSSL
   * refuses throws and is never remembered. The import costs about as much as the ECDSA verification itself.
   */
  deviceKeyObject(jwk: { kty?: string; crv?: string; x?: string; y?: string }): KeyObject {
    const id = `${jwk.crv}|${jwk.x}|${jwk.y}`;
    const hit = this.deviceKeys.get(id);
    if (hit) return hit;
    const key = createPublicKey({
      key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as NodeJwk,
      format: 'jwk',
    });
    return this.remember(this.deviceKeys, id, key);
  }

  /** The node:crypto public key of a CoseKey this cache handed out (undefined for any other key). */
  keyObjectOf(key: CoseKey): KeyObject | undefined {
    return this.keyObjects.get(key);
  }

  /** Whether `child`'s signature verifies with `parent`'s key (both parsed by this cache). */
  async signedBy(child: X509Certificate, parent: X509Certificate): Promise<boolean> {
    const c = this.hashes.get(child);
    const p = this.hashes.get(parent);
    if (!c || !p) return child.verify({ publicKey: parent, signatureOnly: true });
    const key = `${c} ${p}`;
    const hit = this.signatures.get(key);
    if (hit !== undefined) return hit;
    return this.remember(
      this.signatures,
      key,
      await child.verify({ publicKey: parent, signatureOnly: true }),
    );
  }
}

function publicKeyOf(der: Uint8Array): CoseKey {
  const jwk = new NodeX509Certificate(der).publicKey.export({ format: 'jwk' });
  return CoseKey.fromJwk({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });
}

async function certificateDataOf(c: X509Certificate): Promise<CertificateData> {
  return {
    issuerName: c.issuer,
    subjectName: c.subject,
    serialNumber: c.serialNumber,
    thumbprint: Buffer.from(await c.getThumbprint('SHA-256')).toString('hex'),
    notBefore: c.notBefore,
    notAfter: c.notAfter,
    pem: c.toString('pem'),
  };
}
/** BasicConstraints cA of each parsed certificate (getExtension decodes the extension on every call). */
const caFlags = new WeakMap<X509Certificate, boolean>();
const isCa = (c: X509Certificate): boolean => {
  let ca = caFlags.get(c);
  if (ca === undefined) {
    ca = c.getExtension(BasicConstraintsExtension)?.ca === true;
    caFlags.set(c, ca);
  }
  return ca;
};
const validAt = (c: X509Certificate, now: Date): boolean => c.notBefore <= now && now <= c.notAfter;

/**
 * The values of a field of a parsed certificate's issuer name, by certificate object (the library asks for the
 * country on every verification, and for each issuing_country element). Copies are handed out.
 */
const nameFields = new WeakMap<X509Certificate, Map<string, string[]>>();
function nameField(c: X509Certificate, field: string): string[] {
  let fields = nameFields.get(c);
  if (!fields) {
    fields = new Map();
    nameFields.set(c, fields);
  }
  let values = fields.get(field);
  if (!values) {
    values = c.issuerName.getField(field);
    fields.set(field, values);
  }
  return [...values];
}

const certIn = (certs: CertificateCache | undefined, der: Uint8Array): X509Certificate =>
  certs ? certs.cert(der) : x509Of(der);
const signedIn = (
  certs: CertificateCache | undefined,
  child: X509Certificate,
  parent: X509Certificate,
): Promise<boolean> =>
  certs ? certs.signedBy(child, parent) : child.verify({ publicKey: parent, signatureOnly: true });

/**
 * Path validation for mdoc issuer certificates: x5chain[0] (the document signer, not a CA) must chain, through
 * the other x5chain certificates if any, to one of the trusted IACA certificates; every certificate on the path
 * is valid at `now`, every issuer on the path is a CA, every signature verifies. Throws on any failure.
 */
export async function verifyIacaChain(
  input: {
    trustedCertificates: Uint8Array[];
    x5chain: Uint8Array[];
    now?: Date;
  },
  certs?: CertificateCache,
): Promise<void> {
  const now = input.now ?? new Date();
  // No named closure per call: the service runs under tsx, whose keepNames names each one (a defineProperty per
  // closure per verification, ADR 0059 amendment 5).
  const anchors = input.trustedCertificates.map((der) => certIn(certs, der));
  const chain = input.x5chain.map((der) => certIn(certs, der));
  if (chain.length === 0) throw new Error('the issuer signature carries no certificate (x5chain)');
  if (anchors.length === 0) throw new Error('no trusted IACA certificate for this environment');
  let current = chain[0] as X509Certificate;
  // ISO 18013-5: MSOs are signed by a document signer, never by the IACA (a CA) itself.
  if (isCa(current)) throw new Error('the signing certificate is a CA, not a document signer');
  for (let depth = 0; depth < MAX_PATH; depth++) {
    if (!validAt(current, now))
      throw new Error(`certificate ${current.subject} is not valid at ${now.toISOString()}`);
    const candidates = anchors.filter((a) => a.subject === current.issuer);
    for (const anchor of candidates) {
      if (!isCa(anchor) || !validAt(anchor, now)) continue;
      if (await signedIn(certs, current, anchor)) return;
    }
    if (candidates.length > 0) throw new Error('the certificate is not signed by a valid trusted IACA');
    const next = chain.slice(1).find((c) => c.subject === current.issuer);
    if (!next) throw new Error(`no trusted IACA issued ${current.subject}`);
    if (!isCa(next)) throw new Error('an intermediate certificate is not a CA');
    if (!(await signedIn(certs, current, next))) {
      throw new Error('a certificate on the path has an invalid signature');
    }
    current = next;
  }
  throw new Error('the certificate path is too long');
}

/**
 * The MdocContext of this service: node:crypto + @peculiar/x509. With a CertificateCache (a verifier's), the X.509
 * callbacks and the issuer signature's public key come from it; without, every call parses afresh (issuer and
 * wallet tooling).
 */
export function createMdocContext(certs?: CertificateCache): MdocContext {
  const cert = (der: Uint8Array) => (certs ? certs.cert(der) : x509Of(der));
  return {
    crypto: {
      random: (length) => new Uint8Array(randomBytes(length)),
      digest: ({ digestAlgorithm, bytes }) =>
        digestOf(DIGESTS[digestAlgorithm] ?? digestAlgorithm.replace('-', '').toLowerCase(), bytes),
      calculateEphemeralMacKey: () => {
        throw new Error('device MAC authentication is not supported (OpenID4VP uses device signatures)');
      },
    },
    cose: {
      sign1: {
        sign: ({ toBeSigned, key, algorithm }) => signSign1(toBeSigned, key, algorithm ?? key.algorithm),
        verify: ({ sign1, key }) => verifySign1(sign1, key, certs),
      },
      mac0: {
        sign: () => {
          throw new Error('COSE_Mac0 is not supported');
        },
        verify: () => false,
      },
    },
    x509: {
      getIssuerNameField: ({ certificate, field }) => nameField(cert(certificate), field),
      getPublicKey: ({ certificate }) => (certs ? certs.publicKey(certificate) : publicKeyOf(certificate)),
      verifyCertificateChain: (input) => verifyIacaChain(input, certs),
      getCertificateData: ({ certificate }) =>
        certs ? certs.certificateData(certificate) : certificateDataOf(cert(certificate)),
    },
  };
}

/** The uncached context (issuer and wallet tooling; a verifier makes its own with a CertificateCache). */
export const mdocContext: MdocContext = createMdocContext();
