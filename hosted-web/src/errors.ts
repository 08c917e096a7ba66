// From a failure to what the person on the page reads: the server's stable error code picks a message of the
// catalogue (i18n/*.ts) through ERROR_MESSAGES (error-messages.ts, keyed by ErrorCode: a code without words is
// a type error); the code is kept rather than the text so a language switch re-renders it. A code unknown to
// this build (a newer server) gets the generic message, never the server's English wording.
import { ApiError } from './api';
import { ERROR_MESSAGES, GENERIC } from './error-messages';
import type { MessageKey } from './i18n';
import { t } from './i18n';
import type { UserError } from './types';

export type { UserError };

/** The message of a code; one this build does not know (a newer server) gets the generic message. */
export const errorKey = (code: string): MessageKey =>
  Object.hasOwn(ERROR_MESSAGES, code) ? ERROR_MESSAGES[code as keyof typeof ERROR_MESSAGES] : GENERIC;

export function toUserError(err: unknown): UserError {
  if (err instanceof ApiError) return { key: errorKey(err.code), requestId: err.requestId };
  return { key: GENERIC };
}

export function errorMessage(e: UserError): string {
  return t(e.key);
}
