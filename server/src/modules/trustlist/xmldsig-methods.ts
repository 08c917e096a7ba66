// The XML-DSig signature methods a trust list may use, plugged into xml-crypto (its SignatureAlgorithms map);
// node:crypto does the math, xml-crypto still does canonicalization and digests. Each method is bound to one
// key type, so the SignatureMethod URI cannot make a key be used with another algorithm (an EC signer under an
// RSA URI, or an RSA signer under an ECDSA URI, is refused before any verification):
// - RSA PKCS#1 v1.5 with SHA-256/384/512 and RSA-PSS with SHA-256 (RFC 6931; RSA-SHA1 is not accepted);
// - ECDSA with SHA-256/384/512 on P-256, P-384 or P-521 (RFC 6931 §2.3.6). The XML-DSig SignatureValue of
//   ECDSA is r||s, each padded to the curve's size (RFC 4050 §3.3): dsaEncoding 'ieee-p1363'. A DER
//   (ASN.1 SEQUENCE) value is refused by its length, never converted.
import { constants, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import type { SignatureAlgorithm, SignedXml } from 'xml-crypto';

const MORE = 'http://www.w3.org/2001/04/xmldsig-more#';
export const XMLDSIG = {
  rsaSha256: `${MORE}rsa-sha256`,
  rsaSha384: `${MORE}rsa-sha384`,
  rsaSha512: `${MORE}rsa-sha512`,
  rsaPssSha256: 'http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1',
  ecdsaSha256: `${MORE}ecdsa-sha256`,
  ecdsaSha384: `${MORE}ecdsa-sha384`,
  ecdsaSha512: `${MORE}ecdsa-sha512`,
} as const;

/** Bytes of r (and of s) per accepted curve (node's namedCurve names). */
const CURVE_BYTES: Record<string, number> = { prime256v1: 32, secp384r1: 48, secp521r1: 66 };

interface Method {
  uri: string;
  hash: 'sha256' | 'sha384' | 'sha512';
  kind: 'rsa' | 'rsa-pss' | 'ec';
}

const short = (uri: string) => uri.slice(uri.lastIndexOf('#') + 1);

function keyFor(m: Method, key: unknown, role: 'public' | 'private'): KeyObject {
  let k: KeyObject;
  try {
    k = role === 'public' ? createPublicKey(key as string) : createPrivateKey(key as string);
  } catch {
    throw new Error(`the signer key cannot be read for ${short(m.uri)}`);
  }
  const type = k.asymmetricKeyType;
  const fits = m.kind === 'ec' ? type === 'ec' : type === 'rsa';
  if (!fits)
    throw new Error(
      `the signature method ${short(m.uri)} needs ${m.kind === 'ec' ? 'an EC' : 'an RSA'} key; the signer key is ${type}`,
    );
  if (m.kind === 'ec' && !CURVE_BYTES[k.asymmetricKeyDetails?.namedCurve ?? ''])
    throw new Error(
      `the EC curve ${k.asymmetricKeyDetails?.namedCurve} is not accepted (P-256, P-384, P-521)`,
    );
  return k;
}

const options = (m: Method, key: KeyObject) =>
  m.kind === 'ec'
    ? { key, dsaEncoding: 'ieee-p1363' as const }
    : m.kind === 'rsa-pss'
      ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
      : { key };

function methodClass(m: Method): new () => SignatureAlgorithm {
  return class {
    getAlgorithmName = () => m.uri;
    getSignature = ((signedInfo: string, privateKey: unknown) =>
      sign(m.hash, Buffer.from(signedInfo), options(m, keyFor(m, privateKey, 'private'))).toString(
        'base64',
      )) as SignatureAlgorithm['getSignature'];
    verifySignature = ((material: string, key: unknown, signatureValue: string) => {
      const publicKey = keyFor(m, key, 'public');
      const value = Buffer.from(signatureValue.replace(/\s+/g, ''), 'base64');
      if (m.kind === 'ec') {
        const size = CURVE_BYTES[publicKey.asymmetricKeyDetails?.namedCurve ?? ''] ?? 0;
        if (value.length !== 2 * size)
          throw new Error(
            `the ECDSA signature value is ${value.length} bytes, not r||s of ${2 * size} bytes (a DER-encoded value is not XML-DSig)`,
          );
      }
      return verify(m.hash, Buffer.from(material), options(m, publicKey), value);
    }) as SignatureAlgorithm['verifySignature'];
  };
}

const METHODS: Method[] = [
  { uri: XMLDSIG.rsaSha256, hash: 'sha256', kind: 'rsa' },
  { uri: XMLDSIG.rsaSha384, hash: 'sha384', kind: 'rsa' },
  { uri: XMLDSIG.rsaSha512, hash: 'sha512', kind: 'rsa' },
  { uri: XMLDSIG.rsaPssSha256, hash: 'sha256', kind: 'rsa-pss' },
  { uri: XMLDSIG.ecdsaSha256, hash: 'sha256', kind: 'ec' },
  { uri: XMLDSIG.ecdsaSha384, hash: 'sha384', kind: 'ec' },
  { uri: XMLDSIG.ecdsaSha512, hash: 'sha512', kind: 'ec' },
];

/** The signature methods map for a SignedXml: exactly the methods above, replacing xml-crypto's defaults. */
export const listSignatureMethods = (): SignedXml['SignatureAlgorithms'] =>
  Object.fromEntries(METHODS.map((m) => [m.uri, methodClass(m)]));
