// attestation: the person approves inline terms by signing their hash with the key of a PID or mDL.
import { buildWalletRequest } from '../../verification/request';
import {
  encodeTransactionData,
  sha256HexOfText,
  TX_HASH_ALG,
  TX_TYPE_ATTEST,
} from '../../verification/transaction-data';
import {
  boundTransactionData,
  holderProof,
  SD_JWT_OR_MDOC,
  SIGNER_QUERY_IDS,
  signedAuditFacts,
  signerHolder,
  signerQuery,
} from './request-parts';
import type { PrimitiveSpec } from './spec';

export const MAX_ATTESTATION_WORDS = 1000;

const wordCount = (s: string) => s.trim().split(/\s+/).filter(Boolean).length;

export const attestation: PrimitiveSpec<'attestation'> = {
  name: 'attestation',
  bit: 8,
  graphqlField: 'attestation',
  fields: ['terms'],
  example: { terms: 'I confirm that the details I gave are true.' },
  validate(s, { bad, forPublish }) {
    if (typeof s.terms !== 'string' || s.terms.trim() === '') throw bad('attestation needs terms.', 'terms');
    if (forPublish && wordCount(s.terms) > MAX_ATTESTATION_WORDS)
      throw bad(`attestation terms are limited to ${MAX_ATTESTATION_WORDS} words.`, 'terms');
    return { terms: s.terms };
  },
  windowMinutes: 10,
  formats: SD_JWT_OR_MDOC,
  request(step, nonce, ctx) {
    const terms = step.terms as string;
    const td = encodeTransactionData({
      type: TX_TYPE_ATTEST,
      credential_ids: SIGNER_QUERY_IDS,
      transaction_data_hashes_alg: [TX_HASH_ALG],
      terms_sha256: sha256HexOfText(terms),
      terms,
    });
    return buildWalletRequest({ nonce, dcqlQuery: signerQuery(ctx.bindingClaims), transactionData: [td] });
  },
  result(_step, v) {
    const td = boundTransactionData(v, TX_TYPE_ATTEST);
    return { terms_sha256: td.decoded.terms_sha256, ...holderProof(v, td.encoded) };
  },
  sealsEvidence: true,
  auditFacts: (_step, v) => signedAuditFacts(v),
  auditStatus: 'full',
  conditions: null,
  // Annex C's DeviceRequest has no place for transaction data: the terms' hash could not be device-signed
  annexC: false,
  holder: signerHolder,
  needsDocuments: false,
  ui: { title: 'steps.attestation', heading: 'step.headAttestation' },
};
