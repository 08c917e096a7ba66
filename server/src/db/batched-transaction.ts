// Owns the batched transactions of the session transitions on MySQL (ADR 0058): a transaction whose BEGIN
// travels with its first statement, whose writes that decide nothing (`later`) travel with the next statement
// that needs an answer, and whose COMMIT travels with the last of them. A transition then costs one round trip
// per decision plus one for the commit, instead of one per statement.
//
// Sending several statements in one query needs the connection's multi-statement flag, which turns any SQL
// text built from untrusted input into a way to append statements of one's own. The flag is therefore set on a
// pool of its own (the transition pool, attached to the API's DataSource), never on the API's pool, and the
// texts this module joins are the caller's constant statements, each formatted with its bound values by the
// driver's own escaping (the same `format` mysql2 applies to a query with values) before they are joined.
// The embedded engine has no such pool: its transactions run as before.
import type { DataSource, EntityManager } from 'typeorm';
import { isMysql, retryOnDeadlock, transactionWithRetry } from './data-source';
import {
  occupancyOf,
  POOL_ACQUIRE_TIMEOUT,
  type PoolOccupancy,
  poolAcquireTimeout,
  queryTimeoutOf,
} from './pool-guard';
import { assertNotInsideTransaction, withTransactionMark } from './strict-connection';

type Callback = (err: Error | null, rows?: unknown, fields?: unknown) => void;

interface MysqlConnection {
  query(q: string | { sql: string }, params: unknown, cb?: Callback): unknown;
  format(sql: string, values: unknown[]): string;
  release(): void;
}

interface MysqlPool {
  getConnection(cb: (err: Error | null, conn?: MysqlConnection) => void): void;
  end(cb?: (err?: Error | null) => void): void;
}

/** A kept statement whose affected rows decide the unit: checked when the round trip carrying it answers. */
type Check = (result: { affectedRows: number }) => void;

/** What the round trip carrying a kept statement answered for it (a kept read's rows, a write's header). */
type Answered = (result: unknown) => void;

/**
 * A connection's statements not sent yet (`checks` by their index in `pending`), the writes kept for the
 * COMMIT's round trip, whether a guarded write is among the pending ones, and whether its transaction was
 * begun on the server.
 */
interface Batch {
  pending: string[];
  checks: Map<number, Answered>;
  /** Kept for the COMMIT's round trip, in order; a kept read with the rows' callback (`collect`). */
  atCommit: { text: string; collect?: Answered }[];
  guarded: boolean;
  begun: boolean;
  /**
   * The rows of the guarded write kept last in `pending` whose check is not placed yet: the next kept INSERT
   * carries it (carryGuard), or guardCheck goes right after the write when anything else comes next.
   */
  openGuard?: number;
}

/**
 * The error a guarded write's check (`guardCheck`) raises on the server when its guard was false:
 * ER_SUBQUERY_NO_1_ROW, which none of the transitions' own statements can raise (they have no scalar subquery).
 */
const GUARD_ERRNO = 1242;

/** `rows`, the count a guarded write changes when its guard holds: a whole number, at least one. */
const guardedRows = (rows: number): number => {
  if (!Number.isInteger(rows) || rows < 1)
    throw new Error(`a guarded write changes at least one row: ${rows}`);
  return rows;
};

/** The scalar subquery that has two rows (ER_SUBQUERY_NO_1_ROW) unless the previous statement matched `rows`. */
const lostGuard = (rows: number): string =>
  `(SELECT 1 FROM (SELECT 1 AS n UNION ALL SELECT 2) AS lost_guard WHERE ROW_COUNT() <> ${guardedRows(rows)})`;

/**
 * The statement kept right after a guarded write in a batched transaction (ADR 0058 amendment 3) when no INSERT
 * follows it to carry the check (carryGuard): it fails with ER_SUBQUERY_NO_1_ROW unless the write before it
 * matched exactly `rows` rows. `ROW_COUNT()` is the previous statement's count (the rows it matched: the driver
 * sets CLIENT_FOUND_ROWS), and when it differs the scalar subquery has two rows. The server then runs nothing
 * after it in the batch (the COMMIT included), and the unit rolls back whole (`isLostGuard`). A write that
 * changed less than it should therefore stops its batch instead of being answered first: the move and the
 * COMMIT travel together. The check is never a condition in the guarded write's own WHERE, so it does not
 * depend on the order in which an engine evaluates the terms of a condition.
 */
