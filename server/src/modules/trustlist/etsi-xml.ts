// Owns reading an ETSI trust list: a List of Trusted Lists or Trusted List (TS 119 612, root
// TrustServiceStatusList) or a List of Trusted Entities (TS 119 602, root ListOfTrustedEntities), each XML with
// an enveloped XAdES-BES signature. Order matters (ADR 0036):
// 1. the signer certificate (KeyInfo) must be one of the configured anchors or be issued by one, valid now;
// 2. xml-crypto verifies the signature (canonicalization, digests); we never canonicalize ourselves. The
//    signature methods (RSA, ECDSA P-256/P-384/P-521, each bound to its key type) are ours, on node:crypto
//    (xmldsig-methods.ts);
// 3. the signature must be a child of the root and cover the whole document: one Reference with URI "" and
//    the enveloped-signature transform, any other Reference only the XAdES SignedProperties, whose signing
//    certificate digest must be the signer's;
// 4. everything (dates, pointers, entities) is read from the canonical XML that reference covered
//    (getSignedReferences), never from the received document, so a wrapped or injected element is never read.
import { createHash } from 'node:crypto';
import { X509Certificate } from '@peculiar/x509';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { listSignatureMethods } from './xmldsig-methods';

const DSIG = 'http://www.w3.org/2000/09/xmldsig#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const MAX_BYTES = 8_000_000;

export class TrustListRefusal extends Error {}
const refuse = (why: string): never => {
  throw new TrustListRefusal(why);
};

/** One trusted entity (TS 119 602 TrustedEntity or TS 119 612 TrustServiceProvider) and its certificates. */
export interface ListEntity {
  name: string;
  /** PEM service digital identities. */
  certificates: string[];
}

/** A List of Trusted Lists' pointer to another list, with the certificates that list must be signed by. */
export interface ListPointer {
  location: string;
  certificates: string[];
}

export interface SignedTrustList {
  format: 'ts119612' | 'ts119602';
  sequenceNumber: string | null;
  issuedAt: Date | null;
  nextUpdate: Date;
  entities: ListEntity[];
  pointers: ListPointer[];
  /** The signer certificate (PEM) and its SHA-256 fingerprint. */
  signer: { pem: string; fingerprint: string; subject: string };
}

type El = Element;
const elements = (root: El | Document, local: string): El[] =>
  Array.from(root.getElementsByTagNameNS('*', local) as unknown as ArrayLike<El>);
const first = (root: El | Document, local: string): El | undefined => elements(root, local)[0];
const textOf = (el: El | undefined): string => (el?.textContent ?? '').trim();
const childElements = (el: El): El[] =>
  Array.from(el.childNodes as unknown as ArrayLike<Node>).filter((n): n is El => n.nodeType === 1);

export const fingerprintOf = (cert: X509Certificate): string =>
  createHash('sha256').update(Buffer.from(cert.rawData)).digest('hex');

function certFromBase64(b64: string): X509Certificate {
  try {
    return new X509Certificate(Buffer.from(b64.replace(/\s+/g, ''), 'base64'));
  } catch {
    return refuse('A certificate in the list cannot be decoded.');
  }
}

function parse(xml: string, what: string): Document {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: {
      warning: () => {},
      error: (m) => errors.push(String(m)),
      fatalError: (m) => errors.push(String(m)),
    },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc?.documentElement) refuse(`${what} is not well-formed XML.`);
  return doc as unknown as Document;
}

