// Pieces of wallet requests and results that several primitives share: the mdoc query ids, who signs (the
// signer query of sign and attestation, with its transaction data), a query widened by the first step's
// identifying claims, and the holder's proof over bound transaction data.
import { buildIdentifyDcqlQuery, PID_VCT } from '../../verification/dcql';
import {
  dcqlQueryWithAlternatives,
  MDOC_FORMAT,
  MDOC_MDL,
  MDOC_PID,
  mdocIdentifyQuery,
} from '../../verification/mdoc/mdoc-query';
import { CREDENTIAL_QUERY_ID } from '../../verification/request';
import { decodeTransactionData, TX_HASH_ALG, transactionDataHash } from '../../verification/transaction-data';
import type { VerifiedPresentation } from './spec';

/** Every primitive takes the SD-JWT VC PID or an ISO mdoc (EU PID, mDL; for age also the EU age attestation). */
export const SD_JWT_OR_MDOC: readonly string[] = ['dc+sd-jwt', MDOC_FORMAT];

/** Credential query ids of the mdoc alternatives (the SD-JWT VC PID query is CREDENTIAL_QUERY_ID, `pid`). */
export const MDOC_QUERY_IDS = {
  pid: 'pid_mdoc',
  mdl: 'mdl',
  av: 'av_mdoc',
  photoId: 'photoid_mdoc',
  idPass: 'idpass_mdoc',
} as const;

export type CredentialQueryInput = Parameters<typeof dcqlQueryWithAlternatives>[0][number];

/**
 * Claims a sign or attestation step asks the wallet to disclose: who signed. They are kept only in the
 * encrypted evidence; the business result carries hashes, the holder signature and the holder key.
 */
export const SIGNER_CLAIMS = ['given_name', 'family_name'] as const;

/** The credential queries of a sign or attestation request, in order: the transaction data names them all. */
export const SIGNER_QUERY_IDS = [CREDENTIAL_QUERY_ID, MDOC_QUERY_IDS.pid, MDOC_QUERY_IDS.mdl];

/**
 * Who signs or attests: the SD-JWT VC PID, the mdoc PID or the mDL (one of them; SIGNER_CLAIMS). sign and
 * attestation bind the documents' or terms' hashes through one transaction_data entry naming all of them: an
 * SD-JWT wallet signs its hash in the key-binding JWT (transaction_data_hashes), an mdoc wallet in a
 * device-signed namespace named like the type (transaction_data_hash), which its device signature covers.
 */
export const signerQuery = (binding: readonly string[] = []) => {
  const claims = [...new Set([...SIGNER_CLAIMS, ...binding])];
  return dcqlQueryWithAlternatives([
    buildIdentifyDcqlQuery(CREDENTIAL_QUERY_ID, PID_VCT, claims).credentials[0] as CredentialQueryInput,
    mdocIdentifyQuery(MDOC_QUERY_IDS.pid, MDOC_PID.doctype, claims),
    mdocIdentifyQuery(MDOC_QUERY_IDS.mdl, MDOC_MDL.doctype, claims),
  ]);
};

/**
 * A credential query that also asks for the first step's identifying claims (paths in its format). With
 * claim_sets (the age queries), every set gains them, so whichever set the wallet answers carries them.
 */
export function withBindingClaims(
  query: CredentialQueryInput,
  paths: readonly string[][],
): CredentialQueryInput {
  if (paths.length === 0) return query;
  const q = query as CredentialQueryInput & {
    claims?: { id?: string; path: unknown[]; intent_to_retain?: boolean }[];
    claim_sets?: string[][];
  };
  const extra = paths.map((path) => ({
    id: `holder_${String(path[path.length - 1])}`,
    path,
    ...(query.format === MDOC_FORMAT ? { intent_to_retain: false } : {}),
  }));
  if (!q.claim_sets) {
    const have = new Set((q.claims ?? []).map((c) => JSON.stringify(c.path)));
    const add = extra.filter((c) => !have.has(JSON.stringify(c.path))).map(({ id: _id, ...c }) => c);
    return { ...q, claims: [...(q.claims ?? []), ...add] } as CredentialQueryInput;
  }
  return {
    ...q,
    claims: [...(q.claims ?? []), ...extra],
    claim_sets: q.claim_sets.map((set) => [...set, ...extra.map((c) => c.id)]),
  } as CredentialQueryInput;
}

export function boundTransactionData(v: VerifiedPresentation, type: string) {
  const encoded = v.transactionData.find((s) => decodeTransactionData(s).type === type);
  // The verifier refuses a presentation that does not cover our request's transaction data: our bug if absent.
  if (!encoded) throw new Error(`no verified ${type} transaction data`);
  return { encoded, decoded: decodeTransactionData(encoded) };
}

/**
 * The holder's signature over the transaction data hash and the holder key, verifiable offline: SD-JWT VC, the
 * KB-JWT (compact JWS); mdoc, the device signature as a COSE_Sign1 with its DeviceAuthentication payload
 * attached (base64url CBOR, mdoc-verifier.ts mdocHolderSignature).
 */
export function holderProof(v: VerifiedPresentation, encoded: string) {
  const signature = v.format === MDOC_FORMAT ? v.deviceSignature : v.keyBindingJwt;
  // Both verifiers return the proof whenever they verified transaction data: our bug if absent.
  if (!signature) throw new Error(`no holder signature in a verified ${v.format} presentation`);
  return {
    transaction_data: encoded,
    holder_signature: signature,
    holder_key: { thumbprint: v.holderKeyThumbprint, jwk: v.holderJwk },
  };
}

/** The audit facts of a holder signature (sign, attestation; ADR 0046: key material only beside a signature). */
export const signedAuditFacts = (v: VerifiedPresentation): Record<string, unknown> => ({
  holder_key_thumbprint: v.holderKeyThumbprint,
  transaction_data_hashes_alg: TX_HASH_ALG,
  transaction_data_hashes: v.transactionData.map(transactionDataHash),
});

/** The signer's names as the holder-binding anchor claims of sign and attestation (in the sealed evidence). */
export const signerHolder = {
  disclosedClaims: () => SIGNER_CLAIMS,
  claimsIn: 'evidence',
} as const;
