// The embedded database (no DATABASE_URL): a SQLite file in DATA_DIR opened through libsql, a
// better-sqlite3-compatible binding whose native library ships as a per-platform npm package (nothing compiles
// or downloads at install time), driven by TypeORM's better-sqlite3 driver. WAL journal, real file locks, a busy
// timeout: several processes (the service and the operator CLI) share one file safely (ADR 0030).
//
// TypeORM's SQLite drivers run every statement of the process on ONE connection and ONE query runner, so two
// transactions that overlap in time (each awaits between statements) would nest into each other: the second
// becomes a savepoint of the first, and a statement issued outside any transaction lands inside whichever one
// is open. A write acknowledged that way is durable only when the OTHER transaction commits, and is lost with
// its rollback or a crash before it. `serializeConnection` gives the connection to one unit of work at a time:
// a transaction (ds.transaction, or TypeORM's own around a save) holds it from BEGIN to COMMIT/ROLLBACK, and a
// statement from any other async context waits for it. The holder is recognised by an AsyncLocalStorage token
// that ds.transaction sets for its callback.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import type { DataSource, DataSourceOptions, QueryRunner } from 'typeorm';

const require = createRequire(import.meta.url);

/**
 * How long a statement waits for another process's write lock before failing with SQLITE_BUSY (ms). The
 * operator CLI and the service each hold it for one short transaction at a time.
 */
export const BUSY_TIMEOUT_MS = 10_000;

/** The statement-level interface of the libsql connection (better-sqlite3's API). */
export interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  pragma(source: string): unknown;
  exec(sql: string): unknown;
}
export interface SqliteStatement {
  reader: boolean;
  all(...params: unknown[]): Record<string, unknown>[];
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/** The DataSource options of the embedded engine on `file` (entities and migrations are the caller's). */
export function sqliteOptions(file: string): DataSourceOptions {
  return {
    type: 'better-sqlite3',
    driver: require('libsql'),
    database: file,
    // better-sqlite3's `timeout` is SQLite's busy timeout; libsql takes the same option (ms)
    timeout: BUSY_TIMEOUT_MS,
    enableWAL: true,
    prepareDatabase: (db: SqliteConnection) => {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      // WAL + NORMAL: a COMMIT is in the WAL file (the OS's page cache) before it returns, so an acknowledged
      // write survives a crash or SIGKILL of the process; the WAL is fsynced at each checkpoint, so a power
      // loss may drop the last commits but never corrupts the file. FULL (an fsync per commit) cost 10x here.
      db.pragma('synchronous = NORMAL');
    },
  } as DataSourceOptions;
}

interface Gate {
  als: AsyncLocalStorage<object>;
  holder: object | undefined;
  /** Units of work queued for the connection (acquire called, not yet holding). */
  waiting: number;
  tail: Promise<void>;
  release: (() => void) | undefined;
  /** Longest wait for the connection (ms; 0: unbounded), then POOL_ACQUIRE_TIMEOUT (ADR 0044). */
  timeoutMs: number;
}
const gates = new WeakMap<DataSource, Gate>();
/** The token of code running outside any ds.transaction callback (TypeORM's own save transactions). */
const OUTSIDE = {};

const current = (g: Gate): object => g.als.getStore() ?? OUTSIDE;

async function acquire(g: Gate, token: object): Promise<void> {
  const prev = g.tail;
  let release!: () => void;
  g.tail = new Promise<void>((r) => {
    release = r;
  });
  g.waiting++;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (g.timeoutMs > 0) {
      const ms = g.timeoutMs;
      const got = await Promise.race([
        prev.then(() => true),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(false), ms);
        }),
      ]);
      if (!got) {
        // the waiter gives up; its turn, when it comes, passes straight to the next one
        void prev.then(release);
        throw Object.assign(new Error(`no database connection became free within ${ms} ms`), {
          code: 'POOL_ACQUIRE_TIMEOUT',
        });
      }
    } else await prev;
  } finally {
    clearTimeout(timer);
    g.waiting--;
  }
  g.holder = token;
  g.release = release;
}

/** Gives the connection back, only if `token` holds it (a second release must not free the next holder). */
function releaseGate(g: Gate, token: object): void {
  if (g.holder !== token) return;
  const r = g.release;
  g.holder = undefined;
  g.release = undefined;
  r?.();
}

