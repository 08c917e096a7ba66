// Small crypto helpers shared by modules: constant-time comparison and HMAC.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Constant-time equality of two strings (compares fixed-length digests, so lengths leak nothing). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHmac('sha256', 'cmp').update(a).digest();
  const db = createHmac('sha256', 'cmp').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

/**
 * Constant-time equality of two strings whose length is public (digests of a fixed length, our own nonces):
 * one `timingSafeEqual` over the UTF-8 bytes, no HMAC round. UTF-8 is injective, so equal bytes are equal
 * strings; strings of different byte lengths are unequal, and that is all the answer says.
 */
export function digestEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

export const hmacSha256Hex = (secret: string, message: string): string =>
  createHmac('sha256', secret).update(message).digest('hex');
