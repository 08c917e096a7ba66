import { describe, expect, it } from 'vitest';
import { RESPONSE_EXCERPT_BYTES, responseExcerpt } from './delivery-log';

describe('response excerpt', () => {
  it('keeps at most 1 KiB and never ends in half a character', () => {
    // 1023 ASCII bytes then a 2-byte character: the cap cuts it in half, so it is left out entirely
    const bytes = Buffer.from(`${'a'.repeat(RESPONSE_EXCERPT_BYTES - 1)}é${'b'.repeat(10)}`, 'utf8');
    const kept = responseExcerpt(bytes.subarray(0, RESPONSE_EXCERPT_BYTES)) as string;
    expect(kept).toBe('a'.repeat(RESPONSE_EXCERPT_BYTES - 1));
    expect(responseExcerpt(Buffer.from('{"ok":true}'))).toBe('{"ok":true}');
    expect(responseExcerpt(Buffer.alloc(0))).toBeNull();
    expect(responseExcerpt(null)).toBeNull();
  });
});
