// Small crypto helpers shared by modules: constant-time comparison and HMAC.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Constant-time equality of two strings (compares fixed-length digests, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHmac('sha256', 'cmp').update(a).digest();
  const db = createHmac('sha256', 'cmp').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/**
 * Constant-time equality of two digests of one fixed length (e.g. SHA-256 hex): no HMAC round needed, since
 * the length is public. Strings of different lengths are unequal (and that is all the answer says).
 */
export function digestEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));
}

export const hmacSha256Hex = (secret: string, message: string): string =>
  createHmac('sha256', secret).update(message).digest('hex');