const dateOf = (s: string): Date | null => {
  if (!s) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** Is `cert` one of the anchors or issued (signature checked) by one, and both valid at `now`? */
async function signerTrusted(cert: X509Certificate, anchors: readonly X509Certificate[], now: Date) {
  const valid = (c: X509Certificate) => now >= c.notBefore && now <= c.notAfter;
  if (!valid(cert)) return false;
  const print = fingerprintOf(cert);
  for (const anchor of anchors) {
    if (!valid(anchor)) continue;
    if (fingerprintOf(anchor) === print) return true;
    if (
      cert.issuer === anchor.subject &&
      (await cert.verify({ publicKey: anchor.publicKey, signatureOnly: true }))
    )
      return true;
  }
  return false;
}

/**
 * Verifies a signed trust list against anchor certificates at `now` and returns what it says. Throws
 * TrustListRefusal (with a reason for the version record) for anything not accepted, including a list whose
 * NextUpdate has passed.
 */
export async function readSignedTrustList(
  xml: string,
  anchors: readonly X509Certificate[],
  now: Date,
): Promise<SignedTrustList> {
  if (xml.length > MAX_BYTES) refuse('The list is larger than 8 MB.');
  if (/<!DOCTYPE/i.test(xml)) refuse('A list with a DOCTYPE is not accepted.');
  const doc = parse(xml, 'The list');
  const root = doc.documentElement as El;
  if (root.localName !== 'TrustServiceStatusList' && root.localName !== 'ListOfTrustedEntities')
    refuse(`Unknown list type ${root.localName}.`);

  const signatures = Array.from(doc.getElementsByTagNameNS(DSIG, 'Signature') as unknown as ArrayLike<El>);
  if (signatures.length !== 1) refuse('The list must carry exactly one signature.');
  const signature = signatures[0] as El;
  if (signature.parentNode !== root) refuse('The signature must be enveloped in the list root.');

  const keyCert = textOf(first(signature, 'X509Certificate'));
  if (!keyCert) refuse('The signature names no signer certificate.');
  const signer = certFromBase64(keyCert);
  if (!(await signerTrusted(signer, anchors, now)))
    refuse('The list is not signed by a configured anchor (or a certificate it issued) valid now.');
  const signerPem = signer.toString('pem');

  const sig = new SignedXml({ publicCert: signerPem, getCertFromKeyInfo: () => null });
  sig.SignatureAlgorithms = listSignatureMethods();
  sig.loadSignature(signature);
  let ok = false;
  try {
    ok = sig.checkSignature(xml);
  } catch (e) {
    refuse(`The list signature does not verify: ${(e as Error).message}`);
  }
  if (!ok) refuse('The list signature does not verify.');

  // Coverage: one whole-document reference (URI "" + enveloped transform), and the XAdES signed properties.
  const refs = sig.getReferences();
  const whole = refs.filter((r) => r.uri === '' || r.isEmptyUri);
  if (whole.length !== 1 || !whole[0]?.transforms.includes(ENVELOPED as never))
    refuse('The signature does not cover the whole list (Reference URI "" with the enveloped transform).');
  const propsXml = refs.filter((r) => r !== whole[0]).map((r) => r.signedReference ?? '');
  const props = propsXml.map((x) => parse(x, 'The signed properties').documentElement as El);
  if (props.length !== 1 || props[0]?.localName !== 'SignedProperties')
    refuse('The signature must reference exactly the XAdES SignedProperties besides the list.');
  const certDigest = textOf(first(props[0] as El, 'DigestValue'));
  const digestAlg = first(props[0] as El, 'DigestMethod')?.getAttribute('Algorithm') ?? '';
  if (
    !/sha256$/.test(digestAlg) ||
    certDigest !== createHash('sha256').update(Buffer.from(signer.rawData)).digest('base64')
  )
    refuse('The XAdES signing certificate is not the certificate that signed the list.');

  // From here on only the covered bytes are read.
  const signed = parse(whole[0]?.signedReference ?? '', 'The signed list').documentElement as El;
  if (signed.localName !== root.localName) refuse('The signed content is not the list.');
  const format = signed.localName === 'TrustServiceStatusList' ? 'ts119612' : 'ts119602';
  const scheme = first(signed, format === 'ts119612' ? 'SchemeInformation' : 'ListAndSchemeInformation');
  if (!scheme) refuse('The list has no scheme information.');
  const s = scheme as El;
  const sequenceNumber = textOf(first(s, 'TSLSequenceNumber') ?? first(s, 'LoTESequenceNumber')) || null;
  const issuedAt = dateOf(textOf(first(s, 'ListIssueDateTime')));
  const nextEl = first(s, 'NextUpdate');
  const nextUpdate = dateOf(textOf(nextEl ? (first(nextEl, 'dateTime') ?? nextEl) : undefined));
  if (!nextUpdate) refuse('The list has no NextUpdate (a closed list is not used).');
  if ((nextUpdate as Date) <= now)
    refuse(`The list expired at its NextUpdate ${(nextUpdate as Date).toISOString()}.`);
  if (issuedAt && issuedAt > now) refuse('The list is issued in the future.');

  const pemsUnder = (el: El) =>
    elements(el, 'X509Certificate').map((c) => certFromBase64(textOf(c)).toString('pem'));
  const pointers = elements(signed, 'OtherTSLPointer').map((p) => ({
    location: textOf(first(p, 'TSLLocation')),
    certificates: pemsUnder(p),
  }));
  const entities = [...elements(signed, 'TrustedEntity'), ...elements(signed, 'TrustServiceProvider')].map(
    (e) => {
      const info = childElements(e).find((c) =>
        /^(TrustedEntityInformation|TSPInformation)$/.test(c.localName),
      );
      const nameEl = info && (first(info, 'TEName') ?? first(info, 'TSPName'));
      const name = textOf(nameEl && first(nameEl, 'Name')) || textOf(nameEl);
      const services = childElements(e).find((c) =>
        /^(TrustedEntityServices|TSPServices)$/.test(c.localName),
      );
      if (!name) refuse('A trusted entity has no name.');
      return { name: name.slice(0, 400), certificates: services ? pemsUnder(services) : [] };
    },
  );
  return {
    format,
    sequenceNumber: sequenceNumber?.slice(0, 40) ?? null,
    issuedAt,
    nextUpdate: nextUpdate as Date,
    entities,
    pointers,
    signer: { pem: signerPem, fingerprint: fingerprintOf(signer), subject: signer.subject },
  };
}
