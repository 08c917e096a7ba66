// Owns what each primitive asks of a wallet and what the business receives from a verified presentation.
// The session transport calls these two functions and stays primitive-agnostic.
import type { WorkflowStep } from '../workflow/workflow.steps';
import { PID_VCT } from './dcql';
import type { VerifiedPresentation } from './presentation-verifier';
import { buildWalletRequest } from './request';

/** The OpenID4VP request (DC API profile) for a step, with a fresh nonce chosen by the caller. */
export function requestForStep(step: WorkflowStep, nonce: string): { request: Record<string, unknown> } {
  const claims = (step.claims ?? []).filter((c) => c !== 'document_status');
  return buildWalletRequest({ nonce, claims, vct: PID_VCT });
}

/** The business-visible result of a verified step (identify: only the requested claims). */
export function resultForStep(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const c of step.claims ?? []) if (c in v.claims) claims[c] = v.claims[c];
  return { claims };
}
