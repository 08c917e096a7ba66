// The independent wallet's reading of OpenID4VP `transaction_data` (§5.1, B.3), from the documented format of
// the service's two types (README "Wallets and credentials"): each entry is a base64url-encoded JSON object with
// `type`, `credential_ids` and `transaction_data_hashes_alg`; `urn:service:sign:1` lists documents
// ({label, sha256, size, content_type}), `urn:service:attest:1` carries the terms and their SHA-256. Like a phone
// wallet it refuses the whole request on a type it does not know, on ids that name no credential query, or
// without sha-256; and it checks that the attested terms hash is the hash of the terms it would show.
// The hash a wallet binds is base64url(SHA-256(the exact string received)), never of a re-serialization.
import { createHash } from 'node:crypto';

export const KNOWN_TYPES = ['urn:service:sign:1', 'urn:service:attest:1'] as const;

export interface ReadTransactionData {
  /** The exact string received (what is hashed). */
  encoded: string;
  type: (typeof KNOWN_TYPES)[number];
  credentialIds: string[];
  /** sign: what the person is shown before signing. */
  documents?: { label: string; sha256: string; size: number; content_type: string }[];
  /** attest: the terms shown, and their SHA-256 (hex). */
  terms?: string;
  termsSha256?: string;
}

/** Every entry of the request's transaction_data, checked; throws (the wallet refuses the request) otherwise. */
export function readTransactionData(
  request: Record<string, unknown>,
  queryIds: string[],
): ReadTransactionData[] {
  const raw = request.transaction_data;
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.length === 0) throw new Error('transaction_data must be a non-empty array');
  return raw.map((encoded) => {
    if (typeof encoded !== 'string' || !/^[A-Za-z0-9_-]+$/.test(encoded))
      throw new Error('a transaction_data entry is not a base64url string');
    const td = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (!KNOWN_TYPES.includes(td.type as never))
      throw new Error(`unknown transaction data type ${String(td.type)}`);
    const ids = td.credential_ids;
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => queryIds.includes(id)))
      throw new Error('transaction data names no credential query of the request');
    const algs = td.transaction_data_hashes_alg ?? ['sha-256'];
    if (!Array.isArray(algs) || !algs.includes('sha-256'))
      throw new Error('transaction data without sha-256');
    const read: ReadTransactionData = { encoded, type: td.type as never, credentialIds: ids as string[] };
    if (td.type === 'urn:service:sign:1') {
      if (!Array.isArray(td.documents) || td.documents.length === 0)
        throw new Error('sign without documents');
      read.documents = td.documents as ReadTransactionData['documents'];
    } else {
      const terms = String(td.terms);
      if (createHash('sha256').update(terms, 'utf8').digest('hex') !== td.terms_sha256)
        throw new Error('terms_sha256 is not the hash of the terms shown');
      read.terms = terms;
      read.termsSha256 = String(td.terms_sha256);
    }
    return read;
  });
}

/** The entries for one credential query. */
export const forQuery = (all: ReadTransactionData[], queryId: string): ReadTransactionData[] =>
  all.filter((td) => td.credentialIds.includes(queryId));

/** base64url(SHA-256(the exact string received)): the KB-JWT's transaction_data_hashes entry. */
export const txHashB64u = (encoded: string): string =>
  createHash('sha256').update(encoded, 'utf8').digest('base64url');

/** SHA-256 of the exact string received, as bytes: the mdoc device-signed transaction_data_hash element. */
export const txHashBytes = (encoded: string): Uint8Array =>
  new Uint8Array(createHash('sha256').update(encoded, 'utf8').digest());
