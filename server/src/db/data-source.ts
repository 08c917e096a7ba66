// Owns the transaction helpers every module uses on a DataSource (opening one, with every table, is
// app/database.ts: the list of all tables is composition, above the modules).
import type { DataSource, EntityManager } from 'typeorm';
import { inSpan } from '../common/tracing';

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
export function transactionWithRetry<T>(
  ds: DataSource,
  fn: (m: EntityManager) => Promise<T>,
  attempts = 6,
  /** An isolation level for this unit of work (MySQL/MariaDB); the engine's default otherwise. */
  isolation?: 'READ COMMITTED',
): Promise<T> {
  return retryOnDeadlock(ds, attempts, () =>
    isolation && isMysql(ds) ? ds.transaction(isolation, fn) : ds.transaction(fn),
  );
}

/** `once` (one whole transaction) re-run on a deadlock or certification conflict, as transactionWithRetry. */
export async function retryOnDeadlock<T>(
  ds: DataSource,
  attempts: number | undefined,
  once: () => Promise<T>,
): Promise<T> {
  const max = attempts ?? 6;
  return inSpan('db.transaction', { 'db.system.name': isMysql(ds) ? 'mysql' : 'sqlite' }, async (span) => {
    for (let i = 1; ; i++) {
      try {
        return await once();
      } catch (e) {
        if (i >= max || !isDeadlock(e)) throw e;
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
  if (type === 'mysql' || type === 'mariadb') await m.query(LOCK_SESSION_ROW, [sessionId]);
}

/**
 * The session row lock's statement (MySQL/MariaDB; one parameter, the session id). The batched transitions send
 * it with their first round trip instead (session.transition.ts, ADR 0058).
 */
// sql-lint-allow: session-scope: locks the session row by primary key (globally unique id; lookup vindex routes it)
export const LOCK_SESSION_ROW = 'SELECT id FROM session WHERE id = ? FOR UPDATE';

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