export const guardCheck = (rows: number): string => `SELECT ${lostGuard(rows)} AS lost_guard`;

/** `INSERT INTO <table> (<columns>) VALUES (?, …), (?, …)`: a template of placeholders only, no values. */
const INSERT_VALUES = /^(INSERT INTO [^()]+\([^()]*\)) VALUES (\(\?(?:, \?)*\)(?:, \(\?(?:, \?)*\))*)$/;

/**
 * The guard's check carried by the INSERT kept right after the guarded write (ADR 0073): `template` (placeholders
 * only, before its values are formatted in) as `INSERT INTO t (…) SELECT ?, … FROM DUAL WHERE <check> IS NULL
 * UNION ALL SELECT ?, …`, whose only condition is the check. `ROW_COUNT()` is still the guarded write's count
 * while this statement runs; when it differs the statement fails with ER_SUBQUERY_NO_1_ROW and inserts none of
 * its rows, exactly where the check of its own would have failed. Undefined for any other statement: guardCheck
 * goes before it.
 */
export function carryGuard(template: string, rows: number): string | undefined {
  const m = INSERT_VALUES.exec(template);
  if (!m) return undefined;
  const tuples = (m[2] as string).match(/\([^()]*\)/g) as string[];
  const select = (t: string) => `SELECT ${t.slice(1, -1)}`;
  return `${m[1]} ${select(tuples[0] as string)} FROM DUAL WHERE ${lostGuard(rows)} IS NULL${tuples
    .slice(1)
    .map((t) => ` UNION ALL ${select(t)}`)
    .join('')}`;
}

/** Places the open guard's check as a statement of its own, right after its write (nothing carried it). */
function closeGuard(batch: Batch): void {
  if (batch.openGuard === undefined) return;
  batch.pending.push(guardCheck(batch.openGuard));
  batch.openGuard = undefined;
}

/** Raised by the round trip that carried a guarded write whose guard was false: the unit lost its race. */
export class LostGuard extends Error {
  constructor(cause: unknown) {
    super('a guarded write of a batched transaction found its guard false', { cause });
  }
}

/** True for a LostGuard, also as the driver error of TypeORM's QueryFailedError around it. */
export const isLostGuard = (e: unknown): boolean =>
  e instanceof LostGuard || (e as { driverError?: unknown } | null)?.driverError instanceof LostGuard;

const pools = new WeakMap<DataSource, { pool: MysqlPool; acquireTimeoutMs: number }>();
const batches = new WeakMap<object, Batch>();

/** What mysql2 answers for a statement that changes nothing (START TRANSACTION, COMMIT). */
const OK = { affectedRows: 0, insertId: 0, warningStatus: 0 };

/**
 * Gives `ds` (MySQL, initialized) a transition pool of `poolSize` connections with the multi-statement flag,
 * built from the same connection options as the API's pool; its waits are bounded like the API pool's (ADR
 * 0044). The pool ends with the DataSource. No-op on the embedded engine.
 */
export function enableBatchedTransactions(
  ds: DataSource,
  opts: { poolSize: number; acquireTimeoutMs: number },
): void {
  if (!isMysql(ds) || pools.has(ds)) return;
  const driver = ds.driver as unknown as {
    options: object;
    mysql: { createPool(o: object): MysqlPool };
    createConnectionOptions(options: object, credentials: object): Record<string, unknown>;
  };
  const pool = driver.mysql.createPool({
    ...driver.createConnectionOptions(driver.options, driver.options),
    connectionLimit: opts.poolSize,
    multipleStatements: true,
  });
  pools.set(ds, { pool, acquireTimeoutMs: opts.acquireTimeoutMs });
  const destroy = ds.destroy.bind(ds);
  ds.destroy = async () => {
    pools.delete(ds);
    await new Promise<void>((resolve) => pool.end(() => resolve()));
    return destroy();
  };
}

/** True when `ds` runs its transitions batched (MySQL with a transition pool). */
export const batchesTransactions = (ds: DataSource): boolean => pools.has(ds);

