// The strict single-connection mode must fire (it is what keeps issue 27's hang from coming back: the whole API
// suite runs with it), and every wait for a connection must end. Real MariaDB and the real embedded engine.
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../app/database';
import { createTestDatabase, type TestDatabase } from '../app/test-database';
import { systemClock } from '../common/clock';
import { KmsKeyVersionEntity } from '../modules/kms/kms-key-version.entity';
import { LocalKmsProvider } from '../modules/kms/local-kms.provider';
import { sql } from './fast-sql';
import { guardDataSource, isPoolExhausted, poolState } from './pool-guard';
import { STRICT_VIOLATION, strictViolations } from './strict-connection';

const STRICT = { acquireTimeoutMs: 2000, queryTimeoutMs: 5000, strictSingleConnection: true };

/** The checks both engines share. */
function strictChecks(open: () => DataSource) {
  it('refuses a repository read, ds.query, a direct statement and a nested ds.transaction inside a transaction', async () => {
    const ds = open();
    const before = strictViolations(ds).length;
    await ds.transaction(async (m) => {
      await expect(ds.getRepository(KmsKeyVersionEntity).find()).rejects.toMatchObject({
        code: STRICT_VIOLATION,
      });
      await expect(ds.query('SELECT 1')).rejects.toMatchObject({ code: STRICT_VIOLATION });
      await expect(sql(ds, 'SELECT 1 AS one', [])).rejects.toMatchObject({ code: STRICT_VIOLATION });
      await expect(ds.transaction((n) => n.query('SELECT 1'))).rejects.toMatchObject({
        code: STRICT_VIOLATION,
      });
      // the transaction's own manager is what such code must use
      expect(await m.getRepository(KmsKeyVersionEntity).find()).toEqual([]);
      expect(await sql(ds, 'SELECT 1 AS one', [], m)).toEqual([{ one: 1 }]);
    });
    expect(strictViolations(ds).length - before).toBe(4);
    expect(strictViolations(ds).at(-1)).toMatch(/pool-guard\.test\.ts/); // the offending call's stack
    // outside any transaction everything asks the pool as usual
    expect(await ds.getRepository(KmsKeyVersionEntity).count()).toBe(0);
    expect(await sql(ds, 'SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });

  it('the local KMS signs inside a transaction through its manager, and refuses to read past it', async () => {
    const ds = open();
    const kms = () =>
      new LocalKmsProvider({
        ds,
        keyRing: 'k/cryptoKeys/a',
        masterKey: Buffer.alloc(32, 7),
        clock: systemClock,
      });
    const kid = await kms().currentKeyVersion('audit-signing');
    const digest = Buffer.alloc(32, 1);
    await ds.transaction(async (m) => {
      // a fresh provider has nothing cached: both reads go through m
      const k = kms();
      expect(await k.currentKeyVersion('audit-signing', m)).toBe(kid);
      expect((await k.signDigest(kid, digest, m)).length).toBeGreaterThan(60);
      // the path issue 27 found: the key version read past the transaction's manager
      await expect(kms().signDigest(kid, digest)).rejects.toMatchObject({ code: STRICT_VIOLATION });
    });
  });
}

describe('strict single-connection mode and bounded waits on MariaDB', () => {
  let db: TestDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase('poolguard');
    ds = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' }, { poolSize: 2 });
    await ds.initialize();
    await ds.runMigrations();
    guardDataSource(ds, STRICT);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  strictChecks(() => ds);

  it('without strict mode a transaction that waits for its own pool fails after the acquire timeout, never hangs', async () => {
    const one = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' }, { poolSize: 1 });
    await one.initialize();
    guardDataSource(one, { acquireTimeoutMs: 300, queryTimeoutMs: 0, strictSingleConnection: false });
    try {
      const started = Date.now();
      const err = await one
        .transaction(async () => one.query('SELECT 1'))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isPoolExhausted(err)).toBe(true);
      expect(Date.now() - started).toBeLessThan(3000);
      // the connection came back: the pool answers again
      expect(poolState(one)).toMatchObject({ size: 1, waiting: 0 });
      expect(await one.query('SELECT 1 AS one')).toHaveLength(1);
    } finally {
      await one.destroy();
    }
  });
});

describe('strict single-connection mode and bounded waits on the embedded engine', () => {
  let dir: string;
  let ds: DataSource;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-guard-'));
    ds = await createDataSource({ databaseUrl: undefined, dataDir: dir });
    await ds.initialize();
    await ds.runMigrations();
    guardDataSource(ds, STRICT);
  });
  afterAll(async () => {
    await ds?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  strictChecks(() => ds);

  it('a statement waiting for the connection a transaction holds fails after the acquire timeout', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const tx = ds.transaction(async (m) => {
      await m.query('SELECT 1');
      await held;
    });
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    // from another request (another async context): it waits for the holder's COMMIT, at most the timeout
    const err = await ds.query('SELECT 1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPoolExhausted(err)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    release();
    await tx;
    expect(await ds.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
