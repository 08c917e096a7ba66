// The one way from a server error code to the copy the dashboard shows, in the dashboard's language:
// DASH_ERRORS (messages/errors.ts) is keyed by the server's ErrorCode, so a code without words is a type error.
// A code this build does not know (a newer server) shows the server's own detail (written for people, in
// English), then the generic line.

import { dt } from './i18n';
import { DASH_ERRORS, DASH_GENERIC_ERROR } from './messages/errors';

/** True when the code has words of its own (not the generic line). */
export const hasOwnCopy = (code: string): boolean =>
  Object.hasOwn(DASH_ERRORS, code) && DASH_ERRORS[code as keyof typeof DASH_ERRORS] !== DASH_GENERIC_ERROR;

export function errorCopy(code: string, fallback?: string): string {
  if (Object.hasOwn(DASH_ERRORS, code)) return dt(DASH_ERRORS[code as keyof typeof DASH_ERRORS]);
  return fallback ?? dt(DASH_GENERIC_ERROR);
}
