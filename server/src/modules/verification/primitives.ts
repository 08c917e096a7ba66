// Owns what each primitive asks of a wallet and what the business receives from a verified presentation.
// The session transport calls these functions and stays primitive-agnostic:
// - requestForStep: the OpenID4VP request (DCQL query, and for sign/attestation the transaction_data that binds
//   the documents' or terms' SHA-256 to the holder's key: SD-JWT KB-JWT or mdoc device signature);
// - resultForStep: the business-visible result (identify: claims; age_verify: only {over, threshold}; sign and
//   attestation: hashes plus the holder signature and key);
// - evidenceForStep: what is kept encrypted as evidence (the full presentation for age_verify, sign, attestation);
// - auditFactsForStep: primitive-specific facts for the signed audit record (no personal data).
import { AppError } from '../../common/errors';
import type { Primitive, WorkflowStep } from '../workflow/workflow.steps';
import {
  ageOverClaimOf,
  buildAgeDcqlQuery,
  buildIdentifyDcqlQuery,
  DISCLOSED_IDENTIFY_CLAIMS,
  PID_VCT,
} from './dcql';
import { identifyingClaimsOf } from './holder-binding';
import {
  ageOverElement,
  dcqlQueryWithAlternatives,
  MDOC_AV,
  MDOC_FORMAT,
  MDOC_ID_PASS,
  MDOC_MDL,
  MDOC_PHOTO_ID,
  MDOC_PID,
  mdocAgeQuery,
  mdocIdentifyQuery,
} from './mdoc/mdoc-query';
import type { VerifiedPresentation } from './presentation-verifier';
import { buildWalletRequest, CREDENTIAL_QUERY_ID } from './request';
import {
  decodeTransactionData,
  encodeTransactionData,
  sha256HexOfText,
  TX_HASH_ALG,
  TX_TYPE_ATTEST,
  TX_TYPE_SIGN,
  transactionDataHash,
} from './transaction-data';

/** A sign step's document as bound into the request (from the document rows of the session). */
export interface StepDocument {
  label: string;
  sha256: string;
  size: number;
  content_type: string;
}

export interface StepRequestContext {
  /** sign: the documents of this step, in upload order. */
  documents?: StepDocument[];
  /**
   * The first step's identifying claims this later step must also ask for, to bind its holder by claims when
   * the key differs (holder-binding.ts bindingClaimsFor; empty or absent: nothing added).
   */
  bindingClaims?: readonly string[];
}

/**
 * Claims a sign or attestation step asks the wallet to disclose: who signed. They are kept only in the
 * encrypted evidence; the business result carries hashes, the holder signature and the holder key.
 */
export const SIGNER_CLAIMS = ['given_name', 'family_name'] as const;

/**
 * The credential formats this verifier asks for, per primitive (what requestForStep offers): every primitive
 * takes the SD-JWT VC PID or an ISO mdoc (EU PID, mDL; for age also the EU age-verification attestation). sign
 * and attestation bind their transaction data in the KB-JWT (SD-JWT VC) or in device-signed namespaces (mdoc).
 * The catalog uses it so that a route's per-primitive formats and capabilities are only what this service can
 * verify.
 */
export const PRIMITIVE_FORMATS: Readonly<Record<Primitive, readonly string[]>> = {
  identify: ['dc+sd-jwt', MDOC_FORMAT],
  age_verify: ['dc+sd-jwt', MDOC_FORMAT],
  sign: ['dc+sd-jwt', MDOC_FORMAT],
  attestation: ['dc+sd-jwt', MDOC_FORMAT],
};

/** Credential query ids of the mdoc alternatives (the SD-JWT VC PID query is CREDENTIAL_QUERY_ID, `pid`). */
export const MDOC_QUERY_IDS = {
  pid: 'pid_mdoc',
  mdl: 'mdl',
  av: 'av_mdoc',
  photoId: 'photoid_mdoc',
  idPass: 'idpass_mdoc',
} as const;

