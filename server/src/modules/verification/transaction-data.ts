// Owns our OpenID4VP `transaction_data` types (sign, attest): the JSON objects, their base64url encoding as
// sent, and the hash rule of OpenID4VP B.3 (base64url(SHA-256(the exact string received)), no decoding). The
// verifier hashes the strings it STORED with the request, never a re-serialization. SD-JWT VC binds them in the
// KB-JWT (`transaction_data_hashes`), ISO mdoc in device-signed namespaces (MDOC_TX_HASH_ELEMENT below).
import { createHash } from 'node:crypto';
import { base64url } from 'jose';

/** Documents to sign: the SHA-256 of each exact document, with label, size and content type. */
export const TX_TYPE_SIGN = 'urn:service:sign:1';
/** Inline terms to approve: their SHA-256 (UTF-8 bytes) and the text. */
export const TX_TYPE_ATTEST = 'urn:service:attest:1';
export const TX_TYPES = [TX_TYPE_SIGN, TX_TYPE_ATTEST] as const;
export const TX_HASH_ALG = 'sha-256';

export interface SignTransactionData {
  type: typeof TX_TYPE_SIGN;
  credential_ids: string[];
  transaction_data_hashes_alg: string[];
  documents: { label: string; sha256: string; size: number; content_type: string }[];
}

export interface AttestTransactionData {
  type: typeof TX_TYPE_ATTEST;
  credential_ids: string[];
  transaction_data_hashes_alg: string[];
  terms_sha256: string;
  terms: string;
}

export type TransactionData = SignTransactionData | AttestTransactionData;

export const encodeTransactionData = (td: TransactionData): string =>
  base64url.encode(new TextEncoder().encode(JSON.stringify(td)));

/** Parses one received/stored string (no validation beyond JSON object shape). */
export function decodeTransactionData(encoded: string): Record<string, unknown> {
  const v = JSON.parse(new TextDecoder().decode(base64url.decode(encoded))) as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error('transaction data is not an object');
  return v as Record<string, unknown>;
}

/**
 * ISO mdoc carries transaction data in DeviceSigned (OpenID4VP B.2: doc-type specific, authorized by the MSO's
 * KeyAuthorizations). Our convention (walt.id's): one device-signed namespace per transaction data type, named
 * like the type, with the element `transaction_data_hash` (bstr: SHA-256 over the exact string received) and
 * `transaction_data_hash_alg` ("sha-256"). The device signature over DeviceAuthentication covers them.
 */
export const MDOC_TX_HASH_ELEMENT = 'transaction_data_hash';
export const MDOC_TX_HASH_ALG_ELEMENT = 'transaction_data_hash_alg';

/** SHA-256 over the exact transaction data string (the bytes of the KB-JWT hash, and of the mdoc element). */
export const transactionDataDigest = (encoded: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(encoded, 'utf8').digest());

/** The KB-JWT `transaction_data_hashes` entry for one transaction data string. */
export const transactionDataHash = (encoded: string): string =>
  createHash('sha256').update(encoded, 'utf8').digest('base64url');

export const sha256HexOfText = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex');
