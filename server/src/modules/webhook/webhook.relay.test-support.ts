// Shared setup of the webhook relay integration tests (webhook.relay*.test.ts; the lease and outcome tests take
// only the engines, outboxEngines): a real MariaDB database migrated once per file, a real HTTP receiver per test,
// an empty outbox per test, and the relay, the outbox writer and the readers those tests use. Time moves only
// through the ManualClock.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createDataSource } from '../../app/database';
import { type MigratedTestDatabase, migratedTestDatabase } from '../../app/test-database';
import { ManualClock } from '../../common/clock';
import type { Ctx } from '../../common/context';
import { createLogger } from '../../common/logger';
import type { Environment } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import { KeySealer } from '../kms/key-sealer';
import { enqueueEvent } from './outbox';
import { WebhookSecretBox } from './secret-box';
import { WebhookRelay } from './webhook.relay';
import { WebhookEventEntity } from './webhook-event.entity';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1 that records requests and answers with the next queued status. */
export async function startReceiver() {
  const requests: Received[] = [];
  const replies: { status: number; headers?: Record<string, string> }[] = [];
  const waiters: (() => void)[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies.shift() ?? { status: 200 };
      res.writeHead(reply.status, reply.headers).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    requests,
    replies,
    connections: () => connections,
    /** Resolves once `n` requests have arrived (event-driven, no sleeping). */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (requests.length >= n ? resolve() : waiters.push(check));
        check();
      }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
export const silent = createLogger('silent');
export const T0 = new Date('2025-11-01T10:00:00.000Z');
// the secrets at rest are sealed under a master key (secret-box.ts); one per test process
export const secrets = new WebhookSecretBox(new KeySealer(randomBytes(32)));

/** Registers the file's hooks; ds, clock and receiver are set once they ran (read them inside tests). */
export function webhookRelaySuite(label: string) {
  let db: MigratedTestDatabase;
  const s = {
    ds: undefined as unknown as DataSource,
    clock: new ManualClock(T0),
    receiver: undefined as unknown as Receiver,
    ctxFor: (businessId: string, environment: Environment = 'sandbox'): Ctx => ({
      actor: { kind: 'api_key', apiKeyId: 'key_test', businessId, environment },
      requestId: 'req_test',
      clock: s.clock,
    }),
    relay: (allowPrivateTargets = true) =>
      new WebhookRelay({ ds: s.ds, clock: s.clock, logger: silent, allowPrivateTargets, secrets }),
    /** Queues an event the way the service does: in a transaction of its own. */
    enqueue: (
      businessId: string,
      sessionId: string,
      event: string,
      data: Record<string, unknown> = {},
      environment: Environment = 'sandbox',
    ) =>
      transactionWithRetry(s.ds, (m) =>
        enqueueEvent(m, {
          businessId,
          environment,
          sessionId,
          event,
          data: { session_id: sessionId, ...data },
          now: s.clock.now(),
        }),
      ),
    eventsOf: (sessionId: string) =>
      s.ds.getRepository(WebhookEventEntity).find({ where: { sessionId }, order: { sequence: 'ASC' } }),
  };
  beforeAll(async () => {
    db = await migratedTestDatabase(label);
    s.ds = db.ds;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    s.clock = new ManualClock(T0);
    s.receiver = await startReceiver();
    // The relay claims every due event of the database: start each test from an empty outbox.
    for (const t of ['webhook_attempt', 'webhook_event', 'webhook_endpoint'])
      await s.ds.query(`DELETE FROM ${t}`);
  });
  afterEach(async () => {
    await s.receiver.close();
  });
  return s;
}

/** A database the outbox runs on in a test, and how to drop it. */
export interface OutboxEngine {
  ds: DataSource;
  close(): Promise<void>;
}

/**
 * The three engines the outbox's tests run on, by name: MariaDB through the API's pool, MariaDB through a pool like
 * the relay's own in service.ts (multi-statement outcome writes), and the embedded SQLite in a temporary directory.
 */
export function outboxEngines(label: string): [string, () => Promise<OutboxEngine>][] {
  return [
    [
      'MariaDB',
      async () => {
        const db: MigratedTestDatabase = await migratedTestDatabase(label);
        return { ds: db.ds, close: () => db.close() };
      },
    ],
    [
      'MariaDB (relay pool, multi-statement outcomes)',
      async () => {
        const db: MigratedTestDatabase = await migratedTestDatabase(`${label}_multi`);
        const ds = await createDataSource(
          { databaseUrl: db.url, dataDir: '/nonexistent' },
          { poolSize: 6, multipleStatements: true },
        );
        await ds.initialize();
        return {
          ds,
          close: async () => {
            await ds.destroy();
            await db.close();
          },
        };
      },
    ],
    [
      'SQLite',
      async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-`));
        const ds = await createDataSource({ databaseUrl: undefined, dataDir: dir });
        await ds.initialize();
        await ds.runMigrations();
        return {
          ds,
          close: async () => {
            await ds.destroy();
            fs.rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    ],
  ];
}