/** Occupancy of the transition pool of `ds`; undefined when it has none (the embedded engine). */
export function transitionPoolState(ds: DataSource): PoolOccupancy | undefined {
  const p = pools.get(ds);
  return p ? occupancyOf(p.pool) : undefined;
}

/**
 * Readiness of the transition pool (ADR 0058 amendment): 'ok' when a connection of it is free within `waitMs`
 * (it is handed back at once, nothing is sent), 'pool_exhausted' when every one stayed busy, 'failed' when the
 * pool cannot open one (the database is away); undefined when `ds` has no transition pool.
 */
export async function probeTransitionPool(
  ds: DataSource,
  waitMs: number,
): Promise<'ok' | 'pool_exhausted' | 'failed' | undefined> {
  const p = pools.get(ds);
  if (!p) return undefined;
  try {
    (await acquire({ pool: p.pool, acquireTimeoutMs: Math.min(waitMs, p.acquireTimeoutMs) })).release();
    return 'ok';
  } catch (e) {
    if ((e as { code?: unknown }).code !== POOL_ACQUIRE_TIMEOUT) return 'failed';
    // the wait ran out: every connection busy, or (fewer busy) the ones being opened cannot reach the database
    const state = occupancyOf(p.pool);
    return state.busy >= state.size ? 'pool_exhausted' : 'failed';
  }
}

/**
 * `fn` in one transaction, re-run whole on a deadlock or certification conflict (retryOnDeadlock), batched on
 * the transition pool when `ds` has one; otherwise exactly transactionWithRetry.
 */
export function batchedTransactionWithRetry<T>(
  ds: DataSource,
  fn: (m: EntityManager) => Promise<T>,
  attempts?: number,
): Promise<T> {
  const p = pools.get(ds);
  if (!p) return transactionWithRetry(ds, fn, attempts);
  return retryOnDeadlock(ds, attempts, () => withTransactionMark(ds, () => batched(ds, p, fn)));
}

/** True when `m` runs a batched transaction (its statements may be kept: deferIfBatched). */
export function isBatched(m: EntityManager): boolean {
  const qr = m.queryRunner as unknown as
    | { databaseConnection?: MysqlConnection; isTransactionActive: boolean }
    | undefined;
  const conn = qr?.isTransactionActive ? qr.databaseConnection : undefined;
  return conn !== undefined && batches.has(conn);
}

/**
 * Keeps `statement` (a write whose answer decides nothing) for the next round trip of the batched transaction
 * `m` runs in, formatted with its values; false when `m` is not one (the caller runs it at once).
 */
export function deferIfBatched(
  m: EntityManager,
  statement: string,
  params: unknown[],
  opts: {
    /**
     * Decides on the statement's affected rows when the round trip carrying it answers, before the caller of
     * that round trip gets its own answer: what it throws is that round trip's error (the unit rolls back).
     */
    check?: Check;
    /**
     * Sent with the COMMIT's round trip, after every statement that needs an answer (nothing in the unit reads
     * it); with `collect`, a read whose rows go to the caller only when that round trip (the COMMIT included)
     * answered without error (the page's read after a transition, ADR 0062 amendment).
     */
    atCommit?: boolean;
    /**
     * A guarded write that changes this many rows when its guard holds: `guardCheck` is kept after it, and when
     * the guard is false the round trip carrying it fails with LostGuard instead of answering (ADR 0058
     * amendment 3).
     */
    guarded?: number;
    /**
     * A kept read whose rows the unit passes on and does not decide on (the relay's candidates, ADR 0058
     * amendment 3): called with them when the round trip carrying it answers without error.
     */
    collect?: (rows: unknown[]) => void;
  } = {},
): boolean {
  const qr = m.queryRunner as unknown as
    | { databaseConnection?: MysqlConnection; isTransactionActive: boolean }
    | undefined;
  const conn = qr?.isTransactionActive ? qr.databaseConnection : undefined;
  const batch = conn ? batches.get(conn) : undefined;
  if (!conn || !batch) return false;
  // an INSERT right after a guarded write carries its check (ADR 0073); anything else is preceded by it
  const carried =
    batch.openGuard !== undefined && !opts.atCommit ? carryGuard(statement, batch.openGuard) : undefined;
  if (carried) batch.openGuard = undefined;
  else if (!opts.atCommit) closeGuard(batch);
  const text = conn.format(carried ?? statement, params);
  if (opts.atCommit) {
    const { collect } = opts;
    batch.atCommit.push(collect ? { text, collect: (r) => collect(r as unknown[]) } : { text });
  } else {
    const { check, collect } = opts;
    if (check) batch.checks.set(batch.pending.length, (r) => check(r as { affectedRows: number }));
    else if (collect) batch.checks.set(batch.pending.length, (r) => collect(r as unknown[]));
    batch.pending.push(text);
    if (opts.guarded !== undefined) {
      batch.guarded = true;
      batch.openGuard = guardedRows(opts.guarded);
    }
  }
  return true;
}

