import { describe, expect, it } from 'vitest';
import { redact } from './logger';

describe('log redaction', () => {
  it('never lets a session id, API key or webhook secret through', () => {
    const sid = 'sess_0123456789abcdefghjkmnpqrs';
    const key = `sk_production_${'a'.repeat(12)}_${'b'.repeat(40)}`;
    const secret = 'whsec_Zm9vYmFyYmF6cXV4cXV1eGNvcmdl';
    const line = redact(
      JSON.stringify({ error: `Duplicate entry '${sid}' for key; auth ${key}; ${secret}` }),
    );
    expect(line).not.toContain(sid);
    expect(line).not.toContain(key);
    expect(line).not.toContain(secret);
    expect(line).toMatch(/sess_#[0-9a-f]{10}/);
    // the same id always gets the same tag, so log lines can still be correlated
    expect(redact(sid)).toBe(redact(sid));
  });
});
