// What each primitive asks of a wallet and what the business receives from a verified presentation, answered
// by the primitive registry (workflow/primitives, ADR 0054). The session transport calls these functions and
// stays primitive-agnostic:
// - requestForStep: the OpenID4VP request (DCQL query, and for sign/attestation the transaction_data that binds
//   the documents' or terms' SHA-256 to the holder's key: SD-JWT KB-JWT or mdoc device signature);
// - resultForStep: the business-visible result (PrimitiveSpec.result);
// - evidenceForStep: what is kept encrypted as evidence (PrimitiveSpec.sealsEvidence: the full presentation);
// - auditFactsForStep, auditStatusForStep: the facts of the signed audit record (no personal data).

import { identifyingClaimsOf } from '../../verification/identifying-claims';
import type { VerifiedPresentation } from '../../verification/presentation-verifier';
import { PRIMITIVE_SPECS, type Primitive, perPrimitive } from './index';
import type { StepRequestContext } from './spec';
import type { WorkflowStep } from './step';

export { ageOn, MDOC_MAX_AGE_THRESHOLD } from './age-verify';
export { MDOC_QUERY_IDS, SIGNER_CLAIMS } from './request-parts';
export type { StepDocument, StepRequestContext } from './spec';

/**
 * The credential formats this verifier asks for, per primitive (PrimitiveSpec.formats). The catalog uses it so
 * that a route's per-primitive formats and capabilities are only what this service can verify.
 */
export const PRIMITIVE_FORMATS: Readonly<Record<Primitive, readonly string[]>> = perPrimitive(
  (p) => PRIMITIVE_SPECS[p].formats,
);

/** The OpenID4VP request (DC API profile) for a step, with a fresh nonce chosen by the caller. */
export function requestForStep(
  step: WorkflowStep,
  nonce: string,
  ctx: StepRequestContext = {},
): { request: Record<string, unknown> } {
  return PRIMITIVE_SPECS[step.primitive].request(step, nonce, ctx);
}

/** The business-visible result of a verified step. */
export function resultForStep(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown> {
  return PRIMITIVE_SPECS[step.primitive].result(step, v);
}

/** The plaintext kept as encrypted evidence (null: nothing beyond the result and the audit record). */
export function evidenceForStep(step: WorkflowStep, v: VerifiedPresentation): Buffer | null {
  if (!PRIMITIVE_SPECS[step.primitive].sealsEvidence) return null;
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
  return PRIMITIVE_SPECS[step.primitive].auditFacts(step, v);
}

/**
 * The audit record's `status` (ADR 0046). The status list's URI and index name one credential across sessions
 * and businesses, like the holder key: the record keeps them only beside a holder signature (auditStatus
 * `full`: sign, attestation, whose result carries the key anyway); the others get the outcome (and an mdoc's
 * reason for `not_applicable`), and the sealed evidence, where there is one, keeps the reference.
 */
export function auditStatusForStep(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown> {
  if (PRIMITIVE_SPECS[step.primitive].auditStatus === 'full') return { ...v.statusChecked };
  const checked = v.statusChecked as { status: string; reason?: string; lists?: { mechanism: string }[] };
  return {
    status: checked.status,
    ...(checked.reason !== undefined ? { reason: checked.reason } : {}),
    // an mdoc's mechanisms (status list, identifier list) without their URIs and indexes
    ...(checked.lists ? { lists: checked.lists.map(({ mechanism }) => ({ mechanism })) } : {}),
  };
}
