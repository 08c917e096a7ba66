// Owns the bounds on every wait for the database (ADR 0044): a request waits for a free pool connection at
// most DB_ACQUIRE_TIMEOUT_MS (mysql2 has no acquire timeout of its own: its queue waits forever), a statement
// runs at most DB_QUERY_TIMEOUT_MS, and the pool's occupancy is readable for /readyz. A wait that runs out fails
// with POOL_ACQUIRE_TIMEOUT, which the error mapping answers as 503 service_unavailable with Retry-After.
import type { DataSource } from 'typeorm';
import type { DbPoolConfig } from '../config/config';
import { setGateTimeout } from './sqlite-engine';
import { enableStrictSingleConnection } from './strict-connection';

export const POOL_ACQUIRE_TIMEOUT = 'POOL_ACQUIRE_TIMEOUT';

/** The error of a wait for a connection that ran out (both engines). */
export function poolAcquireTimeout(ms: number): Error {
  return Object.assign(new Error(`no database connection became free within ${ms} ms`), {
    code: POOL_ACQUIRE_TIMEOUT,
  });
}

/** True when e (or the error TypeORM wraps it in) is a connection wait that ran out or a full pool queue. */
export function isPoolExhausted(e: unknown): boolean {
  for (let cur = e, depth = 0; cur && depth < 4; depth++) {
    const err = cur as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
    if (err.code === POOL_ACQUIRE_TIMEOUT) return true;
    if (typeof err.message === 'string' && /^Queue limit reached/.test(err.message)) return true;
    cur = err.driverError ?? err.cause;
  }
  return false;
}

interface MysqlPool {
  getConnection(cb: (err: Error | null, conn?: { release(): void }) => void): void;
  config: { connectionLimit: number };
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

const mysqlPool = (ds: DataSource): MysqlPool | undefined =>
  (ds.driver as unknown as { pool?: MysqlPool }).pool;

export interface PoolOccupancy {
  size: number;
  busy: number;
  waiting: number;
}

/** Occupancy of the MySQL pool (undefined on the embedded engine). */
export function poolState(ds: DataSource): PoolOccupancy | undefined {
  const p = mysqlPool(ds);
  return p ? occupancyOf(p) : undefined;
}

/** Occupancy of a mysql2 (callback) pool: the API's, or the transition pool (ADR 0058). */
export function occupancyOf(pool: unknown): PoolOccupancy {
  const p = pool as MysqlPool;
  return {
    size: p.config.connectionLimit,
    busy: p._allConnections.length - p._freeConnections.length,
    waiting: p._connectionQueue.length,
  };
}

/**
 * Bounds the waits of an initialized DataSource (call after migrations: they are not bounded by the query
 * timeout) and, in test mode, turns the strict single-connection check on.
 */
export function guardDataSource(
  ds: DataSource,
  cfg: Pick<DbPoolConfig, 'acquireTimeoutMs' | 'queryTimeoutMs' | 'strictSingleConnection'>,
): void {
  const pool = mysqlPool(ds);
  if (pool) {
    const getConnection = pool.getConnection.bind(pool);
    const ms = cfg.acquireTimeoutMs;
    // pool.query/execute call this.getConnection, so direct statements are bounded too
    pool.getConnection = (cb) => {
      // A free connection is handed out on the next tick without waiting: no wait to bound, so no timer (a
      // setTimeout and clearTimeout on every statement of the hot reads otherwise). mysql2 takes the last free
      // connection first; a closed pool answers its own error, also at once.
      if (pool._freeConnections.length > 0) return getConnection(cb);
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        cb(poolAcquireTimeout(ms));
      }, ms);
      getConnection((err, conn) => {
        if (settled) {
          conn?.release(); // the waiter has gone: hand the connection to the next one
          return;
        }
        settled = true;
        clearTimeout(timer);
        cb(err, conn);
      });
    };
    if (cfg.queryTimeoutMs > 0) {
      // TypeORM passes { sql, timeout } to mysql2 for each statement of its query runners
      const opts = ds.driver.options as { maxQueryExecutionTime?: number; enableQueryTimeout?: boolean };
      opts.maxQueryExecutionTime = cfg.queryTimeoutMs;
      opts.enableQueryTimeout = true;
      queryTimeouts.set(ds, cfg.queryTimeoutMs);
    }
  } else {
    setGateTimeout(ds, cfg.acquireTimeoutMs);
  }
  // installed last, so it sees a request before the timeout wrapper queues it
  if (cfg.strictSingleConnection) enableStrictSingleConnection(ds);
}

const queryTimeouts = new WeakMap<DataSource, number>();

/** The statement timeout of `ds` (ms) for statements sent to the pool directly; undefined when unbounded. */
export const queryTimeoutOf = (ds: DataSource): number | undefined => queryTimeouts.get(ds);
