// Counts the round trips a MySQL service sends, and the statements they carry, for the bench and for the
// statement-budget test (ADR 0045, ADR 0058): every `query` and `execute` of any mysql2 connection in this
// process (the service's pool, the relay's pool, the transition pool, transactions, prepared statements,
// BEGIN/COMMIT included) is one round trip, by statement text; a multi-statement query (the relay's outcome
// write, a batched transition) counts each of its statements. The mysql2
// connection prototype is wrapped once, in the process that asks (a bench or a test, never the service); a
// counter only counts while it is open. The embedded engine is not counted (count() answers undefined).
// The bench's counter (`texts: false`) keeps no text: a text without `;` is one statement, found without a scan,
// and only a multi-statement text is scanned; the tests' counters also keep each text, folded, for byText. Keeping
// every text for later instead held a slice's batched transaction texts alive through the young generation's
// collections, work charged to the service (ADR 0068).
import type { DataSource } from 'typeorm';

interface Wrappable {
  query(...args: unknown[]): unknown;
  execute(...args: unknown[]): unknown;
}

export interface StatementCounter {
  /** Round trips since the last reset; undefined on the embedded engine. */
  count(): number | undefined;
  /** Statements those round trips carried (a multi-statement query counts each); undefined on embedded. */
  statements(): number | undefined;
  /** Statement texts (whitespace folded, first 90 characters) and how often each ran since the last reset. */
  byText(): Map<string, number>;
  reset(): void;
  close(): void;
}

interface Tally {
  n: number;
  statements: number;
  /** Folded texts and how often each ran; undefined for a counter that keeps no texts. */
  texts: Map<string, number> | undefined;
}
const open = new Set<Tally>();
const wrapped = new WeakSet<object>();

function wrap(proto: Wrappable): void {
  if (wrapped.has(proto)) return;
  wrapped.add(proto);
  for (const method of ['query', 'execute'] as const) {
    const orig = proto[method];
    proto[method] = function (this: unknown, ...args: unknown[]) {
      if (open.size > 0) {
        const first = args[0] as string | { sql?: string };
        const full = typeof first === 'string' ? first : (first?.sql ?? '?');
        const statements = statementsIn(full);
        for (const c of open) {
          c.n++;
          c.statements += statements;
          if (c.texts) {
            const text = folded(full);
            c.texts.set(text, (c.texts.get(text) ?? 0) + 1);
          }
        }
      }
      return orig.apply(this, args);
    };
  }
}

/**
 * The text's first 90 characters with whitespace runs folded to one space, as `full.replace(/\s+/g, ' ')
 * .slice(0, 90)` but folding only a head of it: the folded head is a prefix of the folded whole (a run cut at
 * the head's end folds to the same one space), so once it has 90 characters it answers exactly.
 */
function folded(full: string): string {
  if (full.length > 256) {
    const head = full.slice(0, 256).replace(/\s+/g, ' ');
    if (head.length >= 90) return head.slice(0, 90);
  }
  return full.replace(/\s+/g, ' ').slice(0, 90);
}

/**
 * One match per quoted string or identifier (values formatted into a batched transaction's text are quoted, with
 * backslash escapes; one left open runs to the end) and per run of `;` and whitespace that a statement follows.
 */
const SEPARATED =
  /'(?:[^'\\]|\\[\s\S]|'')*(?:'|\\?$)|"(?:[^"\\]|\\[\s\S]|"")*(?:"|\\?$)|`(?:[^`]|``)*(?:`|$)|;[\s;]*(?=[^\s;])/g;

/**
 * The statements of one query text: its `;` separators outside quoted strings and identifiers, each followed by
 * a statement (a trailing `;` starts none), plus one. The regular expression scans a batched transaction's text
 * of a few KB in about a twentieth of the time of a loop over its characters (ADR 0070): the bench counts inside
 * the measured process, so what it spends is charged to the service.
 */
export function statementsIn(text: string): number {
  if (!text.includes(';')) return 1; // most texts: one statement, no scan
  let n = 1;
  SEPARATED.lastIndex = 0;
  for (let m = SEPARATED.exec(text); m !== null; m = SEPARATED.exec(text)) if (m[0].charCodeAt(0) === 59) n++;
  return n;
}

/**
 * Starts counting the statements of `ds`'s driver (and of every other mysql2 connection in this process).
 * `texts: false` (the bench) keeps no texts: byText answers an empty map.
 */
export async function countStatements(
  ds: DataSource,
  opts: { texts?: boolean } = {},
): Promise<StatementCounter> {
  const state: Tally = { n: 0, statements: 0, texts: opts.texts === false ? undefined : new Map() };
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
    statements: () => (open.has(state) ? state.statements : undefined),
    byText: () => new Map(state.texts),
    reset: () => {
      state.n = 0;
      state.statements = 0;
      state.texts?.clear();
    },
    close: () => {
      open.delete(state);
    },
  };
}
