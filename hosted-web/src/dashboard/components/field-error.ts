// A server refusal on the field it names (issue 29: errors in words, as the workflow editor shows them): the
// error's `param` (e.g. input.privacyPolicyUrl) picks the field, whose line is a sentence written for the
// person; the server's own detail is the fallback. The code stays in the alert, small.
import { DashError } from '../api';

/** The sentence for `field` when the last error names it (param `field` or `<prefix>.field`), else null. */
export function fieldErrorOf(error: unknown, field: string, words: Record<string, string>): string | null {
  if (!(error instanceof DashError) || !error.param) return null;
  const named = error.param.replace(/^input\./, '');
  if (named !== field) return null;
  return words[field] ?? error.detail ?? null;
}

/**
 * The step (0-based), field and sentence of a workflow_invalid refusal whose `param` names a step field
 * (steps[2].terms); the sentence without its "Step 3: " (the step card's heading says it).
 */
export function stepErrorOf(error: unknown): { step: number; field: string; text: string } | null {
  if (!(error instanceof DashError) || error.code !== 'workflow_invalid' || !error.param) return null;
  const m = /^steps\[(\d+)\](?:\.(\w+))?/.exec(error.param);
  if (!m) return null;
  return { step: Number(m[1]), field: m[2] ?? '', text: (error.detail ?? '').replace(/^Step \d+: /, '') };
}

/** The server's refusal of a workflow's intended use, for the field it names (param intendedUse.purpose). */
export function useErrorOf(error: unknown, field: string): string | null {
  return error instanceof DashError &&
    error.code === 'workflow_invalid' &&
    error.param === `intendedUse.${field}`
    ? (error.detail ?? error.code)
    : null;
}
