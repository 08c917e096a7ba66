// Constant-time comparisons: digestEqual (public lengths) must be exact string equality.
import { describe, expect, it } from 'vitest';
import { digestEqual, safeEqual } from './crypto';

describe('digestEqual', () => {
  it('is string equality, also for characters outside Latin-1 that share a low byte with ASCII', () => {
    const hex = 'a'.repeat(64);
    expect(digestEqual(hex, hex)).toBe(true);
    expect(digestEqual(hex, `${'a'.repeat(63)}b`)).toBe(false);
    expect(digestEqual(hex, 'a'.repeat(63))).toBe(false);
    // U+0141 (Ł) and U+0161 (š) truncate to 0x41 "A" and 0x61 "a" in Latin-1: never equal here
    expect(digestEqual('A', '\u0141')).toBe(false);
    expect(digestEqual('nonce-a', 'nonce-\u0161')).toBe(false);
    expect(digestEqual('', '')).toBe(true);
    for (const [a, b] of [
      ['x', 'x'],
      ['x', 'y'],
      ['\u00e9', 'e\u0301'],
    ])
      expect(digestEqual(a as string, b as string)).toBe(safeEqual(a as string, b as string));
  });
});
