// The upgrade path of the idempotency-key migration (ADR 0024), on MariaDB and on the embedded SQLite: the
// reservations still within their 24 h become the idem_key of their sessions, the old table goes, and down()
// brings them back.
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../../app/database';
import { createTestDatabase, type TestDatabase } from '../../app/test-database';
import { IdempotencyKeyOnSession1764500000000 } from './1764500000000-idempotency-key-on-session';
import { MIGRATIONS } from './index';

type Row = Record<string, unknown>;

const HEX = (c: string) => c.repeat(64);
// stored datetimes as both engines hold them (UTC); the reservations' 24 h end relative to the real clock
const at = (ms: number) => new Date(Date.now() + ms).toISOString().replace('T', ' ').slice(0, 23);
const T0 = at(-3600_000);
const LIVE = at(23 * 3600_000);
const EXPIRED = at(-1000);

async function seedBeforeMigration(ds: DataSource): Promise<void> {
  const session = (id: string, business: string) =>
    ds.query(
      'INSERT INTO session (id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, 0, 0, ?, ?, ?)',
      [id, business, 'sandbox', 'wf_1', 'created', LIVE, T0, T0],
    );
  const reservation = (business: string, key: string, sessionId: string | null, expires = LIVE) =>
    ds.query(
      'INSERT INTO idempotency_key (business_id, environment, idem_key, session_id, status_code, created_at, expires_at) VALUES (?, ?, ?, ?, 201, ?, ?)',
      [business, 'sandbox', key, sessionId, T0, expires],
    );
  await session('sess_a', 'biz_1');
  await session('sess_b', 'biz_2');
  await session('sess_plain', 'biz_1');
  await reservation('biz_1', HEX('a'), 'sess_a');
  // the same key in another business is another reservation
  await reservation('biz_2', HEX('a'), 'sess_b');
  // not a SHA-256 hex (never written by this service): left behind
  await reservation('biz_1', 'raw-key', 'sess_plain');
  // a reservation without its session: nothing to carry it
  await reservation('biz_1', HEX('c'), null);
  // past its 24 h: a repeat would create anew, so it is not carried over
  await session('sess_old', 'biz_1');
  await reservation('biz_1', HEX('d'), 'sess_old', EXPIRED);
}

async function upgradeAndCheck(ds: DataSource): Promise<void> {
  const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(IdempotencyKeyOnSession1764500000000));
  ds.setOptions({ migrations: before });
  await ds.initialize();
  try {
    await ds.runMigrations();
    await seedBeforeMigration(ds);
    const q = ds.createQueryRunner();
    try {
      await new IdempotencyKeyOnSession1764500000000().up(q);
      expect(await q.hasTable('idempotency_key')).toBe(false);
      const rows = (await ds.query('SELECT id, idem_key FROM session ORDER BY id')) as Row[];
      expect(rows).toEqual([
        { id: 'sess_a', idem_key: HEX('a') },
        { id: 'sess_b', idem_key: HEX('a') },
        { id: 'sess_old', idem_key: null },
        { id: 'sess_plain', idem_key: null },
      ]);
      // one session per key and tenant
      await expect(
        ds.query('UPDATE session SET idem_key = ? WHERE id = ?', [HEX('a'), 'sess_plain']),
      ).rejects.toThrow(/Duplicate entry|UNIQUE constraint failed/);

      await new IdempotencyKeyOnSession1764500000000().down(q);
      const back = (await ds.query(
        'SELECT business_id, idem_key, session_id, status_code FROM idempotency_key ORDER BY business_id',
      )) as Row[];
      expect(back).toEqual([
        { business_id: 'biz_1', idem_key: HEX('a'), session_id: 'sess_a', status_code: 201 },
        { business_id: 'biz_2', idem_key: HEX('a'), session_id: 'sess_b', status_code: 201 },
      ]);
      expect(await q.hasColumn('session', 'idem_key')).toBe(false);
    } finally {
      await q.release();
    }
  } finally {
    await ds.destroy();
  }
}

describe('migration 1764500000000-idempotency-key-on-session on existing data', () => {
  let db: TestDatabase | undefined;
  const dirs: string[] = [];
  afterAll(async () => {
    await db?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('moves the live reservations onto their sessions on MariaDB, and back', async () => {
    db = await createTestDatabase('mig_idem');
    await upgradeAndCheck(await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' }));
  });

  it('moves the live reservations onto their sessions on the embedded SQLite, and back', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mig-idem-'));
    dirs.push(dir);
    await upgradeAndCheck(await createDataSource({ databaseUrl: undefined, dataDir: dir }));
  });
});
