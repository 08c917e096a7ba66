// Owns the holder side of an mdoc answer after the library's checks: that a DeviceSigned part exists at all,
// that the MSO's KeyAuthorizations allow every device-signed element, the transaction data hashes bound in the
// device-signed namespaces (our convention, transaction-data.ts), and the holder signature kept as evidence
// (the DeviceSignature with its detached payload attached, verifiable offline).
import { timingSafeEqual } from 'node:crypto';
import {
  cborDecode,
  cborEncode,
  DataItem,
  DeviceAuthentication,
  type DeviceNamespaces,
  type Document,
  type KeyAuthorizations,
  type SessionTranscript,
} from '@owf/mdoc';
import { base64url } from 'jose';
import { AppError, type ErrorCode } from '../../../common/errors';
import {
  decodeTransactionData,
  MDOC_TX_HASH_ALG_ELEMENT,
  MDOC_TX_HASH_ELEMENT,
  TX_HASH_ALG,
  TX_TYPES,
  transactionDataDigest,
} from '../transaction-data';
import { toJson } from './mdoc-answer';

type Json = Record<string, unknown>;
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};

/**
 * Every device-signed element must be authorized by the MSO's KeyAuthorizations: its whole namespace
 * (`nameSpaces`) or the element itself (`dataElements`). No KeyAuthorizations authorizes nothing.
 */
export function requireAuthorized(
  deviceNamespaces: DeviceNamespaces,
  auth: KeyAuthorizations | undefined,
): void {
  const namespaces = new Set(auth?.namespaces ?? []);
  const elements = auth?.dataElements ?? new Map<string, string[]>();
  for (const [ns, items] of deviceNamespaces.deviceNamespaces) {
    if (namespaces.has(ns)) continue;
    for (const element of items.deviceSignedItems.keys()) {
      if (!(elements.get(ns) ?? []).includes(element)) {
        fail(
          'device_signed_unauthorized',
          `The issuer does not authorize the device key to sign ${ns}/${element} (MSO KeyAuthorizations).`,
        );
      }
    }
  }
}

/**
 * The transaction data of the request for the answered mdoc query, bound in DeviceSigned (our convention, see
 * transaction-data.ts): per entry, the namespace named like its type holds exactly `transaction_data_hash` =
 * SHA-256 over the exact STORED string and `transaction_data_hash_alg` = "sha-256". A namespace of one of our
 * types that the request did not send for this query is refused too (no missing, no extra). Returns the strings
 * covered (empty when the request sent none for this query).
 */
export function checkTransactionData(
  request: Json,
  queryId: string,
  deviceNamespaces: DeviceNamespaces,
): string[] {
  const sent = Array.isArray(request.transaction_data) ? (request.transaction_data as unknown[]) : [];
  // Our own stored request: its entries decode (a failure here is our bug, hence a plain Error).
  const ours = sent
    .filter((s): s is string => typeof s === 'string')
    .map((encoded) => ({ encoded, decoded: decodeTransactionData(encoded) }))
    .filter(({ decoded }) => ((decoded.credential_ids as unknown[] | undefined) ?? []).includes(queryId));
  const types = ours.map(({ decoded }) => String(decoded.type));
  if (new Set(types).size !== types.length) {
    throw new Error(
      'one device-signed namespace holds one hash: a request sends one entry per type and query',
    );
  }
  const signed = deviceNamespaces.deviceNamespaces;
  for (const ns of signed.keys()) {
    if ((TX_TYPES as readonly string[]).includes(ns) && !types.includes(ns)) {
      fail(
        'transaction_data_mismatch',
        `The device signed ${ns} transaction data this request did not send.`,
      );
    }
  }
  for (const { encoded, decoded } of ours) {
    const items = signed.get(String(decoded.type))?.deviceSignedItems;
    if (!items?.has(MDOC_TX_HASH_ELEMENT)) {
      fail(
        'transaction_data_missing',
        `The device-signed data has no ${MDOC_TX_HASH_ELEMENT} for the documents or terms (${String(decoded.type)}).`,
      );
    }
    const elements = [...(items as Map<string, unknown>).keys()];
    if (elements.some((e) => e !== MDOC_TX_HASH_ELEMENT && e !== MDOC_TX_HASH_ALG_ELEMENT)) {
      fail('transaction_data_mismatch', `The ${String(decoded.type)} namespace holds unexpected elements.`);
    }
    if (items?.get(MDOC_TX_HASH_ALG_ELEMENT) !== TX_HASH_ALG) {
      fail('transaction_data_mismatch', `${MDOC_TX_HASH_ALG_ELEMENT} must be ${TX_HASH_ALG}.`);
    }
    const got = items?.get(MDOC_TX_HASH_ELEMENT);
    const expected = transactionDataDigest(encoded);
    if (!(got instanceof Uint8Array) || got.length !== expected.length || !timingSafeEqual(got, expected)) {
      fail(
        'transaction_data_mismatch',
        'The device signed other transaction data than this request sent (documents or terms differ).',
      );
    }
  }
  return ours.map(({ encoded }) => encoded);
}

