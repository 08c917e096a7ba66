// The outbox store's SQL pieces (webhook.outbox-store.ts): the candidates query, a multi-statement query on the
// relay's own pool (ADR 0014), and the row-count and date helpers that read mysql2 and better-sqlite3 alike.
import type { EntityManager } from 'typeorm';

export interface MysqlConnection {
  query(sql: string, values: unknown[], cb: (err: Error | null, res: unknown) => void): void;
  release(): void;
}
export interface MysqlPool {
  getConnection(cb: (err: Error | null, conn: MysqlConnection) => void): void;
}

/**
 * Due candidates, oldest first, each with its session's head (the lowest undelivered sequence) and whether a
 * failed event is ahead of it, and its endpoint.
 */
export const candidatesSql = (limit: number): string => candidatesOf('', limit);

/**
 * The due candidates of one session (one parameter more, the session id, after the time), as candidatesSql
 * reads them: read by a transition that queued events, in its own commit's round trip, and handed to this
 * node's relay so that its claim needs no read of its own (ADR 0058 amendment 3). Session-scoped by design.
 */
export const SESSION_CANDIDATES_SQL = candidatesOf(' AND e.session_id = ?', 500);

function candidatesOf(andWhere: string, limit: number): string {
  return `SELECT e.id, e.business_id, e.environment, e.session_id, e.sequence, e.event, e.delivery_id, e.body,
          e.attempts, p.id AS endpoint_id, p.url, p.secret, p.previous_secret, p.previous_secret_expires_at,
          (SELECT MIN(h.sequence) FROM webhook_event h
            WHERE h.session_id = e.session_id AND h.status <> 'delivered') AS head_seq,
          (SELECT COUNT(*) FROM webhook_event f
            WHERE f.session_id = e.session_id AND f.status = 'failed' AND f.sequence < e.sequence)
            AS failed_before
   FROM webhook_event e
   LEFT JOIN webhook_endpoint p ON p.business_id = e.business_id AND p.environment = e.environment
   WHERE e.status = 'pending' AND e.next_attempt_at <= ?${andWhere}
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