/** The highest age_verify threshold an mdoc can answer (ISO 18013-5 `age_over_NN` has two digits). */
export const MDOC_MAX_AGE_THRESHOLD = 99;

type CredentialQueryInput = Parameters<typeof dcqlQueryWithAlternatives>[0][number];

/**
 * The OpenID4VP request (DC API profile) for a step, with a fresh nonce chosen by the caller. identify and
 * age_verify offer alternatives (DCQL credential_sets): the SD-JWT VC PID or an ISO mdoc; the wallet answers one.
 */
export function requestForStep(
  step: WorkflowStep,
  nonce: string,
  ctx: StepRequestContext = {},
): { request: Record<string, unknown> } {
  switch (step.primitive) {
    case 'identify': {
      const claims = [
        ...new Set([
          ...(step.claims ?? []).filter((c) => c !== 'document_status'),
          ...(ctx.bindingClaims ?? []),
        ]),
      ];
      const sdJwt = buildIdentifyDcqlQuery(CREDENTIAL_QUERY_ID, PID_VCT, claims).credentials[0];
      // One of: the SD-JWT VC PID, the mdoc PID, or the mobile driving licence (it carries every identify claim).
      return buildWalletRequest({
        nonce,
        dcqlQuery: dcqlQueryWithAlternatives([
          sdJwt as CredentialQueryInput,
          mdocIdentifyQuery(MDOC_QUERY_IDS.pid, MDOC_PID.doctype, claims),
          mdocIdentifyQuery(MDOC_QUERY_IDS.mdl, MDOC_MDL.doctype, claims),
          // Apple's Digital ID and Google's ID pass, last: wallets holding a PID or an mDL answer as before
          mdocIdentifyQuery(MDOC_QUERY_IDS.photoId, MDOC_PHOTO_ID.doctype, claims),
          mdocIdentifyQuery(MDOC_QUERY_IDS.idPass, MDOC_ID_PASS.doctype, claims),
        ]),
      });
    }
    case 'age_verify': {
      const threshold = step.threshold as number;
      const binding = ctx.bindingClaims ?? [];
      const sdJwt = withBindingClaims(
        buildAgeDcqlQuery(CREDENTIAL_QUERY_ID, PID_VCT, threshold).credentials[0] as CredentialQueryInput,
        binding.map((c) => [c]),
      );
      // ISO 18013-5 names age statements with two digits (age_over_NN): above 99 only the SD-JWT VC can answer.
      // Among the mdocs the age-verification attestation comes first: it discloses nothing but the age statement.
      const mdoc =
        threshold <= MDOC_MAX_AGE_THRESHOLD
          ? [
              // the age-verification attestation carries no identity: presented with another key, it cannot bind
              mdocAgeQuery(MDOC_QUERY_IDS.av, MDOC_AV.doctype, threshold),
              withBindingClaims(
                mdocAgeQuery(MDOC_QUERY_IDS.pid, MDOC_PID.doctype, threshold),
                binding.map((c) => [MDOC_PID.namespace, c]),
              ),
              withBindingClaims(
                mdocAgeQuery(MDOC_QUERY_IDS.mdl, MDOC_MDL.doctype, threshold),
                binding.map((c) => [MDOC_MDL.namespace, c]),
              ),
              withBindingClaims(
                mdocAgeQuery(MDOC_QUERY_IDS.photoId, MDOC_PHOTO_ID.doctype, threshold),
                binding.map((c) => [MDOC_PHOTO_ID.namespace, c]),
              ),
              withBindingClaims(
                mdocAgeQuery(MDOC_QUERY_IDS.idPass, MDOC_ID_PASS.doctype, threshold),
                binding.map((c) => [MDOC_ID_PASS.namespace, c]),
              ),
            ]
          : [];
      return buildWalletRequest({
        nonce,
        dcqlQuery: dcqlQueryWithAlternatives([sdJwt, ...mdoc]),
      });
    }
    // sign and attestation ask for one of the SD-JWT VC PID, the mdoc PID or the mDL (who signs), and bind the
    // documents' or terms' hashes through one transaction_data entry naming all of them: an SD-JWT wallet signs
    // its hash in the key-binding JWT (transaction_data_hashes), an mdoc wallet in a device-signed namespace
    // named like the type (transaction_data_hash), which its device signature covers (transaction-data.ts).
    case 'sign': {
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
    }
    case 'attestation': {
      const terms = step.terms as string;
      const td = encodeTransactionData({
        type: TX_TYPE_ATTEST,
        credential_ids: SIGNER_QUERY_IDS,
        transaction_data_hashes_alg: [TX_HASH_ALG],
        terms_sha256: sha256HexOfText(terms),
        terms,
      });
      return buildWalletRequest({ nonce, dcqlQuery: signerQuery(ctx.bindingClaims), transactionData: [td] });
    }
  }
}