/**
 * The holder signature a business can verify offline, like the SD-JWT KB-JWT: the document's DeviceSignature
 * (an untagged COSE_Sign1 `[protected, unprotected, payload, signature]`, ES256 by the MSO device key) with its
 * detached payload attached, so that it verifies with any COSE library and the holder key alone. The payload is
 * DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, docType,
 * #6.24(bstr .cbor DeviceNameSpaces)]), which holds the transaction data hash (ISO 18013-5 9.1.3.4; attaching a
 * detached payload does not change the COSE Sig_structure, so the signature is the wallet's, unchanged).
 */
export function mdocHolderSignature(
  doc: Document,
  transcript: SessionTranscript,
  /** The DeviceAuthenticationBytes already verified with `transcript` (spares encoding them again). */
  verifiedPayload?: Uint8Array,
): string {
  const signature = doc.deviceSigned.deviceAuth.deviceSignature;
  if (!signature) throw new Error('a verified mdoc has a device signature');
  const payload =
    verifiedPayload ??
    DeviceAuthentication.create({
      sessionTranscript: transcript,
      docType: doc.docType,
      deviceNamespaces: doc.deviceSigned.deviceNamespaces,
    }).encode({ asDataItem: true });
  // The parts as received (the patched @owf/mdoc keeps the protected header bstr), without the library's
  // re-validating encode of the whole COSE_Sign1.
  return Buffer.from(
    cborEncode([
      signature.protectedHeaders.encodedStructure,
      signature.unprotectedHeaders.headers,
      payload,
      signature.signature,
    ]),
  ).toString('base64url');
}

/**
 * Reads a holder signature made by mdocHolderSignature: the COSE_Sign1 parts, and its payload decoded
 * (DeviceAuthentication: SessionTranscript, docType, device-signed namespaces as JSON values).
 */
export function readMdocHolderSignature(holderSignature: string): {
  protectedHeader: Uint8Array;
  payload: Uint8Array;
  signature: Uint8Array;
  deviceAuthentication: { docType: string; deviceNamespaces: Record<string, Record<string, unknown>> };
} {
  const [protectedHeader, , payload, signature] = cborDecode<[Uint8Array, unknown, Uint8Array, Uint8Array]>(
    base64url.decode(holderSignature),
  );
  const inner = cborDecode<DataItem<unknown[]> | unknown[]>(payload, { unwrapTopLevelDataItem: false });
  const [, , docType, namespacesItem] = (inner instanceof DataItem ? inner.data : inner) as [
    string,
    unknown,
    string,
    DataItem<Map<string, Map<string, unknown>>>,
  ];
  return {
    protectedHeader,
    payload,
    signature,
    deviceAuthentication: {
      docType,
      deviceNamespaces: toJson(namespacesItem.data) as Record<string, Record<string, unknown>>,
    },
  };
}

export function decodeB64u(s: string): Uint8Array {
  // Unpadded base64url only (a length of 4n+1 is no encoding of whole bytes); Buffer decodes it without jose's
  // string round trip, and a view of the same memory is what the CBOR decoder reads.
  if (!/^[A-Za-z0-9_-]+$/.test(s) || s.length % 4 === 1) {
    fail('presentation_malformed', 'The DeviceResponse is not base64url.');
  }
  const b = Buffer.from(s, 'base64url');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * A document without DeviceSigned has no holder binding at all: key_binding_missing, before any structural
 * parsing. Returns the CBOR decoded (the library's cborDecode), for the structures to be made from without a
 * second decode of the same bytes (DeviceResponse.fromEncodedStructure).
 */
export function requireDeviceSigned(bytes: Uint8Array): unknown {
  let raw: unknown;
  try {
    raw = cborDecode(bytes);
  } catch (e) {
    fail('presentation_malformed', 'The DeviceResponse is not CBOR.', e);
  }
  const documents = raw instanceof Map ? raw.get('documents') : undefined;
  if (!Array.isArray(documents)) return raw; // the structural decode reports it
  for (const d of documents) {
    if (d instanceof Map && !d.has('deviceSigned'))
      fail('key_binding_missing', 'The mdoc has no DeviceSigned part.');
  }
  return raw;
}
