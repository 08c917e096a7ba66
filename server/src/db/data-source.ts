// Owns the TypeORM DataSource: MySQL when DATABASE_URL is set, else an embedded SQLite file in DATA_DIR.
// synchronize is off everywhere: migrations are the only schema source.
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { DataSource, type DataSourceOptions, type EntityManager } from 'typeorm';
import { ENTITIES, LOGO_ENTITY } from '../app/entities';
import { inSpan } from '../common/tracing';
import type { Config } from '../config/config';
import { MIGRATIONS } from './migrations';
import { serializeConnection, sqliteOptions } from './sqlite-engine';

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
      extra: { connectionLimit: opts.poolSize ?? 20 },
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

export const isMysql = (ds: DataSource): boolean =>
  ds.options.type === 'mysql' || ds.options.type === 'mariadb';

/** Runs fn in a transaction, or inside the caller's open one. Only the opener commits. */
export async function inTransaction<T>(
  ds: DataSource,
  manager: EntityManager | undefined,
  fn: (m: EntityManager) => Promise<T>,
): Promise<T> {
  if (manager?.queryRunner?.isTransactionActive) return fn(manager);
  return transactionWithRetry(ds, fn);
}

/**
 * True for errors on which the whole transaction must be re-run: an InnoDB deadlock victim, and a Galera
 * certification conflict, which MariaDB reports as the same ER_LOCK_DEADLOCK (1213, "Deadlock found when trying
 * to get lock; try restarting transaction") at COMMIT or at the next statement after a brute-force abort.
 * Lock wait timeouts (1205) are not retried: they mean a stuck holder, not a lost race.
 */
export const isDeadlock = (e: unknown): boolean => {
  const err = e as { code?: string; errno?: number; driverError?: { code?: string; errno?: number } };
  const code = err?.driverError?.code ?? err?.code;
  return code === 'ER_LOCK_DEADLOCK' || (err?.driverError?.errno ?? err?.errno) === 1213;
};

/**
 * A transaction re-run whole when it loses a race the database resolves by aborting it: an InnoDB deadlock or
 * a Galera certification conflict (several nodes writing the same rows through different members). The unit of
 * work re-runs from its first read, so it must decide only on what it reads inside: every caller here does,
 * through guarded writes. Every state-changing transaction of the service goes through here (or through
 * inTransaction, which does). A short jittered pause spreads the re-runs of the racers.
 */
export async function transactionWithRetry<T>(
  ds: DataSource,
  fn: (m: EntityManager) => Promise<T>,
  attempts = 6,
  /** An isolation level for this unit of work (MySQL/MariaDB); the engine's default otherwise. */
  isolation?: 'READ COMMITTED',
): Promise<T> {
  return inSpan('db.transaction', { 'db.system.name': isMysql(ds) ? 'mysql' : 'sqlite' }, async (span) => {
    for (let i = 1; ; i++) {
      try {
        return await (isolation && isMysql(ds) ? ds.transaction(isolation, fn) : ds.transaction(fn));
      } catch (e) {
        if (i >= attempts || !isDeadlock(e)) throw e;
        span.addEvent('retry', { attempt: i });
        await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** i));
      }
    }
  });
}

/**
 * Takes the row lock of a session first, so every transaction that touches a session (state, results,
 * outbox) locks in the same order. SQLite has a single writer and needs nothing.
 */
export async function lockSessionRow(m: EntityManager, sessionId: string): Promise<void> {
  const type = m.dataSource.options.type;
  if (type === 'mysql' || type === 'mariadb')
    // sql-lint-allow: session-scope: locks the session row by primary key (globally unique id; lookup vindex routes it)
    await m.query('SELECT id FROM session WHERE id = ? FOR UPDATE', [sessionId]);
}

/**
 * A unique-key violation on any engine: MySQL/MariaDB say ER_DUP_ENTRY, SQLite (libsql) SQLITE_CONSTRAINT_UNIQUE
 * or SQLITE_CONSTRAINT_PRIMARYKEY (TypeORM's QueryFailedError carries the driver's error and copies its code).
 */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; driverError?: { code?: string } };
  const code = err?.driverError?.code ?? err?.code;
  return (
    code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
