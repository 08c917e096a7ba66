// sign: the person signs the session's uploaded documents' hashes with the key of a PID or mDL in the wallet.
import { buildWalletRequest } from '../../verification/request';
import { encodeTransactionData, TX_HASH_ALG, TX_TYPE_SIGN } from '../../verification/transaction-data';
import {
  boundTransactionData,
  holderProof,
  SD_JWT_OR_MDOC,
  SIGNER_QUERY_IDS,
  signedAuditFacts,
  signerHolder,
  signerQuery,
} from './request-parts';
import type { PrimitiveSpec, StepDocument } from './spec';

/** Documents a sign step may ask for per session (README Limits: 10 files). */
export const MAX_SIGN_DOCUMENTS = 10;

export const sign: PrimitiveSpec<'sign'> = {
  name: 'sign',
  bit: 4,
  graphqlField: 'sign',
  fields: ['documents'],
  example: { documents: 1 },
  validate(s, { bad }) {
    if (
      !Number.isInteger(s.documents) ||
      (s.documents as number) < 1 ||
      (s.documents as number) > MAX_SIGN_DOCUMENTS
    )
      throw bad(`sign needs documents between 1 and ${MAX_SIGN_DOCUMENTS}.`, 'documents');
    return { documents: s.documents };
  },
  windowMinutes: 30,
  formats: SD_JWT_OR_MDOC,
  request(_step, nonce, ctx) {
    const documents = ctx.documents ?? [];
    // The session service refuses a sign session without its documents, so this is our bug.
    if (documents.length === 0) throw new Error('a sign step has no documents');
    const td = encodeTransactionData({
      type: TX_TYPE_SIGN,
      credential_ids: SIGNER_QUERY_IDS,
      transaction_data_hashes_alg: [TX_HASH_ALG],
      documents: documents.map(({ label, sha256, size, content_type }) => ({
        label,
        sha256,
        size,
        content_type,
      })),
    });
    return buildWalletRequest({ nonce, dcqlQuery: signerQuery(ctx.bindingClaims), transactionData: [td] });
  },
  result(_step, v) {
    const td = boundTransactionData(v, TX_TYPE_SIGN);
    const documents = (td.decoded.documents as StepDocument[]).map(
      ({ label, sha256, size, content_type }) => ({
        label,
        sha256,
        size,
        content_type,
      }),
    );
    return { documents, ...holderProof(v, td.encoded) };
  },
  sealsEvidence: true,
  auditFacts: (_step, v) => signedAuditFacts(v),
  auditStatus: 'full',
  conditions: null,
  // Annex C's DeviceRequest has no place for transaction data: the hashes could not be device-signed
  annexC: false,
  holder: signerHolder,
  needsDocuments: true,
  ui: { title: 'steps.sign', heading: 'step.headSignMany' },
};
