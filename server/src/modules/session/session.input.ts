// Owns the rules of a create's input (spec 2.1 and its limits) and the step window a started step gets; pure.
import { AppError } from '../../common/errors';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { STEP_WINDOW_MINUTES } from '../workflow/workflow.steps';

export const SESSION_LIMITS = {
  expiresInDefault: 3600,
  expiresInMin: 60,
  expiresInMax: 86_400,
  metadataMaxBytes: 16 * 1024,
  idempotencyKeyMaxLength: 255,
  idempotencyRetentionHours: 24,
} as const;

export interface CreateSessionInput {
  workflow_id?: unknown;
  metadata?: unknown;
  expires_in?: unknown;
  /** Where the hosted page offers the way back after the end (ADR 0019). */
  return_url?: unknown;
}

export function validateCreateInput(input: CreateSessionInput): {
  workflowId: string;
  metadata: Record<string, unknown> | null;
  expiresIn: number;
} {
  const { workflow_id, metadata, expires_in } = input;
  if (typeof workflow_id !== 'string' || workflow_id === '')
    throw new AppError('validation_failed', 'workflow_id is required.', { param: 'workflow_id' });
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== 'object' || Array.isArray(metadata))
  )
    throw new AppError('validation_failed', 'metadata must be a JSON object.', { param: 'metadata' });
  if (metadata && Buffer.byteLength(JSON.stringify(metadata)) > SESSION_LIMITS.metadataMaxBytes)
    throw new AppError(
      'validation_failed',
      `metadata is limited to ${SESSION_LIMITS.metadataMaxBytes} bytes of JSON.`,
      {
        param: 'metadata',
      },
    );
  let expiresIn: number = SESSION_LIMITS.expiresInDefault;
  if (expires_in !== undefined && expires_in !== null) {
    if (
      typeof expires_in !== 'number' ||
      !Number.isInteger(expires_in) ||
      expires_in < SESSION_LIMITS.expiresInMin ||
      expires_in > SESSION_LIMITS.expiresInMax
    )
      throw new AppError(
        'validation_failed',
        `expires_in must be an integer number of seconds from ${SESSION_LIMITS.expiresInMin} to ${SESSION_LIMITS.expiresInMax}.`,
        { param: 'expires_in' },
      );
    expiresIn = expires_in;
  }
  return {
    workflowId: workflow_id,
    metadata: (metadata as Record<string, unknown> | undefined) ?? null,
    expiresIn,
  };
}

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
