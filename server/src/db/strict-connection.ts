// Owns the strict single-connection test mode (DB_STRICT_SINGLE_CONNECTION, ADR 0044): code that runs inside a
// transaction of a DataSource must not ask that DataSource for another connection. On MySQL such a request
// waits for the pool while holding one of its connections: as many of them at once as the pool has connections
// and none ever returns (issue 27's outage). On the embedded engine the same request waits for the one
// serialized connection its own transaction holds, or silently lands inside it. In strict mode it throws at
// once, with the stack of the offending call, and is recorded on the DataSource so a test harness can fail
// a suite whose code swallowed the error. The mark is an AsyncLocalStorage store set around each
// ds.transaction callback; a store is open from BEGIN until the transaction settles.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner } from 'typeorm';

interface TxMark {
  ds: DataSource;
  open: boolean;
  /** Query runners the DataSource created in this transaction's context (the first is the transaction's). */
  runners: number;
  /** Connections taken from the MySQL pool in this context (the first is the transaction's). */
  connections: number;
  parent: TxMark | undefined;
}

const als = new AsyncLocalStorage<TxMark>();
const violations = new WeakMap<DataSource, string[]>();
const strict = new WeakSet<DataSource>();

export const STRICT_VIOLATION = 'DB_STRICT_SINGLE_CONNECTION';

/** The open transaction of `ds` the current code runs in, if any. */
function openMark(ds: DataSource): TxMark | undefined {
  for (let m = als.getStore(); m; m = m.parent) if (m.ds === ds && m.open) return m;
  return undefined;
}

/** True when the current code runs inside an open transaction of `ds` (strict mode only; false otherwise). */
export const insideTransaction = (ds: DataSource): boolean => openMark(ds) !== undefined;

/** What strict mode refused on `ds` so far (messages with stacks); empty when none or not strict. */
export const strictViolations = (ds: DataSource): readonly string[] => violations.get(ds) ?? [];

function refuse(ds: DataSource, what: string): never {
  const err = Object.assign(
    new Error(
      `${STRICT_VIOLATION}: code running inside a transaction asked the same DataSource for ${what}. ` +
        'Pass the transaction’s EntityManager down (or read what is needed before the transaction): ' +
        'with every connection held by such transactions the service waits forever.',
    ),
    { code: STRICT_VIOLATION },
  );
  const list = violations.get(ds) ?? [];
  list.push(err.stack ?? err.message);
  violations.set(ds, list);
  throw err;
}

/**
 * Throws (strict mode) when the current code runs inside an open transaction of `ds`: for a path that reaches
 * the connection without a query runner (fast-sql's direct statements on either engine).
 */
export function assertNotInsideTransaction(ds: DataSource, what = 'a direct statement'): void {
  if (strict.has(ds) && openMark(ds)) refuse(ds, `another connection (${what})`);
}

/**
 * Runs `fn`, a transaction of `ds` opened on a connection of another pool (batched-transaction.ts), under the
 * same mark as ds.transaction: its one query runner is the transaction's, and every connection of `ds`'s own
 * pool it asks for is a second one. Without strict mode, or inside an open mark, it just runs `fn`.
 */
export function withTransactionMark<T>(ds: DataSource, fn: () => Promise<T>): Promise<T> {
  if (!strict.has(ds) || openMark(ds)) return fn();
  const mark: TxMark = { ds, open: true, runners: 0, connections: 1, parent: als.getStore() };
  return als.run(mark, async () => {
    try {
      return await fn();
    } finally {
      mark.open = false;
    }
  });
}

interface MysqlPoolLike {
  getConnection(cb: (err: Error | null, conn?: unknown) => void): void;
}

/**
 * Turns strict mode on for `ds` (initialized, so a MySQL pool exists). Idempotent. Hooks ds.transaction (the
 * mark), ds.createQueryRunner (every repository, query builder and ds.query outside a transaction manager
 * goes through it) and, on MySQL, the pool's getConnection (statements sent to the pool directly).
 */
export function enableStrictSingleConnection(ds: DataSource): void {
  if (strict.has(ds)) return;
  strict.add(ds);
  const manager = ds.manager;
  const transaction = manager.transaction.bind(manager);
  manager.transaction = ((...args: Parameters<typeof transaction>) => {
    // a ds.transaction nested in an open one keeps the outer mark: its query runner is a second connection
    if (openMark(ds)) return transaction(...args);
    const mark: TxMark = { ds, open: true, runners: 0, connections: 0, parent: als.getStore() };
    return als.run(mark, async () => {
      try {
        return await transaction(...args);
      } finally {
        mark.open = false;
      }
    });
  }) as typeof manager.transaction;

  const createQueryRunner = ds.createQueryRunner.bind(ds);
  ds.createQueryRunner = ((mode?: 'master' | 'slave'): QueryRunner => {
    const mark = openMark(ds);
    if (mark && mark.runners++ > 0)
      refuse(ds, 'a second query runner (ds.getRepository/ds.query/ds.createQueryBuilder/ds.transaction)');
    return createQueryRunner(mode);
  }) as typeof ds.createQueryRunner;

  const pool = (ds.driver as unknown as { pool?: MysqlPoolLike }).pool;
  if (pool) {
    const getConnection = pool.getConnection.bind(pool);
    pool.getConnection = (cb) => {
      const mark = openMark(ds);
      if (mark && mark.connections++ > 0) {
        try {
          refuse(ds, 'a second pool connection');
        } catch (e) {
          process.nextTick(() => cb(e as Error));
          return;
        }
      }
      getConnection(cb);
    };
  }
}
