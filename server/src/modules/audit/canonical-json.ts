// Owns the canonical form of audit content: RFC 8785 JSON Canonicalization Scheme (JCS) and its SHA-256.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** RFC 8785 canonical JSON text. Throws for values JSON cannot represent (undefined, NaN, Infinity). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error('value has no JSON representation');
  return text;
}

/** SHA-256 of the canonical UTF-8 bytes: the 32-byte digest that is signed. */
export const canonicalDigest = (value: unknown): Buffer =>
  createHash('sha256').update(canonicalJson(value), 'utf8').digest();
