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
