// Owns the TypeORM DataSource: MySQL when DATABASE_URL is set, else an embedded SQLite file in DATA_DIR.
// synchronize is off everywhere: migrations are the only schema source.
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { Config } from '../config/config';
import { MIGRATIONS } from '../db/migrations';
import { serializeConnection, sqliteOptions } from '../db/sqlite-engine';
import { ENTITIES, LOGO_ENTITY } from './entities';

export async function createDataSource(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  /**
   * poolSize: connections of this DataSource's MySQL pool (default 20); the webhook relay runs on its own small
   * one. multipleStatements: lets the relay send a whole outcome transaction in one round trip (ADR 0014); only
   * for a pool that runs nothing but the relay's own statements, whose values are all bound parameters.
   */
  opts: { poolSize?: number; multipleStatements?: boolean } = {},
): Promise<DataSource> {
  if (config.databaseUrl) {
    return new DataSource({
      // MariaDB reports column metadata differently (e.g. NULL defaults); TypeORM needs to know which it is.
      type: (await isMariaDb(config.databaseUrl)) ? 'mariadb' : 'mysql',
      url: config.databaseUrl,
      entities: [...ENTITIES, LOGO_ENTITY.mysql],
      migrations: MIGRATIONS,
      synchronize: false,
      timezone: 'Z',
      charset: 'utf8mb4_unicode_ci',
      // trace: false: mysql2's promise client otherwise captures a stack trace before every statement, to put the
      // caller's frames on an error it may never raise (about 1.5% of a profile's samples under load, ADR 0068).
      // TypeORM raises its QueryFailedError after an await, so V8's async stack trace already names the caller;
      // the transition pool (db/batched-transaction.ts) is built from these options and gets the same.
      // maxPreparedStatements: mysql2 sizes each connection's statement cache for 16,000 entries up front (four
      // arrays of that length: 531 KB of heap per connection, scanned by every full GC). The service prepares about
      // 140 statements across all its pools (a `pnpm bench sessions` run: about 4 per connection), so 256 per
      // connection never evicts and costs 43 KB (ADR 0072).
      extra: { connectionLimit: opts.poolSize ?? 20, trace: false, maxPreparedStatements: 256 },
      multipleStatements: opts.multipleStatements === true,
      migrationsTransactionMode: 'each',
    });
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  // A SQLite file through libsql (native, shipped as a per-platform npm package), WAL and a busy timeout, so
  // the service and the operator CLI can share DATA_DIR (ADR 0030).
  const ds = new DataSource({
    ...sqliteOptions(path.join(config.dataDir, 'service.sqlite')),
    entities: [...ENTITIES, LOGO_ENTITY.sqlite],
    migrations: MIGRATIONS,
    synchronize: false,
  } as DataSourceOptions);
  serializeConnection(ds);
  return ds;
}

async function isMariaDb(url: string): Promise<boolean> {
  const conn = await mysql.createConnection(url);
  try {
    const [rows] = await conn.query('SELECT VERSION() AS v');
    return /mariadb/i.test(String((rows as { v: string }[])[0]?.v));
  } finally {
    await conn.end();
  }
}