async function batched<T>(
  ds: DataSource,
  p: { pool: MysqlPool; acquireTimeoutMs: number },
  fn: (m: EntityManager) => Promise<T>,
): Promise<T> {
  // the runner first: strict mode refuses it inside another transaction of ds before a connection is taken
  const qr = ds.createQueryRunner();
  const conn = await acquire(p);
  const batch: Batch = { pending: [], checks: new Map(), atCommit: [], guarded: false, begun: false };
  batches.set(conn, batch);
  const query = conn.query;
  // own property on this connection while the transaction runs; removed before the connection goes back
  conn.query = (q: string | { sql: string }, params: unknown, cb?: Callback) => {
    const done = (typeof params === 'function' ? params : cb) as Callback;
    const values = typeof params === 'function' ? undefined : (params as unknown[] | undefined);
    const text = typeof q === 'string' ? q : q.sql;
    if (text === 'START TRANSACTION' && !batch.begun) {
      batch.pending.push(text);
      process.nextTick(() => done(null, OK, undefined));
      return;
    }
    if (text === 'COMMIT' && !batch.begun && alone(batch)) return sendAlone(query, conn, q, batch, done);
    // the guarded write's check right after it, before anything else this round trip sends
    if (text !== 'ROLLBACK') closeGuard(batch);
    if (text === 'COMMIT')
      for (const kept of batch.atCommit.splice(0)) {
        if (kept.collect) batch.checks.set(batch.pending.length, kept.collect);
        batch.pending.push(kept.text);
      }
    if (text === 'ROLLBACK') {
      batch.atCommit = [];
      batch.openGuard = undefined;
    }
    if ((text === 'COMMIT' || text === 'ROLLBACK') && !batch.begun) {
      // nothing reached the server: there is no transaction to end (deferred writes are dropped on ROLLBACK;
      // a COMMIT with only START pending wrote nothing)
      const writes = batch.pending.filter((s) => s !== 'START TRANSACTION');
      if (text === 'ROLLBACK' || writes.length === 0) {
        batch.pending = [];
        batch.checks.clear();
        batch.guarded = false;
        process.nextTick(() => done(null, OK, undefined));
        return;
      }
    }
    if (text === 'ROLLBACK') {
      batch.pending = [];
      batch.checks.clear();
      batch.guarded = false;
    }
    if (batch.pending.length === 0) return query.call(conn, q, values ?? done, values ? done : undefined);
    const statements = [...batch.pending, values ? conn.format(text, values) : text];
    const checks = batch.checks;
    const guarded = batch.guarded;
    batch.pending = [];
    batch.checks = new Map();
    batch.guarded = false;
    batch.begun = true;
    const sql = statements.join(';\n');
    return query.call(
      conn,
      typeof q === 'string' ? sql : { ...q, sql },
      (err: Error | null, rows?: unknown, fields?: unknown) => {
        // one result per statement: the caller asked for the last one's. A guard found false stopped the batch
        // at its write: nothing after it ran (the COMMIT neither), and the unit rolls back
        if (err)
          return done(
            guarded && (err as { errno?: unknown }).errno === GUARD_ERRNO ? new LostGuard(err) : err,
          );
        // the kept statements' decisions come first, in their order (a consumed request before the move)
        try {
          for (const [i, check] of checks) check((rows as unknown[])[i]);
        } catch (e) {
          return done(e as Error);
        }
        done(
          null,
          (rows as unknown[])[statements.length - 1],
          (fields as unknown[] | undefined)?.[statements.length - 1],
        );
      },
    );
  };
  (qr as unknown as { databaseConnection: MysqlConnection }).databaseConnection = conn;
  try {
    await qr.startTransaction();
    try {
      const value = await fn(qr.manager);
      await qr.commitTransaction();
      return value;
    } catch (e) {
      if (qr.isTransactionActive) await qr.rollbackTransaction().catch(() => undefined);
      throw e;
    }
  } finally {
    batches.delete(conn);
    delete (conn as { query?: unknown }).query;
    await qr.release();
  }
}

