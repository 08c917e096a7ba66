// The in-process budget (RateLimiter without Redis, ADR 0064): counts per key and window as the memory store
// did, and its sweep of old windows never drops a count that can still be asked for.
import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock';
import { RateLimiter } from './rate-limit';

describe('in-process rate limit', () => {
  it('counts down per key and window, keeps counting past the budget, and starts again in the next window', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 3));
    const limiter = new RateLimiter(clock, { limit: 3, windowSeconds: 10 });
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(await limiter.take('key_a'));
    expect(seen.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
      [false, 0],
    ]);
    expect(seen[3]).toMatchObject({ limit: 3, resetSeconds: 7, retryAfterSeconds: 7 });
    expect((await limiter.take('key_b')).remaining).toBe(2); // another key, its own budget
    clock.advance(7_000); // the next window
    expect(await limiter.take('key_a')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 10 });
  });

  it('sweeps only windows before the previous one when many keys are counted', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const limiter = new RateLimiter(clock, { limit: 10, windowSeconds: 10 });
    for (let i = 0; i < 4; i++) limiter.takeNow('key_a');
    for (let i = 0; i < 3000; i++) limiter.takeNow(`key_${i}`); // past the sweep threshold, twice
    expect(limiter.takeNow('key_a')).toMatchObject({ allowed: true, remaining: 5 });
    clock.advance(10_000);
    for (let i = 0; i < 3000; i++) limiter.takeNow(`key_n${i}`);
    clock.set(Date.UTC(2026, 0, 1)); // back to the previous window: its counts are still there
    expect(limiter.takeNow('key_a')).toMatchObject({ allowed: true, remaining: 4 });
  });
});
