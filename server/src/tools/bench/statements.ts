// Counts the statements (round trips) a MySQL service sends, for the bench and for the statement-budget test
// (ADR 0045): every `query` and `execute` of any mysql2 connection in this process (the service's pool, the
// relay's pool, transactions, prepared statements, BEGIN/COMMIT included), by statement text. The mysql2
// connection prototype is wrapped once, in the process that asks (a bench or a test, never the service); a
// counter only counts while it is open. The embedded engine is not counted (count() answers undefined).
import type { DataSource } from 'typeorm';

interface Wrappable {
  query(...args: unknown[]): unknown;
  execute(...args: unknown[]): unknown;
}

export interface StatementCounter {
  /** Statements since the last reset; undefined on the embedded engine. */
  count(): number | undefined;
  /** Statement texts (whitespace folded, first 90 characters) and how often each ran since the last reset. */
  byText(): Map<string, number>;
  reset(): void;
  close(): void;
}

const open = new Set<{ n: number; texts: Map<string, number> }>();
const wrapped = new WeakSet<object>();

function wrap(proto: Wrappable): void {
  if (wrapped.has(proto)) return;
  wrapped.add(proto);
  for (const method of ['query', 'execute'] as const) {
    const orig = proto[method];
    proto[method] = function (this: unknown, ...args: unknown[]) {
      if (open.size > 0) {
        const first = args[0] as string | { sql?: string };
        const text = (typeof first === 'string' ? first : (first?.sql ?? '?'))
          .replace(/\s+/g, ' ')
          .slice(0, 90);
        for (const c of open) {
          c.n++;
          c.texts.set(text, (c.texts.get(text) ?? 0) + 1);
        }
      }
      return orig.apply(this, args);
    };
  }
}

/** Starts counting the statements of `ds`'s driver (and of every other mysql2 connection in this process). */
export async function countStatements(ds: DataSource): Promise<StatementCounter> {
  const state = { n: 0, texts: new Map<string, number>() };
  const driver = ds.driver as unknown as {
    pool?: { getConnection(cb: (e: Error | null, c: unknown) => void): void };
  };
  const mysql = ds.options.type === 'mysql' || ds.options.type === 'mariadb';
  if (mysql && driver.pool) {
    const pool = driver.pool;
    const conn = await new Promise<{ release(): void }>((resolve, reject) =>
      pool.getConnection((e, c) => (e ? reject(e) : resolve(c as { release(): void }))),
    );
    // PoolConnection -> Connection: the prototype that owns query and execute
    let proto = Object.getPrototypeOf(conn) as Wrappable | null;
    while (proto && !Object.hasOwn(proto, 'execute')) proto = Object.getPrototypeOf(proto) as Wrappable;
    conn.release();
    if (proto) wrap(proto);
    open.add(state);
  }
  return {
    count: () => (open.has(state) ? state.n : undefined),
    byText: () => new Map(state.texts),
    reset: () => {
      state.n = 0;
      state.texts.clear();
    },
    close: () => {
      open.delete(state);
    },
  };
}
