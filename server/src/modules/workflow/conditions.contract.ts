// Owns the contract shape of a workflow condition that matched (ADR 0031), as audit records carry it.
import { z } from 'zod';
import { CONDITION_FAILURE_REASONS, CONDITION_OPERATORS, CONDITION_OUTCOMES } from './conditions';

/** A workflow condition that matched a step's result (ADR 0031): which one, and what it decided. */
export const ConditionMatchSchema = z
  .object({
    index: z
      .number()
      .int()
      .min(0)
      .describe("Zero-based position in the step's conditions (first match wins)."),
    claim: z
      .string()
      .describe('What it tested: `over` (age_verify), nationality or document_status (identify).'),
    operator: z.enum(CONDITION_OPERATORS),
    outcome: z.enum(CONDITION_OUTCOMES),
    skip_to: z.number().int().min(0).optional().describe('skip: the zero-based step the session went on at.'),
    failure_reason: z.enum(CONDITION_FAILURE_REASONS).optional().describe('fail: the failure_reason code.'),
  })
  .strict()
  .meta({ title: 'ConditionMatch' });
