// The independent wallet's reader-authentication check (ISO/IEC 18013-5 second edition; what Apple Wallet does
// before it shows a request): read the DeviceRequest's top-level `readerAuthAll` (one COSE_Sign1 per reader
// certificate) and each DocRequest's `readerAuth`, rebuild what each signs from the structures alone, and check
// every ES256 signature with the leaf of its `x5chain` (node:crypto). Its own CBOR (./cbor.ts); nothing of the
// verifier. The chain itself is left to openssl in the tests.
//   ReaderAuthenticationAllBytes = #6.24(bstr .cbor ["ReaderAuthenticationAll", SessionTranscript,
//                                                    [ItemsRequestBytes…], DeviceRequestInfoBytes / null])
//   ReaderAuthenticationBytes    = #6.24(bstr .cbor ["ReaderAuthentication", SessionTranscript, ItemsRequestBytes])
//   Sig_structure                = ["Signature1", protected, h'', payload]
import { verify, X509Certificate } from 'node:crypto';
import { decode, encode, Tagged } from './cbor';

export interface ReaderSignature {
  /** The decoded protected header ({1: -7} for ES256). */
  protectedHeader: Map<unknown, unknown>;
  /** DER certificates of x5chain (label 33), leaf first. */
  x5chain: Uint8Array[];
  /** The payload slot on the wire (null: detached). */
  payload: unknown;
  /** Whether the signature verifies over the rebuilt payload with the leaf's key. */
  valid: boolean;
}

export interface ReaderAuthReading {
  version: string;
  readerAuthAll: ReaderSignature[];
  /** Per DocRequest: its readerAuth, if it has one. */
  perDocument: (ReaderSignature | undefined)[];
}

const asMap = (v: unknown, what: string): Map<unknown, unknown> => {
  if (!(v instanceof Map)) throw new Error(`${what} is not a CBOR map`);
  return v;
};

function checkSign1(sign1: unknown, payload: Uint8Array): ReaderSignature {
  if (!Array.isArray(sign1) || sign1.length !== 4) throw new Error('not a COSE_Sign1 array of 4');
  const [protectedBytes, unprotected, wirePayload, signature] = sign1 as [
    Uint8Array,
    unknown,
    unknown,
    Uint8Array,
  ];
  const protectedHeader = asMap(decode(protectedBytes), 'protected header');
  const chain = asMap(unprotected, 'unprotected header').get(33);
  const x5chain = chain instanceof Uint8Array ? [chain] : (chain as Uint8Array[]);
  if (!Array.isArray(x5chain) || x5chain.length === 0)
    throw new Error('no x5chain in the unprotected header');
  const toBeSigned = encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
  const leaf = new X509Certificate(Buffer.from(x5chain[0] as Uint8Array));
  const valid =
    protectedHeader.get(1) === -7 &&
    verify('sha256', toBeSigned, { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
  return { protectedHeader, x5chain, payload: wirePayload, valid };
}

/** Reads and checks the reader authentication of a DeviceRequest (base64url) against `sessionTranscript`. */
export function readReaderAuth(deviceRequestB64u: string, sessionTranscript: unknown): ReaderAuthReading {
  const request = asMap(decode(new Uint8Array(Buffer.from(deviceRequestB64u, 'base64url'))), 'DeviceRequest');
  const docRequests = (request.get('docRequests') as unknown[]).map((d) => asMap(d, 'DocRequest'));
  const itemsRequestBytes = docRequests.map((d) => {
    const t = d.get('itemsRequest');
    if (!(t instanceof Tagged) || t.tag !== 24) throw new Error('ItemsRequestBytes is not #6.24(bstr)');
    return t;
  });
  const allPayload = encode(
    new Tagged(24, encode(['ReaderAuthenticationAll', sessionTranscript, itemsRequestBytes, null])),
  );
  const all = (request.get('readerAuthAll') as unknown[] | undefined) ?? [];
  return {
    version: String(request.get('version')),
    readerAuthAll: all.map((s) => checkSign1(s, allPayload)),
    perDocument: docRequests.map((d, i) => {
      const sign1 = d.get('readerAuth');
      if (sign1 === undefined) return undefined;
      const payload = encode(
        new Tagged(24, encode(['ReaderAuthentication', sessionTranscript, itemsRequestBytes[i]])),
      );
      return checkSign1(sign1, payload);
    }),
  };
}

/** PEM of a DER certificate (for openssl). */
export const pemOfDer = (der: Uint8Array): string =>
  `-----BEGIN CERTIFICATE-----\n${(
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? []
  ).join('\n')}\n-----END CERTIFICATE-----\n`;