/**
 * True when the unit's only write, at its COMMIT with nothing sent yet, is one statement that is atomic by
 * itself (ADR 0074): unguarded, or guarded to change exactly one row, so that a lost guard changed nothing. A
 * write guarded to change more rows (the completion's two-table UPDATE) could change some of them and keeps its
 * transaction; so does anything kept for the COMMIT (a read, a row written with it).
 */
function alone(batch: Batch): boolean {
  const writes = batch.pending.length === 2 && batch.pending[0] === 'START TRANSACTION';
  return writes && batch.atCommit.length === 0 && (batch.guarded ? batch.openGuard === 1 : true);
}

/**
 * Sends the unit's only write as one statement with no transaction around it (autocommit: the statement is its
 * own transaction), and answers the unit's COMMIT with it: two statements fewer and the same outcome (ADR 0074).
 * A guarded write that matched no row changed nothing and raises LostGuard, as its check would have; the
 * write's own decision (`check`) comes next. Nothing is begun on the server, so a ROLLBACK after it sends nothing.
 */
function sendAlone(
  query: MysqlConnection['query'],
  conn: MysqlConnection,
  /** The COMMIT's query (its options, the statement timeout, go with the write). */
  q: string | { sql: string },
  batch: Batch,
  done: Callback,
): unknown {
  const write = batch.pending[1] as string;
  const check = batch.checks.get(1);
  const guarded = batch.openGuard;
  batch.pending = [];
  batch.checks = new Map();
  batch.guarded = false;
  batch.openGuard = undefined;
  return query.call(
    conn,
    typeof q === 'string' ? write : { ...q, sql: write },
    (err: Error | null, result?: unknown) => {
      if (err) return done(err);
      if (guarded !== undefined && (result as { affectedRows: number }).affectedRows !== guarded)
        return done(new LostGuard(new Error('the only write of the unit matched no row')));
      try {
        check?.(result);
      } catch (e) {
        return done(e as Error);
      }
      done(null, OK, undefined);
    },
  );
}

/** A connection of the transition pool, waited for at most acquireTimeoutMs (ADR 0044). */
function acquire(p: { pool: MysqlPool; acquireTimeoutMs: number }): Promise<MysqlConnection> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(poolAcquireTimeout(p.acquireTimeoutMs));
    }, p.acquireTimeoutMs);
    p.pool.getConnection((err, conn) => {
      if (settled) {
        conn?.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (err || !conn) reject(err ?? new Error('no connection'));
      else resolve(conn);
    });
  });
}

/**
 * Several constant statements in one round trip outside any transaction (issue 27, ADR 0062): each formatted
 * with its bound values by the driver's own escaping, then joined, on the transition pool (the only pool with
 * the multi-statement flag); each statement's own result, in order. Undefined when `ds` has no transition pool
 * (the embedded engine): the caller runs them one by one. For statements that need no transaction together
 * (the page's open: an idempotent INSERT IGNORE, then the read of what it opened).
 */
export async function batchedStatements(
  ds: DataSource,
  statements: readonly (readonly [string, unknown[]])[],
): Promise<unknown[] | undefined> {
  const p = pools.get(ds);
  if (!p) return undefined;
  // strict test mode: a statement outside the caller's transaction, from inside one (ADR 0044)
  assertNotInsideTransaction(ds);
  const conn = await acquire(p);
  try {
    const text = statements.map(([s, values]) => conn.format(s, values)).join(';\n');
    const timeout = queryTimeoutOf(ds);
    return await new Promise<unknown[]>((resolve, reject) =>
      conn.query(
        timeout === undefined ? text : ({ sql: text, timeout } as { sql: string }),
        undefined,
        (err, rows) => (err ? reject(err) : resolve(statements.length === 1 ? [rows] : (rows as unknown[]))),
      ),
    );
  } finally {
    conn.release();
  }
}
