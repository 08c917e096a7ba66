// Limits of the business API as an integrator observes them: the per-API-key budget (100 requests per 10 s
// window, shared by /v1 and GraphQL) with its RateLimit headers on every authenticated answer, 429
// rate_limited with Retry-After until the window ends, windows driven by a ManualClock (nothing sleeps), and
// the 256 KiB request body limit. The same budget shared by two nodes over Redis: rate-limit-redis.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { configFrom } from '../../server/src/config/config';
import {
  Api,
  createBusiness,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';

const rateLimit = (h: Headers) => {
  const m = /^limit=(\d+), remaining=(\d+), reset=(\d+)$/.exec(h.get('ratelimit') ?? '');
  if (!m) throw new Error(`no RateLimit header: ${h.get('ratelimit')}`);
  return { limit: Number(m[1]), remaining: Number(m[2]), reset: Number(m[3]) };
};

describe('rate limits and body limits', () => {
  const clock = new ManualClock(Date.parse('2030-01-01T10:00:00.000Z'));
  let t: TestService;
  let a: Api;
  let b: Api;
  let workflowId: string;

  beforeAll(async () => {
    // the production default, which the other suites raise so their bursts under a frozen clock pass
    expect(configFrom({}).rateLimit).toEqual({ limit: 100, windowSeconds: 10 });
    t = await startTestService({ clock, workers: false, label: 'ratelimit', rateLimit: '100/10' });
    a = new Api(t.baseUrl, (await createBusiness(t, 'Alpha')).apiKey);
    b = new Api(t.baseUrl, (await createBusiness(t, 'Beta')).apiKey);
    // the GraphQL setup draws on the same per-key budget; a full window refills it
    workflowId = (await setUpIdentifyWorkflow(a, 'http://127.0.0.1:9/hooks')).workflowId;
    clock.advance(10_000);
  });
  afterAll(async () => t?.stop());

  it('counts down 100 requests per key, then answers 429 until the window ends', async () => {
    const first = await a.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toBe('100;w=10');
    expect(rateLimit(first.headers)).toEqual({ limit: 100, remaining: 99, reset: 10 });

    // errors count too, and carry the headers: 99 more reads of an unknown session
    const remaining: number[] = [];
    for (let batch = 0; batch < 9; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 11 }, () => a.rest('GET', '/v1/sessions/sess_unknown')),
      );
      for (const r of answers) {
        expect(r.status).toBe(404);
        expect(r.headers.get('ratelimit-policy')).toBe('100;w=10');
        remaining.push(rateLimit(r.headers).remaining);
      }
    }
    expect(remaining.sort((x, y) => y - x)).toEqual(Array.from({ length: 99 }, (_, i) => 98 - i));

    const limited = await a.rest('GET', `/v1/sessions/${first.body.id}`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(limited.body).toMatchObject({ status: 429, code: 'rate_limited', retry_after: 10 });
    expect(limited.body.request_id).toMatch(/^req_/);
    expect(limited.headers.get('retry-after')).toBe('10');
    expect(rateLimit(limited.headers)).toEqual({ limit: 100, remaining: 0, reset: 10 });

    // the GraphQL API shares the key's budget
    const gqlRes = await fetch(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${a.apiKey}` },
      body: JSON.stringify({ query: '{ workflows { id } }' }),
    });
    expect(gqlRes.status).toBe(429);
    expect(gqlRes.headers.get('retry-after')).toBe('10');
    expect((await gqlRes.json()).code).toBe('rate_limited');

    // another key has its own bucket
    const other = await b.rest('GET', '/v1/sessions/sess_unknown');
    expect(other.status).toBe(404);
    expect(rateLimit(other.headers).remaining).toBe(99);

    // later in the same window: still refused, Retry-After counts down to the window's end
    clock.advance(8_500);
    const again = await a.rest('GET', `/v1/sessions/${first.body.id}`);
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBe('2');
    expect(rateLimit(again.headers)).toEqual({ limit: 100, remaining: 0, reset: 2 });

    // the next window brings the whole budget back
    clock.advance(1_500);
    const refilled = await a.rest('GET', `/v1/sessions/${first.body.id}`);
    expect(refilled.status).toBe(200);
    expect(rateLimit(refilled.headers)).toEqual({ limit: 100, remaining: 99, reset: 10 });
  });

  it('does not count or label requests without a valid key', async () => {
    const anon = await new Api(t.baseUrl).rest('GET', '/v1/sessions/sess_unknown');
    expect(anon.status).toBe(401);
    expect(anon.headers.get('ratelimit')).toBeNull();
  });

  it('refuses a JSON body over 256 KiB with 413 payload_too_large and stores nothing', async () => {
    clock.advance(10_000);
    const before = await t.svc.ds.query('SELECT COUNT(*) AS n FROM session');
    const big = await a.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      metadata: { blob: 'x'.repeat(300 * 1024) },
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(big.body).toMatchObject({ status: 413, code: 'payload_too_large' });
    const after = await t.svc.ds.query('SELECT COUNT(*) AS n FROM session');
    expect(Number(after[0].n)).toBe(Number(before[0].n));
    // just under the limit the body is read, and the 16 KiB metadata rule answers instead
    const meta = await a.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      metadata: { blob: 'x'.repeat(200 * 1024) },
    });
    expect(meta.status).toBe(400);
    expect(meta.body).toMatchObject({ code: 'validation_failed', param: 'metadata' });
  });
});
