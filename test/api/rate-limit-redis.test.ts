// Rate limits shared across nodes, as an integrator observes them: two service nodes on one database and one
// REDIS_URL (a real Redis server; REDIS_URL in the environment, default 127.0.0.1:6379) draw on ONE budget per
// API key; without Redis each node would allow the whole budget. A key prefix per run keeps parallel suites
// on the same Redis apart. When Redis goes away, the API keeps answering (each node limits on its own).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../server/src/app/test-database';
import { ManualClock } from '../../server/src/common/clock';
import { configFrom } from '../../server/src/config/config';
import { createService, type Service } from '../../server/src/service';
import { testConfig } from '../support/config';
import { Api, createBusiness, freePort } from '../support/harness';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Nodes of one database share DATA_DIR (the local KMS master key and the blobs), as README "Scaling out" says.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rl-'));

async function startNode(db: TestDatabase, clock: ManualClock, env: Record<string, string>) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = testConfig({ port, dataDir, databaseUrl: db.url, env: { RATE_LIMIT: '20/10', ...env } });
  const svc = await createService(config, { clock, workers: false });
  await svc.listen();
  return {
    svc,
    baseUrl,
    async stop() {
      await svc.close();
    },
  };
}

describe('rate limits shared across nodes through Redis', () => {
  const clock = new ManualClock(Date.parse('2030-01-01T10:00:00.000Z'));
  const prefix = `rltest${randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  let n1: Awaited<ReturnType<typeof startNode>>;
  let n2: Awaited<ReturnType<typeof startNode>>;
  let apiKey: string;
  const redis = new Redis(REDIS_URL, { lazyConnect: true });

  beforeAll(async () => {
    await redis.connect();
    db = await createTestDatabase('ratelimit_redis');
    const env = { REDIS_URL, RATE_LIMIT_KEY_PREFIX: prefix };
    n1 = await startNode(db, clock, env);
    n2 = await startNode(db, clock, env);
    apiKey = (await createBusiness({ svc: n1.svc as Service } as never, 'Shared Budget')).apiKey;
  });
  afterAll(async () => {
    await n1?.stop();
    await n2?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await db?.drop();
  });

  it('two nodes with one REDIS_URL share one budget per key', async () => {
    const on = (n: { baseUrl: string }) =>
      new Api(n.baseUrl, apiKey).rest('GET', '/v1/sessions/sess_unknown');
    // 20 requests alternately on both nodes: all pass, and the remaining count runs down across nodes
    const remaining: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await on(i % 2 === 0 ? n1 : n2);
      expect(r.status).toBe(404);
      remaining.push(Number(/remaining=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
    // the budget is spent on BOTH nodes (per-process counters would allow 20 more on each)
    for (const n of [n1, n2]) {
      const r = await on(n);
      expect(r.status).toBe(429);
      expect(r.body.code).toBe('rate_limited');
      expect(r.headers.get('retry-after')).toBe('10');
    }
    // the counter lives in Redis under the configured prefix
    expect((await redis.keys(`${prefix}:*`)).length).toBeGreaterThan(0);
    // the next window brings the budget back on both nodes
    clock.advance(10_000);
    expect((await on(n2)).status).toBe(404);
    expect((await on(n1)).status).toBe(404);
  });

  it('keeps answering when Redis is unreachable (each node limits on its own)', async () => {
    const lonely = await startNode(db, clock, {
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      RATE_LIMIT_KEY_PREFIX: prefix,
    });
    try {
      const api = new Api(lonely.baseUrl, apiKey);
      const r = await api.rest('GET', '/v1/sessions/sess_unknown');
      expect(r.status).toBe(404);
      expect(r.headers.get('ratelimit')).toMatch(/^limit=20, remaining=19, reset=\d+$/);
    } finally {
      await lonely.stop();
    }
  });

  it('refuses a REDIS_URL that is not a redis URL', () => {
    expect(() => configFrom({ REDIS_URL: 'http://127.0.0.1:6379' } as never)).toThrow(/REDIS_URL/);
  });
});
