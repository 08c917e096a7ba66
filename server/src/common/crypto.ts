// Small crypto helpers shared by modules: constant-time comparison and HMAC.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Constant-time equality of two strings (compares fixed-length digests, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHmac('sha256', 'cmp').update(a).digest();
  const db = createHmac('sha256', 'cmp').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

export const hmacSha256Hex = (secret: string, message: string): string =>
  createHmac('sha256', secret).update(message).digest('hex');