/**
 * Runs `fn` on the connection as the current unit of work: directly when the caller holds the connection (it
 * is inside its transaction), else after waiting for the holder to finish.
 */
export async function onConnection<T>(ds: DataSource, fn: () => T | Promise<T>): Promise<T> {
  const g = gates.get(ds);
  if (!g) return fn();
  const me = current(g);
  if (g.holder === me) return fn();
  await acquire(g, me);
  try {
    return await fn();
  } finally {
    releaseGate(g, me);
  }
}

/**
 * onConnection for a synchronous `fn` (one libsql statement): when nobody holds or waits for the connection it
 * runs at once, with no promise hop; being synchronous, nothing can interleave with it.
 */
export function onConnectionNow<T>(ds: DataSource, fn: () => T): T | Promise<T> {
  const g = gates.get(ds);
  if (!g || (g.holder === undefined && g.waiting === 0) || g.holder === current(g)) return fn();
  return onConnection(ds, fn);
}

/** Bounds the wait for the embedded DataSource's connection (pool-guard.ts). */
export function setGateTimeout(ds: DataSource, ms: number): void {
  const g = gates.get(ds);
  if (g) g.timeoutMs = ms;
}

/** The libsql connection of an initialized embedded DataSource. */
export const sqliteConnection = (ds: DataSource): SqliteConnection =>
  (ds.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;

/** Gives the embedded DataSource's one connection to one unit of work at a time (see the file comment). */
export function serializeConnection(ds: DataSource): void {
  const g: Gate = {
    als: new AsyncLocalStorage(),
    holder: undefined,
    waiting: 0,
    tail: Promise.resolve(),
    release: undefined,
    timeoutMs: 0,
  };
  gates.set(ds, g);
  // the driver's single, shared query runner (created on first use and kept)
  const qr = ds.driver.createQueryRunner('master') as QueryRunner & {
    transactionDepth: number;
    isTransactionActive: boolean;
  };
  const query = qr.query.bind(qr);
  const start = qr.startTransaction.bind(qr);
  const commit = qr.commitTransaction.bind(qr);
  const rollback = qr.rollbackTransaction.bind(qr);
  const ended = () => {
    if (qr.transactionDepth <= 0) releaseGate(g, current(g));
  };

  qr.query = ((statement: string, params?: unknown[], structured?: boolean) => {
    // IMMEDIATE takes the write lock at BEGIN, where the busy timeout applies; a deferred transaction that
    // read first and then writes fails at once (SQLITE_BUSY_SNAPSHOT) when another process wrote in between
    const text = statement === 'BEGIN TRANSACTION' ? 'BEGIN IMMEDIATE TRANSACTION' : statement;
    return onConnection(ds, () => query(text, params, structured as true));
  }) as QueryRunner['query'];

  qr.startTransaction = async (isolation) => {
    const me = current(g);
    if (g.holder !== me) await acquire(g, me);
    try {
      await start(isolation);
    } catch (e) {
      if (qr.transactionDepth <= 0) {
        // BEGIN failed (e.g. busy past the timeout): nothing is open, give the connection back
        qr.isTransactionActive = false;
        releaseGate(g, me);
      }
      throw e;
    }
  };
  qr.commitTransaction = async () => {
    await commit();
    ended();
  };
  qr.rollbackTransaction = async () => {
    try {
      await rollback();
    } catch (e) {
      if (qr.transactionDepth <= 1) {
        // SQLite already rolled back (a failed COMMIT, a full disk): nothing is open any more
        qr.isTransactionActive = false;
        qr.transactionDepth = 0;
      }
      throw e;
    } finally {
      ended();
    }
  };

  // every ds.transaction callback runs under its own token, so its statements are recognised as the holder's;
  // one nested inside the holder's callback stays the holder's (a savepoint)
  const manager = ds.manager;
  const transaction = manager.transaction.bind(manager);
  manager.transaction = ((...args: Parameters<typeof transaction>) =>
    g.holder !== undefined && g.holder === g.als.getStore()
      ? transaction(...args)
      : g.als.run({}, () => transaction(...args))) as typeof manager.transaction;
}
