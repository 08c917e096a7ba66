// Owns the rules of a create's input (spec 2.1 and its limits) and the step window a started step gets; pure.
import { AppError } from '../../common/errors';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { STEP_WINDOW_MINUTES } from '../workflow/workflow.steps';
import { type CreateSessionInput, parseCreateInput, SESSION_LIMITS } from './session.contract';

// The create input's rules and the spec's limits are the route contract's (session.contract.ts, ADR 0037).
export { type CreateSessionInput, SESSION_LIMITS } from './session.contract';

/** The create input, checked by the one schema of the route contract. */
export const validateCreateInput = (input: CreateSessionInput) => parseCreateInput(input);

export function validateIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > SESSION_LIMITS.idempotencyKeyMaxLength || !/^[\x21-\x7e]+$/.test(key))
    throw new AppError(
      'validation_failed',
      `Idempotency-Key must be 1-${SESSION_LIMITS.idempotencyKeyMaxLength} printable ASCII characters.`,
      { param: 'Idempotency-Key' },
    );
  return key;
}

/** The step window end for a step starting now, never beyond the overall expiry. */
export function stepWindowEnd(step: WorkflowStep, now: Date, overall: Date): Date {
  const end = new Date(now.getTime() + STEP_WINDOW_MINUTES[step.primitive] * 60_000);
  return end < overall ? end : overall;
}
