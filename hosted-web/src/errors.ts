// From a failure to what the person on the page reads: the server's stable error code picks a message of the
// catalogue (i18n/*.ts, key error.<code>); anything unknown falls back to the generic message, never to the
// server's (English-only) wording. The code is kept rather than the text so a language switch re-renders it.
import { ApiError } from './api';
import { hasMessage, t } from './i18n';
import type { UserError } from './types';

export type { UserError };

export function toUserError(err: unknown): UserError {
  if (err instanceof ApiError) {
    const key = `error.${err.code}`;
    return { key: hasMessage(key) ? key : 'error.generic', requestId: err.requestId };
  }
  return { key: 'error.generic' };
}

export function errorMessage(e: UserError): string {
  return t(e.key);
}
