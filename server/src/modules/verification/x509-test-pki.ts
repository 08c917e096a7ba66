// Test support (like app/test-database.ts; never used by the service): small X.509 PKIs made in memory with
// @peculiar/x509 (root, issuing CAs, signer certificates with SANs), and issuer-side signing helpers (SD-JWT VC
// with an x5c header, status-list tokens) for the trust tests of the server and of the black-box suites.
import { randomBytes, webcrypto } from 'node:crypto';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  type X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import { Jwt } from '@sd-jwt/core';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface PkiParty {
  cert: X509Certificate;
  keys: CryptoKeyPair;
}

export type San = { type: 'url' | 'dns'; value: string };

const newKeys = () => webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;

/** base64 DER, as x5c carries certificates (RFC 7515). */
export const x5cOf = (...parties: PkiParty[]): string[] =>
  parties.map((p) => Buffer.from(p.cert.rawData).toString('base64'));

export const privateJwkOf = (p: { keys: CryptoKeyPair }): Promise<JsonWebKey> =>
  webcrypto.subtle.exportKey('jwk', p.keys.privateKey);

export async function publicJwkOf(p: { keys: CryptoKeyPair }): Promise<JsonWebKey> {
  const { kty, crv, x, y } = await webcrypto.subtle.exportKey('jwk', p.keys.publicKey);
  return { kty, crv, x, y };
}

/** A self-signed root CA. */
export async function rootCa(name: string, validity: { notBefore: Date; notAfter: Date }): Promise<PkiParty> {
  const keys = await newKeys();
  const cert = await X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: EC,
    ...validity,
    extensions: [
      new BasicConstraintsExtension(true, 1, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

/** A certificate issued by `issuer`: an issuing CA (`ca: true`) or a signer with the given SANs. */
export async function issueCertificate(
  issuer: PkiParty,
  name: string,
  opts: { ca?: boolean; san?: San[]; notBefore: Date; notAfter: Date },
): Promise<PkiParty> {
  const keys = await newKeys();
  const cert = await X509CertificateGenerator.create({
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: EC,
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    extensions: [
      new BasicConstraintsExtension(opts.ca ?? false, undefined, true),
      new KeyUsagesExtension(
        opts.ca ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature,
        true,
      ),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
      await AuthorityKeyIdentifierExtension.create(issuer.cert),
      ...(opts.san ? [new SubjectAlternativeNameExtension(opts.san)] : []),
    ],
  });
  return { cert, keys };
}

/** A Token Status List JWT (2 bits, every entry valid) for `uri`, signed by `signer`, optionally with x5c. */
export async function statusListToken(opts: {
  signer: PkiParty;
  uri: string;
  iat: number;
  x5c?: string[];
}): Promise<string> {
  const { header, payload } = createHeaderAndPayload(
    new StatusList(new Array(64).fill(0), 2),
    { sub: opts.uri, iat: opts.iat, exp: opts.iat + 86_400 },
    { alg: 'ES256', typ: 'statuslist+jwt', ...(opts.x5c ? { x5c: opts.x5c } : {}) },
  );
  return new Jwt({ header, payload }).sign(await ES256.getSigner(await privateJwkOf(opts.signer)));
}

/** A PID-shaped SD-JWT VC (all claims selectively disclosable) signed by `signer`, with x5c in its header. */
export async function issueSdJwtVc(opts: {
  signer: PkiParty;
  x5c?: string[];
  payload: Record<string, unknown> & { iss: string; iat: number; vct: string };
  disclosable: string[];
}): Promise<string> {
  const issuer = new SDJwtVcInstance({
    signer: await ES256.getSigner(await privateJwkOf(opts.signer)),
    signAlg: 'ES256',
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: (bytes: number) => randomBytes(bytes).toString('base64url'),
  });
  return issuer.issue(
    opts.payload as Parameters<SDJwtVcInstance['issue']>[0],
    { _sd: opts.disclosable } as Parameters<SDJwtVcInstance['issue']>[1],
    opts.x5c ? { header: { x5c: opts.x5c } } : undefined,
  );
}
