// fast-sql.ts runs the hot statements straight on the embedded engine's libsql connection, prepared once and
// kept. A kept statement must see every committed write, a write answers `{ affectedRows }` like mysql2, and a
// statement from outside an open transaction must wait for its COMMIT instead of joining it (TypeORM runs the
// whole process on one connection: a write that joined another's transaction would be acknowledged and then
// lost with that transaction's rollback; sqlite-engine.ts).
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type DataSource, QueryFailedError } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../app/database';
import { type MigratedTestDatabase, migratedTestDatabase } from '../app/test-database';
import { isMysql, isUniqueViolation } from './data-source';
import { sql } from './fast-sql';

describe('fast-sql on the embedded database (libsql)', () => {
  let ds: DataSource;
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fast-sql-'));
    ds = await createDataSource({ databaseUrl: undefined, dataDir: dir });
    await ds.initialize();
    await ds.runMigrations();
  });
  afterAll(async () => {
    await ds?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const read = (issuer: string) =>
    sql<{ name: string }[]>(ds, 'SELECT name FROM trusted_issuer WHERE issuer = ? AND environment = ?', [
      issuer,
      'sandbox',
    ]);
  const insert =
    'INSERT INTO trusted_issuer (id, issuer, environment, name, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)';
  const write = (id: string, issuer: string, name: string) =>
    sql<{ affectedRows: number }>(ds, insert, [id, issuer, 'sandbox', name, '{}', new Date().toISOString()]);

  it('sees every committed write through its kept statements, and counts the rows a write changed', async () => {
    expect(await read('https://a.example')).toEqual([]);
    expect(await read('https://a.example')).toEqual([]); // the kept statement, bound again
    expect((await write('ti_1', 'https://a.example', 'first')).affectedRows).toBe(1);
    expect(await read('https://a.example')).toEqual([{ name: 'first' }]);
    await write('ti_2', 'https://b.example', 'second');
    expect(await read('https://b.example')).toEqual([{ name: 'second' }]);
    const none = await sql<{ affectedRows: number }>(ds, 'UPDATE trusted_issuer SET name = ? WHERE id = ?', [
      'x',
      'ti_nope',
    ]);
    expect(none.affectedRows).toBe(0);
  });

  it('refuses a bad statement or bad parameters and keeps answering afterwards', async () => {
    await expect(sql(ds, 'SELECT nope FROM trusted_issuer', [])).rejects.toMatchObject({
      code: 'SQLITE_ERROR',
      message: expect.stringMatching(/no such column: nope/),
    });
    // an object cannot be bound
    await expect(read({} as never)).rejects.toThrow(
      /can only bind numbers, strings, bigints, buffers, and null/,
    );
    expect(await read('https://a.example')).toEqual([{ name: 'first' }]);
  });

  it('a write from outside an open transaction waits for it and survives its rollback', async () => {
    let inside!: () => void;
    const opened = new Promise<void>((r) => {
      inside = r;
    });
    let finish!: () => void;
    const hold = new Promise<void>((r) => {
      finish = r;
    });
    const tx = ds
      .transaction(async (m) => {
        await sql(
          ds,
          insert,
          ['ti_tx', 'https://tx.example', 'sandbox', 'tx', '{}', new Date().toISOString()],
          m,
        );
        inside();
        await hold; // the transaction stays open across an await, as a request's does
        throw new Error('roll back');
      })
      .catch((e: Error) => e.message);
    await opened;
    // an autocommit write and a second transaction from another request, while the first is open
    const outside = write('ti_out', 'https://out.example', 'outside');
    const other = ds.transaction((m) =>
      sql(ds, insert, ['ti_tx2', 'https://tx2.example', 'sandbox', 'tx2', '{}', new Date().toISOString()], m),
    );
    await new Promise((r) => setTimeout(r, 20));
    finish();
    expect(await tx).toBe('roll back');
    await outside;
    await other;
    expect(await read('https://tx.example')).toEqual([]); // rolled back
    expect(await read('https://out.example')).toEqual([{ name: 'outside' }]); // not taken down with it
    expect(await read('https://tx2.example')).toEqual([{ name: 'tx2' }]);
  });

  it('runs the file in WAL mode with a busy timeout and foreign keys on', async () => {
    expect(await ds.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
    const [busy] = (await ds.query('PRAGMA busy_timeout')) as Record<string, number>[];
    expect(Object.values(busy ?? {})[0]).toBeGreaterThanOrEqual(5000);
    expect(await ds.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
  });
});

// Inside a MySQL transaction a statement goes to the transaction's own mysql2 connection (callback API, not
// TypeORM's query): it must see the transaction's writes, vanish with its rollback, and fail as TypeORM did.
describe.skipIf(!process.env.TEST_MYSQL_URL)('fast-sql inside a MySQL transaction', () => {
  let db: MigratedTestDatabase;
  beforeAll(async () => {
    db = await migratedTestDatabase('fastsql_tx');
  });
  afterAll(async () => {
    await db?.close();
  });
  const insert =
    'INSERT INTO trusted_issuer (id, issuer, environment, name, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)';
  const read = 'SELECT name FROM trusted_issuer WHERE id = ?';

  it('runs on the transaction, rolls back with it, and fails with QueryFailedError around the driver error', async () => {
    const { ds } = db;
    expect(isMysql(ds)).toBe(true);
    const failed = await ds
      .transaction(async (m) => {
        const w = await sql<{ affectedRows: number }>(
          ds,
          insert,
          ['ti_t1', 'https://t.example', 'sandbox', 'in tx', '{}', new Date()],
          m,
        );
        expect(w.affectedRows).toBe(1);
        expect(await sql(ds, read, ['ti_t1'], m)).toEqual([{ name: 'in tx' }]);
        // not yet visible outside the transaction
        expect(await ds.query(read, ['ti_t1'])).toEqual([]);
        await sql(ds, insert, ['ti_t1', 'https://t.example', 'sandbox', 'again', '{}', new Date()], m);
      })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(QueryFailedError);
    expect(isUniqueViolation(failed)).toBe(true);
    expect((failed as QueryFailedError).query).toBe(insert);
    expect(await ds.query(read, ['ti_t1'])).toEqual([]);
  });
});
