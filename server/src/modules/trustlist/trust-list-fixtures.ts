// Test support (never used by the service): ETSI trust lists made at test time and signed with the test's own
// RSA or EC (P-256, P-384) CA through xml-crypto (enveloped XAdES-BES: a whole-document Reference URI "" with the enveloped transform
// and exclusive c14n, plus the SignedProperties with the signing certificate's digest). Real lists are not
// reachable here; these have the shape of TS 119 612 (LoTL with OtherTSLPointer) and TS 119 602 (LoTE).
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  type X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import { SignedXml } from 'xml-crypto';
import { listSignatureMethods, XMLDSIG } from './xmldsig-methods';

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;
/** Key kinds of a list signer: its key pair, the algorithm it signs certificates with, and its XML-DSig method. */
const KINDS = {
  RSA: { keys: RSA, certs: RSA, method: XMLDSIG.rsaSha256 },
  'P-256': {
    keys: { name: 'ECDSA', namedCurve: 'P-256' },
    certs: { name: 'ECDSA', hash: 'SHA-256' },
    method: XMLDSIG.ecdsaSha256,
  },
  'P-384': {
    keys: { name: 'ECDSA', namedCurve: 'P-384' },
    certs: { name: 'ECDSA', hash: 'SHA-384' },
    method: XMLDSIG.ecdsaSha384,
  },
} as const;
export type ListKeyKind = keyof typeof KINDS;
const NS_612 = 'http://uri.etsi.org/02231/v2#';
const NS_602 = 'http://uri.etsi.org/19602/v1#';

export interface ListSigner {
  cert: X509Certificate;
  keys: CryptoKeyPair;
  kind: ListKeyKind;
}

const day = 86_400_000;

/** A list-signing certificate (RSA by default): self-signed (an anchor) or issued by `issuer`. */
export async function listSigner(
  name: string,
  issuer?: ListSigner,
  now = new Date(),
  kind: ListKeyKind = 'RSA',
): Promise<ListSigner> {
  const keys = (await webcrypto.subtle.generateKey(KINDS[kind].keys, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const common = {
    serialNumber: randomBytes(8).toString('hex'),
    notBefore: new Date(now.getTime() - day),
    notAfter: new Date(now.getTime() + 365 * day),
    signingAlgorithm: KINDS[issuer?.kind ?? kind].certs,
  };
  const cert = issuer
    ? await X509CertificateGenerator.create({
        ...common,
        subject: `CN=${name}`,
        issuer: issuer.cert.subject,
        publicKey: keys.publicKey,
        signingKey: issuer.keys.privateKey,
        extensions: [new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true)],
      })
    : await X509CertificateGenerator.createSelfSigned({
        ...common,
        name: `CN=${name}`,
        keys,
        extensions: [
          new BasicConstraintsExtension(true, 1, true),
          new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.digitalSignature, true),
        ],
      });
  return { cert, keys, kind };
}

const b64 = (c: X509Certificate) => Buffer.from(c.rawData).toString('base64');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A TS 119 602 List of Trusted Entities (unsigned). */
export function loteXml(input: {
  sequence: number;
  issued: Date;
  nextUpdate: Date;
  entities: { name: string; certificates: X509Certificate[] }[];
}): string {
  const entities = input.entities
    .map(
      (e) =>
        `<TrustedEntity><TrustedEntityInformation><TEName><Name xml:lang="en">${esc(e.name)}</Name></TEName></TrustedEntityInformation><TrustedEntityServices>${e.certificates
          .map(
            (c) =>
              `<TrustedEntityService><ServiceInformation><ServiceTypeIdentifier>http://uri.etsi.org/19602/SvcType/PID/Issuance</ServiceTypeIdentifier><ServiceDigitalIdentity><DigitalId><X509Certificate>${b64(c)}</X509Certificate></DigitalId></ServiceDigitalIdentity></ServiceInformation></TrustedEntityService>`,
          )
          .join('')}</TrustedEntityServices></TrustedEntity>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><ListOfTrustedEntities xmlns="${NS_602}" Id="lote"><ListAndSchemeInformation><LoTEVersionIdentifier>1</LoTEVersionIdentifier><LoTESequenceNumber>${input.sequence}</LoTESequenceNumber><LoTEType>http://uri.etsi.org/19602/LoTEType/EUPIDProvidersList</LoTEType><ListIssueDateTime>${input.issued.toISOString()}</ListIssueDateTime><NextUpdate>${input.nextUpdate.toISOString()}</NextUpdate></ListAndSchemeInformation><TrustedEntitiesList>${entities}</TrustedEntitiesList></ListOfTrustedEntities>`;
}

