// The outbox store's SQL pieces (webhook.outbox-store.ts): the candidates query (and one session's, which a
// transition reads for the relay, ADR 0058 amendment 3), a multi-statement query on the relay's own pool and the
// outcome transaction in one round trip (ADR 0014), and the row-count and date helpers that read mysql2 and
// better-sqlite3 alike.
import type { EntityManager } from 'typeorm';
import { isDeadlock } from '../../db/data-source';

export interface MysqlConnection {
  query(sql: string, values: unknown[], cb: (err: Error | null, res: unknown) => void): void;
  release(): void;
}
export interface MysqlPool {
  getConnection(cb: (err: Error | null, conn: MysqlConnection) => void): void;
}

/** Due: pending, and its time has come (the time is the query's first parameter). */
const DUE = `e.status = 'pending' AND e.next_attempt_at <= ?`;

/**
 * Due candidates, oldest first, each with its session's head (the lowest undelivered sequence) and whether a
 * failed event is ahead of it, and its endpoint.
 */
export const candidatesSql = (limit: number): string => candidatesOf(DUE, limit);

/**
 * The due candidates of one session (one parameter more, the session id, after the time), as candidatesSql
 * reads them: read by a transition that queued events, in its own commit's round trip, and handed to this
 * node's relay so that its claim needs no read of its own (ADR 0058 amendment 3). Session-scoped by design.
 */
export const SESSION_CANDIDATES_SQL = candidatesOf(`${DUE} AND e.session_id = ?`, 500);

/**
 * The events a transition queued under this node's relay's claim (the session id, then the claim's token), read
 * as the candidates are, in its commit's round trip: the relay sends them with no claim of its own (ADR 0071).
 */
export const CLAIMED_AT_COMMIT_SQL = candidatesOf('e.session_id = ? AND e.claim_token = ?', 500);

function candidatesOf(where: string, limit: number): string {
  return `SELECT e.id, e.business_id, e.environment, e.session_id, e.sequence, e.event, e.delivery_id, e.body,
          e.attempts, p.id AS endpoint_id, p.url, p.secret, p.previous_secret, p.previous_secret_expires_at,
          (SELECT MIN(h.sequence) FROM webhook_event h
            WHERE h.session_id = e.session_id AND h.status <> 'delivered') AS head_seq,
          (SELECT COUNT(*) FROM webhook_event f
            WHERE f.session_id = e.session_id AND f.status = 'failed' AND f.sequence < e.sequence)
            AS failed_before
   FROM webhook_event e
   LEFT JOIN webhook_endpoint p ON p.business_id = e.business_id AND p.environment = e.environment
   WHERE ${where}
   ORDER BY e.next_attempt_at LIMIT ${limit}`;
}

/** One statement of an outcome transaction; `fenced`: rows a fenced update must change (else lease lost). */
export type Stmt = { sql: string; params: unknown[]; fenced?: number; wake?: true };

/** One multi-statement query on a connection of `pool` (values bound by mysql2): one result per statement. */
export function multiQuery<T>(pool: MysqlPool, text: string, params: unknown[]): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    pool.getConnection((err, conn) => {
      if (err) return reject(err);
      conn.query(text, params, (qerr, res) => {
        conn.release();
        if (qerr) reject(qerr);
        else resolve(res as T);
      });
    }),
  );
}

export const marks = (xs: readonly unknown[]): string => xs.map(() => '?').join(', ');

/** A DATETIME as read by a raw query: mysql2 gives a Date, SQLite TypeORM's UTC text. */
export const toDate = (v: unknown): Date =>
  v instanceof Date ? v : new Date(`${String(v).replace(' ', 'T')}Z`);

/**
 * Rows an autocommit UPDATE changed. mysql2 reports matched rows (FOUND_ROWS), equal to changed rows here since
 * every claim writes a fresh token; better-sqlite3 through DataSource.query returns no count, so NaN forces the
 * read-back there (SQLite has one writer, so the read-back is exact and cheap).
 */
export function changedRows(res: unknown): number {
  const r = res as { affectedRows?: number } | undefined;
  return typeof r?.affectedRows === 'number' ? r.affectedRows : Number.NaN;
}

/** Runs an UPDATE in the transaction of `m` and returns the rows it changed (mysql2 and better-sqlite3 alike). */
export async function update(m: EntityManager, sql: string, params: unknown[]): Promise<number> {
  const runner = m.queryRunner;
  if (!runner) throw new Error('update outside a transaction');
  const res = await runner.query(sql, params, true);
  return res.affected ?? 0;
}

/**
 * The outcome transaction in one round trip: `START TRANSACTION; <stmts>; COMMIT` as one multi-statement query
 * (values bound client-side by mysql2, never spliced in), at READ COMMITTED: set once per connection, at the
 * session level, by the first outcome transaction a connection of the relay's own pool carries (the pool runs
 * nothing but the relay's statements, database.ts; typeorm's transactions on it set their level themselves),
 * instead of a `SET TRANSACTION` before every delivery's. The server stops at the first
 * failing statement; the transaction is then rolled back on the same connection before it goes back to the
 * pool. Deadlocks and Galera certification conflicts (1213, at COMMIT) re-run the whole query, as tx() does.
 * Returns how many fenced rows were not ours any more (lease lost), and whether a wake-up matched a row.
 */
const SESSION_READ_COMMITTED = 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED';
/** The relay pool's connections whose session level is READ COMMITTED already (mysql2 reuses the objects). */
const readCommitted = new WeakSet<MysqlConnection>();

export async function recordInOneRoundTrip(
  pool: MysqlPool,
  stmts: Stmt[],
): Promise<{ lost: number; woke: boolean }> {
  const body = ['START TRANSACTION', ...stmts.map((st) => st.sql), 'COMMIT'].join(';\n');
  const params = stmts.flatMap((st) => st.params);
  for (let i = 1; ; i++) {
    const conn = await new Promise<MysqlConnection>((resolve, reject) =>
      pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
    );
    try {
      // a connection's first outcome transaction sets its session's level first (one result more before ours)
      const first = !readCommitted.has(conn);
      const text = first ? `${SESSION_READ_COMMITTED};\n${body}` : body;
      const results = await new Promise<{ affectedRows?: number }[]>((resolve, reject) =>
        conn.query(text, params, (err, res) =>
          err ? reject(err) : resolve(res as { affectedRows?: number }[]),
        ),
      );
      if (first) readCommitted.add(conn);
      conn.release();
      const at = first ? 2 : 1; // results before the first statement's: [SET SESSION …,] START TRANSACTION
      let lost = 0;
      let woke = false;
      for (const [k, st] of stmts.entries()) {
        if (st.fenced !== undefined) lost += st.fenced - (results[k + at]?.affectedRows ?? 0);
        if (st.wake && (results[k + at]?.affectedRows ?? 1) > 0) woke = true;
      }
      return { lost, woke };
    } catch (e) {
      // whatever ran before the failing statement is undone before the connection is reused
      await new Promise<void>((resolve) => conn.query('ROLLBACK', [], () => resolve()));
      conn.release();
      if (i >= 5 || !isDeadlock(e)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * i));
    }
  }
}
