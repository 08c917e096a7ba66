// fast-sql.ts keeps the embedded database's prepared SELECTs between calls. sql.js frees every statement when
// it exports the file after a committed write (TypeORM's autosave), so a kept statement must be prepared again
// then, and a read must always see the latest committed write.
import 'reflect-metadata';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataSource } from './data-source';
import { sql } from './fast-sql';

describe('fast-sql on the embedded database (sql.js)', () => {
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
  const write = (id: string, issuer: string, name: string) =>
    ds.query(
      'INSERT INTO trusted_issuer (id, issuer, environment, name, public_jwk, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      [id, issuer, 'sandbox', name, '{}', new Date().toISOString()],
    );

  it('sees every committed write, across the statement frees of the autosave export', async () => {
    expect(await read('https://a.example')).toEqual([]);
    expect(await read('https://a.example')).toEqual([]); // the kept statement, reset and bound again
    await write('ti_1', 'https://a.example', 'first'); // autosave exports the file: statements are freed
    expect(await read('https://a.example')).toEqual([{ name: 'first' }]);
    await write('ti_2', 'https://b.example', 'second');
    expect(await read('https://b.example')).toEqual([{ name: 'second' }]);
    expect(await read('https://a.example')).toEqual([{ name: 'first' }]);
  });

  it('refuses a bad statement or bad parameters and keeps answering afterwards', async () => {
    await expect(sql(ds, 'SELECT nope FROM trusted_issuer', [])).rejects.toThrow();
    await expect(read({} as never)).rejects.toThrow(); // an object cannot be bound
    expect(await read('https://a.example')).toEqual([{ name: 'first' }]);
  });
});