/** A TS 119 612 List of Trusted Lists pointing at lists (unsigned). */
export function lotlXml(input: {
  sequence: number;
  issued: Date;
  nextUpdate: Date;
  pointers: { location: string; signers: X509Certificate[] }[];
}): string {
  const pointers = input.pointers
    .map(
      (p) =>
        `<OtherTSLPointer><ServiceDigitalIdentities>${p.signers
          .map(
            (c) =>
              `<ServiceDigitalIdentity><DigitalId><X509Certificate>${b64(c)}</X509Certificate></DigitalId></ServiceDigitalIdentity>`,
          )
          .join(
            '',
          )}</ServiceDigitalIdentities><TSLLocation>${esc(p.location)}</TSLLocation></OtherTSLPointer>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><TrustServiceStatusList xmlns="${NS_612}" Id="lotl" TSLTag="http://uri.etsi.org/19612/TSLTag"><SchemeInformation><TSLVersionIdentifier>6</TSLVersionIdentifier><TSLSequenceNumber>${input.sequence}</TSLSequenceNumber><TSLType>http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists</TSLType><PointersToOtherTSL>${pointers}</PointersToOtherTSL><ListIssueDateTime>${input.issued.toISOString()}</ListIssueDateTime><NextUpdate><dateTime>${input.nextUpdate.toISOString()}</dateTime></NextUpdate></SchemeInformation></TrustServiceStatusList>`;
}

/** The signer's private key as PKCS#8 PEM. */
export async function privateKeyPem(signer: ListSigner): Promise<string> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', signer.keys.privateKey));
  return `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
}

export interface SignListOptions {
  signingTime?: Date;
  /** The SignatureMethod URI (default: the signer's kind, RSA-SHA256, ECDSA-SHA256 or ECDSA-SHA384). */
  method?: string;
  /** For forged signatures only: computes the SignatureValue (base64) over the canonical SignedInfo. */
  signatureValue?: (signedInfo: string, privateKeyPem: string) => string;
}

/**
 * Signs a list with an enveloped XAdES-BES signature (xml-crypto; exclusive c14n; RSA-SHA256 or ECDSA with
 * SHA-256/384 by the signer's key, the value r||s as XML-DSig requires).
 */
export async function signList(xml: string, signer: ListSigner, opts: SignListOptions = {}): Promise<string> {
  const { signingTime = new Date(), method = KINDS[signer.kind].method } = opts;
  const privateKey = await privateKeyPem(signer);
  const certDigest = createHash('sha256').update(Buffer.from(signer.cert.rawData)).digest('base64');
  const sig = new SignedXml({
    privateKey,
    publicCert: signer.cert.toString('pem'),
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    signatureAlgorithm: method,
    objects: [
      {
        content: `<xades:QualifyingProperties xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" Target="#sig-list"><xades:SignedProperties Id="xades-sp"><xades:SignedSignatureProperties><xades:SigningTime>${signingTime.toISOString()}</xades:SigningTime><xades:SigningCertificateV2><xades:Cert><xades:CertDigest><ds:DigestMethod xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue xmlns:ds="http://www.w3.org/2000/09/xmldsig#">${certDigest}</ds:DigestValue></xades:CertDigest></xades:Cert></xades:SigningCertificateV2></xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties>`,
      },
    ],
  });
  sig.SignatureAlgorithms = listSignatureMethods();
  if (opts.signatureValue) {
    const forge: NonNullable<SignListOptions['signatureValue']> = opts.signatureValue;
    sig.SignatureAlgorithms[method] = class {
      getAlgorithmName = () => method;
      getSignature = ((signedInfo: string, key: string) => forge(signedInfo, key)) as never;
      verifySignature = (() => false) as never;
    };
  }
  sig.addReference({
    xpath: '/*',
    isEmptyUri: true,
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.addReference({
    xpath: "//*[@Id='xades-sp']",
    transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    type: 'http://uri.etsi.org/01903#SignedProperties',
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    attrs: { Id: 'sig-list' },
    location: { reference: '/*', action: 'append' },
  });
  return sig.getSignedXml();
}
