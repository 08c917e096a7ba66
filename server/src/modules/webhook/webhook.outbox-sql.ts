// The outbox store's SQL pieces (webhook.outbox-store.ts): the candidates query (and one session's, which a
// transition reads for the relay, ADR 0058 amendment 3), a multi-statement query on the relay's own pool and the
// outcome write in one round trip (ADR 0014), and the row-count and date helpers that read mysql2 and
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

/** One statement of an outcome write; `fenced`: rows a fenced update must change (else lease lost). */
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

const SESSION_READ_COMMITTED = 'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED';
/** The relay pool's connections whose session level is READ COMMITTED already (mysql2 reuses the objects). */
const readCommitted = new WeakSet<MysqlConnection>();

/**
 * The outcome in one round trip: its statements as one multi-statement query (values bound client-side by
 * mysql2, never spliced in), with no transaction around them: each statement autocommits on its own. None
 * needs another to be true: the attempt rows record attempts that happened; each fenced UPDATE (by its claim
 * token) moves its own events; a release makes its own events due again; the wake-up only makes a successor due
 * earlier. If the database stops between two of them, the worst case is an event still `pending` under its
 * claim: its lease runs out and it is delivered again (at-least-once, as the webhook contract already is;
 * receivers dedupe by webhook-id), or a successor not woken, due at its park's bound. Nothing half-written
 * reads as wrong. Nothing is open after an error, so nothing is rolled back. Each statement runs at READ
 * COMMITTED: set once per connection, at the session level, by the first outcome write a connection of the
 * relay's own pool carries (the pool runs nothing but the relay's statements, database.ts; typeorm's
 * transactions on it set their level themselves).
 * The server stops at the first failing statement; what ran before it stays. Deadlocks and Galera
 * certification conflicts (1213) re-run the whole text, which is safe: the attempt INSERT skips the rows an
 * earlier try wrote (ON DUPLICATE KEY UPDATE, record), a fenced UPDATE or a release that applied matches no row
 * (its claim token is gone), and a wake-up sets the same time again.
 * Returns how many fenced rows were not ours any more (lease lost), and whether a wake-up matched a row.
 */
export async function recordInOneRoundTrip(
  pool: MysqlPool,
  stmts: Stmt[],
): Promise<{ lost: number; woke: boolean }> {
  const body = stmts.map((st) => st.sql).join(';\n');
  const params = stmts.flatMap((st) => st.params);
  for (let i = 1; ; i++) {
    const conn = await new Promise<MysqlConnection>((resolve, reject) =>
      pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
    );
    let results: { affectedRows?: number }[];
    try {
      // a connection's first outcome write sets its session's level first (one result more before ours): each
      // statement still runs at READ COMMITTED, taking no gap locks while it searches (ADR 0065)
      const first = !readCommitted.has(conn);
      const text = first ? `${SESSION_READ_COMMITTED};\n${body}` : body;
      const res = await new Promise<unknown>((resolve, reject) =>
        conn.query(text, params, (err, r) => (err ? reject(err) : resolve(r))),
      );
      if (first) readCommitted.add(conn);
      // one statement alone answers with its result, several with one result each
      const all = (first || stmts.length > 1 ? res : [res]) as { affectedRows?: number }[];
      results = first ? all.slice(1) : all;
    } catch (e) {
      if (i >= 5 || !isDeadlock(e)) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * i));
      continue;
    } finally {
      conn.release(); // nothing is open on it: each statement committed or failed alone
    }
    let lost = 0;
    let woke = false;
    for (const [k, st] of stmts.entries()) {
      // A re-run (i > 1) finds a fenced UPDATE that applied in the failed try matching no row (its claim token
      // is gone): a shortfall then is no lost lease, and is not counted (it only feeds a warning, record()).
      if (st.fenced !== undefined && i === 1) lost += st.fenced - (results[k]?.affectedRows ?? 0);
      if (st.wake && (results[k]?.affectedRows ?? 1) > 0) woke = true;
    }
    return { lost, woke };
  }
}
