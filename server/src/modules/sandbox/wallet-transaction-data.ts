// Owns the reference wallet's reading of a request's `transaction_data`, for both formats (SD-JWT VC binds the
// entries in its KB-JWT, mdoc in device-signed namespaces): the checks a wallet must make before it shows and
// signs anything (OpenID4VP 5.1 / B.3), refusing the whole request otherwise.
import type { DcqlQuery } from 'dcql';
import { AppError } from '../../common/errors';
import { decodeTransactionData, TX_HASH_ALG, TX_TYPES } from '../verification/transaction-data';

type Json = Record<string, unknown>;

export interface ReceivedTransactionData {
  /** The exact string received (what is hashed). */
  encoded: string;
  type: string;
  /** The credential query ids it is for. */
  ids: string[];
}

/**
 * The request's transaction_data: every entry is base64url JSON of a type this wallet knows, names credential
 * queries of the request, and allows sha-256; otherwise the wallet refuses the whole request.
 */
export function readTransactionData(params: Json, query: DcqlQuery): ReceivedTransactionData[] {
  const raw = params.transaction_data;
  if (raw === undefined) return [];
  const refuse = (detail: string): never => {
    throw new AppError('validation_failed', `The wallet refuses the request: ${detail}`, {
      param: 'request',
    });
  };
  if (!Array.isArray(raw) || raw.length === 0) refuse('transaction_data must be a non-empty array.');
  const queryIds = new Set(query.credentials.map((c) => c.id));
  return (raw as unknown[]).map((encoded) => {
    if (typeof encoded !== 'string') return refuse('a transaction_data entry is not a string.');
    let td: Json;
    try {
      td = decodeTransactionData(encoded);
    } catch {
      return refuse('a transaction_data entry is not base64url-encoded JSON.');
    }
    if (!(TX_TYPES as readonly unknown[]).includes(td.type))
      refuse(`unsupported transaction data type ${String(td.type)}.`);
    const ids = td.credential_ids;
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      !ids.every((id) => typeof id === 'string' && queryIds.has(id))
    )
      refuse('transaction data names unknown credential ids.');
    const algs = td.transaction_data_hashes_alg ?? [TX_HASH_ALG];
    if (!Array.isArray(algs) || !algs.includes(TX_HASH_ALG)) refuse('transaction data needs sha-256 hashes.');
    return { encoded, type: String(td.type), ids: ids as string[] };
  });
}
