// Owns "one person across the steps" (ADR 0026): every wallet step of a session is presented by the holder of
// the session's first step (the anchor, stage 0), unless the workflow opts the step out (`holder: "any"`).
// - same holder key (RFC 7638 thumbprint of the SD-JWT VC cnf.jwk / mdoc deviceKey) => bound by `holder_key`;
// - another key => the step's request also asked for the anchor's identifying claims (bindingClaimsFor), and
//   they must equal the anchor's under sameClaimValue => bound by `claims`;
// - anything else is the refusal `holder_mismatch` (the transport stores nothing of the step).
// The anchor's identifying claims are what its step disclosed: an identify step's requested names and birth
// date (its stored result), a sign or attestation step's names (its sealed evidence, `identifying_claims`). An
// age_verify anchor discloses no identity (data minimisation): later steps must then use the same key.
// The binding a result carries is a fact ({by, bound_to_stage}), never the key or its thumbprint (ADR 0046): the
// anchor's thumbprint lives on the session row (`anchor_holder_key`) while the session runs, and in the sealed
// evidence of the steps that have evidence.
import type { EntityManager } from 'typeorm';
import { AppError } from '../../common/errors';
import type { EvidenceService } from '../evidence/evidence.service';
import {
  IDENTIFYING_CLAIMS,
  type IdentifyingClaim,
  identifyingClaimsOf,
  sameClaimValue,
} from '../verification/identifying-claims';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import { holderPolicyOf, type WorkflowStep } from '../workflow/workflow.steps';

/** Binding by claims needs at least the full name; the birth date is compared whenever the anchor had it. */
const REQUIRED_FOR_CLAIMS_BINDING: readonly IdentifyingClaim[] = ['given_name', 'family_name'];

export const ANCHOR_STAGE = 0;

export type HolderBindingBy = 'first' | 'holder_key' | 'claims' | 'opted_out';

/**
 * The binding facts of one step: in its result, its step.completed data and its audit record. No key, no
 * thumbprint, nothing derived from one (ADR 0046): a thumbprint is a stable identifier across sessions and
 * businesses, and the fact that a step was bound to the first step's holder is what a business relies on.
 */
export interface HolderBinding {
  by: HolderBindingBy;
  /** The stage this step is bound to (the anchor, 0); null for the anchor itself and opted-out steps. */
  bound_to_stage: number | null;
}

/**
 * The identifying claims the anchor step discloses, by its definition (known before any wallet answers): what a
 * later bound step must also ask for. Empty when they cannot bind by claims (then only the same key binds).
 */
export function anchorIdentifyingClaims(anchor: WorkflowStep | undefined): IdentifyingClaim[] {
  if (!anchor) return [];
  const disclosed = PRIMITIVE_SPECS[anchor.primitive].holder.disclosedClaims(anchor);
  const claims = IDENTIFYING_CLAIMS.filter((c) => disclosed.includes(c));
  return REQUIRED_FOR_CLAIMS_BINDING.every((c) => claims.includes(c)) ? claims : [];
}

/** The identifying claims the request of `stage` must add (empty for the anchor and opted-out steps). */
export function bindingClaimsFor(steps: readonly WorkflowStep[], stage: number): IdentifyingClaim[] {
  const step = steps[stage];
  if (!step || stage === ANCHOR_STAGE || holderPolicyOf(step) === 'any') return [];
  return anchorIdentifyingClaims(steps[ANCHOR_STAGE]);
}

/** What is known of the anchor when a later step is verified. */
export interface AnchorHolder {
  holderKeyThumbprint: string;
  claims: Partial<Record<IdentifyingClaim, string>>;
}

/**
 * The binding of a verified presentation at `stage`, or the refusal holder_mismatch. `anchor` is null only
 * for the anchor itself (stage 0).
 */
export function decideHolderBinding(input: {
  steps: readonly WorkflowStep[];
  stage: number;
  anchor: AnchorHolder | null;
  holderKeyThumbprint: string;
  claims: Record<string, unknown>;
}): HolderBinding {
  const step = input.steps[input.stage] as WorkflowStep;
  const thumbprint = input.holderKeyThumbprint;
  if (input.stage === ANCHOR_STAGE) return { by: 'first', bound_to_stage: null };
  if (holderPolicyOf(step) === 'any') return { by: 'opted_out', bound_to_stage: null };
  const anchor = input.anchor;
  // every later stage runs after the anchor completed; a missing anchor is our bug, never a pass
  if (!anchor) throw new Error('the first step of the session has no recorded holder');
  const bound = { bound_to_stage: ANCHOR_STAGE };
  if (constantTimeEqual(anchor.holderKeyThumbprint, thumbprint)) return { by: 'holder_key', ...bound };
  const wanted = bindingClaimsFor(input.steps, input.stage);
  const presented = identifyingClaimsOf(input.claims);
  const comparable =
    wanted.length > 0 &&
    wanted.every((c) => anchor.claims[c] !== undefined && presented[c] !== undefined) &&
    wanted.every((c) => sameClaimValue(anchor.claims[c] as string, presented[c] as string));
  if (comparable) return { by: 'claims', ...bound };
  throw new AppError(
    'holder_mismatch',
    wanted.length > 0
      ? 'This credential belongs to someone other than the person who completed the first step (different holder key and different name or birth date).'
      : 'This credential belongs to someone other than the person who completed the first step (different holder key; the first step disclosed no name to compare).',
  );
}

function constantTimeEqual(a: string, b: string): boolean {
  // thumbprints are public values, but compare without an early exit anyway (CONVENTIONS: constant-time)
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * The anchor's holder: its key thumbprint from the session row (`anchor_holder_key`, written when the anchor
 * completed; a session whose anchor completed before ADR 0046 has it in its stored result instead), its
 * identifying claims from its result (identify) or its sealed evidence (sign, attestation). The caller
 * (completion, which owns the session's tables) passes the anchor step's stored result (`anchorResult`, its
 * step_result JSON), so this module reads no session table.
 */
export async function loadAnchorHolder(
  m: EntityManager,
  evidence: Pick<EvidenceService, 'open'>,
  session: { id: string; anchorHolderKey: string | null },
  steps: readonly WorkflowStep[],
  anchorResult: string,
): Promise<AnchorHolder> {
  const sessionId = session.id;
  const result = JSON.parse(anchorResult) as {
    claims?: Record<string, unknown>;
    holder_binding?: { holder_key_thumbprint?: string };
  };
  const holderKeyThumbprint = session.anchorHolderKey ?? result.holder_binding?.holder_key_thumbprint;
  if (!holderKeyThumbprint) throw new Error('the first step of the session has no recorded holder key');
  const wanted = anchorIdentifyingClaims(steps[ANCHOR_STAGE]);
  if (wanted.length === 0) return { holderKeyThumbprint, claims: {} };
  const anchor = steps[ANCHOR_STAGE];
  if (anchor && PRIMITIVE_SPECS[anchor.primitive].holder.claimsIn === 'result')
    return { holderKeyThumbprint, claims: identifyingClaimsOf(result.claims ?? {}) };
  const plain = await evidence.open(m, sessionId, ANCHOR_STAGE);
  const sealed = plain
    ? (JSON.parse(plain.toString('utf8')) as { identifying_claims?: Record<string, unknown> })
    : {};
  return { holderKeyThumbprint, claims: identifyingClaimsOf(sealed.identifying_claims ?? {}) };
}
