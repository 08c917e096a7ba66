// Owns our OpenID4VP `transaction_data` types (sign, attest): the JSON objects, their base64url encoding as
// sent, and the hash rule of OpenID4VP B.3 (base64url(SHA-256(the exact string received)), no decoding). The
// verifier hashes the strings it STORED with the request, never a re-serialization.
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

/** The KB-JWT `transaction_data_hashes` entry for one transaction data string. */
export const transactionDataHash = (encoded: string): string =>
  createHash('sha256').update(encoded, 'utf8').digest('base64url');

export const sha256HexOfText = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex');