/**
 * A credential query that also asks for the first step's identifying claims (paths in its format). With
 * claim_sets (the age queries), every set gains them, so whichever set the wallet answers carries them.
 */
function withBindingClaims(query: CredentialQueryInput, paths: readonly string[][]): CredentialQueryInput {
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

/** The credential queries of a sign or attestation request, in order: the transaction data names them all. */
const SIGNER_QUERY_IDS = [CREDENTIAL_QUERY_ID, MDOC_QUERY_IDS.pid, MDOC_QUERY_IDS.mdl];

/** Who signs or attests: the SD-JWT VC PID, the mdoc PID or the mDL (one of them; SIGNER_CLAIMS). */
const signerQuery = (binding: readonly string[] = []) => {
  const claims = [...new Set([...SIGNER_CLAIMS, ...binding])];
  return dcqlQueryWithAlternatives([
    buildIdentifyDcqlQuery(CREDENTIAL_QUERY_ID, PID_VCT, claims).credentials[0] as CredentialQueryInput,
    mdocIdentifyQuery(MDOC_QUERY_IDS.pid, MDOC_PID.doctype, claims),
    mdocIdentifyQuery(MDOC_QUERY_IDS.mdl, MDOC_MDL.doctype, claims),
  ]);
};

/** The business-visible result of a verified step. */
export function resultForStep(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown> {
  switch (step.primitive) {
    case 'identify': {
      const claims: Record<string, unknown> = {};
      for (const c of step.claims ?? []) if (c in v.claims) claims[c] = v.claims[c];
      return { claims };
    }
    case 'age_verify': {
      const threshold = step.threshold as number;
      return { over: ageAnswer(threshold, v).over, threshold };
    }
    case 'sign': {
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
    }
    case 'attestation': {
      const td = boundTransactionData(v, TX_TYPE_ATTEST);
      return { terms_sha256: td.decoded.terms_sha256, ...holderProof(v, td.encoded) };
    }
  }
}

/** The plaintext kept as encrypted evidence (null: nothing beyond the result and the audit record). */
export function evidenceForStep(step: WorkflowStep, v: VerifiedPresentation): Buffer | null {
  if (step.primitive === 'identify') return null;
  return Buffer.from(
    JSON.stringify({
      format: v.format,
      // the DC API protocol the answer came over, when it was not OpenID4VP (ISO 18013-7 Annex C)
      ...(v.protocol ? { protocol: v.protocol } : {}),
      issuer: v.issuer,
      vct: v.vct,
      presentation: v.presentation,
      transaction_data: v.transactionData,
      // who presented, for binding later steps by claims (holder-binding.ts loadAnchorHolder); sealed only
      identifying_claims: identifyingClaimsOf(v.claims),
      // the holder key and the credential's status reference, which no age_verify result or audit record
      // carries (ADR 0046): an auditor who opens the evidence checks continuity and revocation from here
      holder_key_thumbprint: v.holderKeyThumbprint,
      status_checked: v.statusChecked,
    }),
    'utf8',
  );
}

/** Facts for the signed audit record beyond the common ones (never the birth date or other claims). */
export function auditFactsForStep(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown> {
  switch (step.primitive) {
    case 'identify':
      return {};
    case 'age_verify':
      return { age_basis: ageAnswer(step.threshold as number, v).basis };
    case 'sign':
    case 'attestation':
      return {
        // the key of the holder signature the result carries (ADR 0046: key material only beside a signature)
        holder_key_thumbprint: v.holderKeyThumbprint,
        transaction_data_hashes_alg: TX_HASH_ALG,
        transaction_data_hashes: v.transactionData.map(transactionDataHash),
      };
  }
}

/**
 * over from the age-over claim when the wallet disclosed it, else from the birth date at verification time.
 * A person under the threshold completes the step with over: false (the business decides what follows).
 */
function ageAnswer(threshold: number, v: VerifiedPresentation): { over: boolean; basis: string } {
  // SD-JWT VC: age_over_<n>; mdoc: the ISO element age_over_NN (two digits, so age_over_05 for 5).
  const ageOver = [ageOverClaimOf(threshold), ageOverElement(threshold)].find((c) => c in v.claims);
  if (ageOver) {
    const value = v.claims[ageOver];
    if (typeof value !== 'boolean') throw new AppError('claims_missing', `${ageOver} is not a boolean.`);
    return { over: value, basis: ageOver };
  }
  const birthPath = DISCLOSED_IDENTIFY_CLAIMS.birth_date.join('.');
  const age = ageOn(v.claims[birthPath], v.verifiedAt);
  if (age === null)
    throw new AppError(
      'claims_missing',
      `Neither ${ageOverClaimOf(threshold)} nor a valid birth_date was disclosed.`,
    );
  return { over: age >= threshold, basis: 'birth_date' };
}

/** Completed years at `now` (UTC) for a YYYY-MM-DD birth date; null when not a real date. */
export function ageOn(birthDate: unknown, now: Date): number | null {
  if (typeof birthDate !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  if (date > now) return null;
  const beforeBirthday = now.getUTCMonth() + 1 < mo || (now.getUTCMonth() + 1 === mo && now.getUTCDate() < d);
  return now.getUTCFullYear() - y - (beforeBirthday ? 1 : 0);
}

function boundTransactionData(v: VerifiedPresentation, type: string) {
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
function holderProof(v: VerifiedPresentation, encoded: string) {
  const signature = v.format === MDOC_FORMAT ? v.deviceSignature : v.keyBindingJwt;
  // Both verifiers return the proof whenever they verified transaction data: our bug if absent.
  if (!signature) throw new Error(`no holder signature in a verified ${v.format} presentation`);
  return {
    transaction_data: encoded,
    holder_signature: signature,
    holder_key: { thumbprint: v.holderKeyThumbprint, jwk: v.holderJwk },
  };
}

/**
 * The audit record's `status` (ADR 0046). The status list's URI and index name one credential across sessions
 * and businesses, like the holder key: the record keeps them only beside a holder signature (sign, attestation,
 * whose result carries the key anyway); identify and age_verify get the outcome (and an mdoc's reason for
 * `not_applicable`), and the sealed evidence, where there is one, keeps the reference.
 */
export function auditStatusForStep(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown> {
  if (step.primitive === 'sign' || step.primitive === 'attestation') return { ...v.statusChecked };
  const checked = v.statusChecked as { status: string; reason?: string; lists?: { mechanism: string }[] };
  return {
    status: checked.status,
    ...(checked.reason !== undefined ? { reason: checked.reason } : {}),
    // an mdoc's mechanisms (status list, identifier list) without their URIs and indexes
    ...(checked.lists ? { lists: checked.lists.map(({ mechanism }) => ({ mechanism })) } : {}),
  };
}
