// Plain SQL for the request hot paths (API-key check, session create, session read). TypeORM's repository
// and query-builder calls cost about half of a create's CPU (query building, property-name rewriting, result
// transformation) and one QueryRunner per statement; these helpers skip all of that and keep only what makes
// the rows portable: column names and value conversion come from the entity metadata and the driver, so the
// same code serves MySQL/MariaDB and the embedded SQLite. See docs/adr/0015-hot-path-performance.md.
import {
  type DataSource,
  type EntityManager,
  type EntityTarget,
  type ObjectLiteral,
  QueryFailedError,
  type QueryRunner,
} from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { deferIfBatched } from './batched-transaction';
import { isMysql } from './data-source';
import { queryTimeoutOf } from './pool-guard';
import { onConnectionNow, type SqliteStatement, sqliteConnection } from './sqlite-engine';
import { assertNotInsideTransaction } from './strict-connection';

type Row = Record<string, unknown>;

interface MysqlPool {
  execute(
    sql: string | { sql: string; timeout: number },
    values: unknown[],
    cb: (err: Error | null, rows: unknown) => void,
  ): void;
}

/** The mysql2 connection a MySQL query runner holds once connected (callback API). */
interface MysqlConnection {
  query(
    sql: string | { sql: string; timeout: number },
    values: unknown[],
    cb: (err: Error | null, rows: unknown) => void,
  ): void;
}

/** Prepared statements per embedded connection, by statement text (the hot texts are fixed: a few dozen). */
const sqliteStatements = new WeakMap<object, Map<string, SqliteStatement>>();
const SQLITE_STATEMENTS_MAX = 256;

/**
 * One statement straight on the embedded engine's libsql connection, prepared once and kept: what TypeORM's
 * query runner does for it (bind booleans as 0/1, undefined as NULL, rows as objects) without the runner, logger
 * and broadcaster around it, about half of a small read's CPU (ADR 0021). A write answers like mysql2 does,
 * `{ affectedRows }`, so the guarded INSERTs of the create read their outcome the same way on both engines.
 * It runs as the current unit of work of the connection (sqlite-engine.ts): inside the caller's transaction,
 * or after any other one has committed.
 */
function sqliteStatement(ds: DataSource, statement: string, params: unknown[]): Promise<unknown> {
  const run = () => {
    const db = sqliteConnection(ds);
    let cache = sqliteStatements.get(db);
    if (!cache) {
      cache = new Map();
      sqliteStatements.set(db, cache);
    }
    let st = cache.get(statement);
    if (!st) {
      st = db.prepare(statement);
      if (cache.size < SQLITE_STATEMENTS_MAX) cache.set(statement, st);
    }
    const values = params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : p));
    if (st.reader) return st.all(...values);
    const res = st.run(...values);
    return { affectedRows: res.changes, insertId: res.lastInsertRowid };
  };
  try {
    return Promise.resolve(onConnectionNow(ds, run));
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * Runs one statement. On MySQL inside the caller's transaction it goes on that transaction's connection,
 * otherwise straight to the driver's mysql2 pool (no QueryRunner); on SQLite straight to libsql
 * (sqliteStatement: there is one connection, the transaction's). A write answers `{ affectedRows }` on both.
 */
export function sql<T = Row[]>(
  ds: DataSource,
  statement: string,
  params: unknown[],
  m?: EntityManager,
): Promise<T> {
  if (m?.queryRunner?.isTransactionActive) {
    if (!isMysql(ds)) return sqliteStatement(ds, statement, params) as Promise<T>;
    return onTransaction<T>(ds, m.queryRunner, statement, params);
  }
  // strict test mode: a statement outside the caller's transaction, from inside one (ADR 0044)
  try {
    assertNotInsideTransaction(ds);
  } catch (e) {
    return Promise.reject(e);
  }
  if (!isMysql(ds)) return sqliteStatement(ds, statement, params) as Promise<T>;
  // execute: a server-side prepared statement, cached per connection, so the server parses each hot
  // statement once per connection instead of once per request
  const pool = (ds.driver as unknown as { pool: MysqlPool }).pool;
  const timeout = queryTimeoutOf(ds);
  const q = timeout === undefined ? statement : { sql: statement, timeout };
  return new Promise<T>((resolve, reject) =>
    pool.execute(q, params, (err, rows) => (err ? reject(err) : resolve(rows as T))),
  );
}

/**
 * A write whose answer decides nothing (a row the unit already knows, the timeline, the outbox). In a batched
 * transaction (batched-transaction.ts, MySQL) it is sent with the unit's next statement or its COMMIT, and an
 * error it raises is raised there, rolling the unit back whole as before; anywhere else it runs at once.
 */
export async function later(
  ds: DataSource,
  statement: string,
  params: unknown[],
  m?: EntityManager,
): Promise<void> {
  if (m && deferIfBatched(m, statement, params)) return;
  await sql(ds, statement, params, m);
}

/**
 * A guarded write whose affected rows `check` decides on (it throws to refuse), kept like `later`: in a batched
 * transaction `check` runs when the round trip carrying it answers, before that round trip's own answer is
 * looked at (ADR 0058 amendment); anywhere else the write runs and is checked at once.
 */
export async function laterChecked(
  ds: DataSource,
  statement: string,
  params: unknown[],
  m: EntityManager,
  check: (result: { affectedRows: number }) => void,
): Promise<void> {
  if (deferIfBatched(m, statement, params, { check })) return;
  check(await sql<{ affectedRows: number }>(ds, statement, params, m));
}

/**
 * A guarded write of one row (`statement` ends with its `WHERE id = ?`, `guard` is the write's own condition,
 * its parameters last in `params`) that refuses by changing no row. In a batched transaction it is kept like
 * `later`, its check carried by the INSERT kept next or else a `guardCheck` of its own (ADR 0073): a false guard
 * fails the round trip carrying it with LostGuard, and nothing after it in that round trip runs, so the writes
 * after it and the COMMIT can travel with it (ADR 0058 amendment 3). Answers the rows it changed: `rows` when
 * kept (a false guard never returns), else the write's own answer.
 */
export async function laterGuarded(
  ds: DataSource,
  statement: string,
  table: string,
  guard: string,
  params: unknown[],
  m: EntityManager,
  /** The rows the write changes when its guard holds (a two-table UPDATE: 2). */
  rows = 1,
): Promise<number> {
  const check = (r: { affectedRows: number }) => {
    // guardCheck already refused any other count on the server: this is the invariant, checked again here
    if (r.affectedRows !== rows) throw new Error(`guarded write of ${table} changed ${r.affectedRows} rows`);
  };
  if (deferIfBatched(m, `${statement} AND ${guard}`, params, { guarded: rows, check })) return rows;
  return (await sql<{ affectedRows: number }>(ds, `${statement} AND ${guard}`, params, m)).affectedRows;
}

/**
 * insertRow kept for the COMMIT's round trip of a batched transaction, after the unit's last statement that
 * needs an answer (nothing in the unit reads the row); anywhere else it runs at once.
 */
export async function insertRowAtCommit<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  entity: T,
  m: EntityManager,
): Promise<void> {
  const params = rowValues(ds, target, entity);
  if (deferIfBatched(m, shapeOf(ds, target).insert, params, { atCommit: true })) return;
  await sql(ds, shapeOf(ds, target).insert, params, m);
}

/**
 * A statement on the connection of an open MySQL transaction, through mysql2's callback API. TypeORM's
 * `query` sends the same text protocol statement on the same connection, and around it builds a promise
 * wrapper per statement (which, under tsx, resolves a `require` on every call) and captures a stack trace
 * for it, and runs its logger and broadcaster: about a third of the CPU of a transaction's statement
 * (ADR 0060). The statement timeout and the error (QueryFailedError around the driver's error) are TypeORM's.
 */
function onTransaction<T>(ds: DataSource, qr: QueryRunner, statement: string, params: unknown[]): Promise<T> {
  const conn = (qr as unknown as { databaseConnection?: MysqlConnection }).databaseConnection;
  if (!conn || qr.isReleased) return qr.query(statement, params) as Promise<T>;
  const timeout = queryTimeoutOf(ds);
  const q = timeout === undefined ? statement : { sql: statement, timeout };
  return new Promise<T>((resolve, reject) =>
    conn.query(q, params, (err, rows) =>
      err ? reject(new QueryFailedError(statement, params, err)) : resolve(rows as T),
    ),
  );
}

interface EntityShape {
  table: string;
  columns: ColumnMetadata[];
  insert: string;
  /** insertRowGuarded's `INSERT INTO … (columns) SELECT ?, …`, built on first use. */
  insertFrom?: string;
  /** columnList answers by alias, prefix and subset (pure functions of the metadata). */
  columnLists: Map<string, string>;
  /** The columns of a subset of properties, by the identity of the caller's (constant) property list. */
  subsets: Map<readonly string[], ColumnMetadata[]>;
  /** hydrate's row keys (prefix + column name) per subset and prefix, built once instead of on every row. */
  rowKeys: Map<readonly string[] | undefined, Map<string, string[]>>;
}
const shapes = new WeakMap<DataSource, Map<EntityTarget<ObjectLiteral>, EntityShape>>();

function shapeOf(ds: DataSource, target: EntityTarget<ObjectLiteral>): EntityShape {
  let perDs = shapes.get(ds);
  if (!perDs) {
    perDs = new Map();
    shapes.set(ds, perDs);
  }
  let s = perDs.get(target);
  if (!s) {
    const meta = ds.getMetadata(target);
    const columns = meta.columns;
    s = {
      table: meta.tableName,
      columns,
      insert: `INSERT INTO ${ds.driver.escape(meta.tableName)} (${columns.map((c) => ds.driver.escape(c.databaseName)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      columnLists: new Map(),
      subsets: new Map(),
      rowKeys: new Map(),
    };
    perDs.set(target, s);
  }
  return s;
}

/**
 * The columns of `only` (property names), in entity order; all columns without it. A read that needs a few
 * columns selects only those: with prepared statements, MariaDB sends, and mysql2 parses, every column's
 * definition on every execute, so the column count is paid on each request (ADR 0023, round 2). `only` is
 * expected to be a module constant: the answer is memoized by its identity.
 */
function columnsOf(
  ds: DataSource,
  target: EntityTarget<ObjectLiteral>,
  only: readonly string[] | undefined,
): ColumnMetadata[] {
  const shape = shapeOf(ds, target);
  if (!only) return shape.columns;
  let cols = shape.subsets.get(only);
  if (!cols) {
    for (const p of only)
      if (!shape.columns.some((c) => c.propertyName === p))
        throw new Error(`no column ${p} in ${shape.table}`);
    cols = shape.columns.filter((c) => only.includes(c.propertyName));
    shape.subsets.set(only, cols);
  }
  return cols;
}

/**
 * An entity from a raw row (column names as in the table; extra columns of a join are ignored). With `only`,
 * just those properties are set (the row was read with the same `only` in columnList).
 */
export function hydrate<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T> & (new () => T),
  row: Row,
  prefix?: string,
): T;
export function hydrate<T extends ObjectLiteral, K extends keyof T & string>(
  ds: DataSource,
  target: EntityTarget<T> & (new () => T),
  row: Row,
  prefix: string,
  only: readonly K[],
): Pick<T, K>;
export function hydrate<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T> & (new () => T),
  row: Row,
  prefix = '',
  only?: readonly string[],
): T {
  // A subset is a plain object (its type is a Pick, not the class): constructing the entity would first define
  // every one of its fields, for a handful of them to be set.
  const e = (only ? {} : new target()) as Row;
  const driver = ds.driver;
  const cols = columnsOf(ds, target, only);
  const keys = rowKeysOf(shapeOf(ds, target), cols, only, prefix);
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i] as ColumnMetadata;
    e[c.propertyName] = driver.prepareHydratedValue(row[keys[i] as string], c);
  }
  return e as T;
}

/** The row keys of `cols` under `prefix`, memoized: a concatenated key is a new string to hash on every lookup. */
function rowKeysOf(
  shape: EntityShape,
  cols: ColumnMetadata[],
  only: readonly string[] | undefined,
  prefix: string,
): string[] {
  let byPrefix = shape.rowKeys.get(only);
  if (!byPrefix) {
    byPrefix = new Map();
    shape.rowKeys.set(only, byPrefix);
  }
  let keys = byPrefix.get(prefix);
  if (!keys) {
    keys = cols.map((c) => prefix + c.databaseName);
    byPrefix.set(prefix, keys);
  }
  return keys;
}

/** INSERT of every column of an entity, values converted by the driver as TypeORM's own insert does. */
export async function insertRow<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  entity: T,
  m?: EntityManager,
): Promise<void> {
  await sql(ds, shapeOf(ds, target).insert, rowValues(ds, target, entity), m);
}

/** insertRow as a `later` write: sent with the next statement of a batched transaction. */
export async function insertRowLater<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  entity: T,
  m: EntityManager,
): Promise<void> {
  await later(ds, shapeOf(ds, target).insert, rowValues(ds, target, entity), m);
}

/**
 * insertRow written only while a row of another table still holds (`over`: its table, its id, and `guard`, a
 * condition on it with its values in `params`): one INSERT … SELECT from that row, a guarded write
 * (laterGuarded) that refuses by inserting nothing. Kept in a batched transaction (a false guard fails the round
 * trip carrying it with LostGuard), run and answered at once anywhere else: the rows it inserted (0 or 1).
 */
export async function insertRowGuarded<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  entity: T,
  m: EntityManager,
  over: { table: 'session'; id: string; guard: string; params: unknown[] },
): Promise<number> {
  const shape = shapeOf(ds, target);
  shape.insertFrom ??= `INSERT INTO ${ds.driver.escape(shape.table)} (${shape.columns.map((c) => ds.driver.escape(c.databaseName)).join(', ')}) SELECT ${shape.columns.map(() => '?').join(', ')}`;
  // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
  const text = `${shape.insertFrom} FROM ${over.table} WHERE id = ?`;
  return laterGuarded(
    ds,
    text,
    shape.table,
    over.guard,
    [...rowValues(ds, target, entity), over.id, ...over.params],
    m,
  );
}

/** Every column's value of an entity, in columnList order, converted by the driver. */
export function rowValues<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  entity: T,
): unknown[] {
  return shapeOf(ds, target).columns.map((c) =>
    ds.driver.preparePersistentValue((entity as Row)[c.propertyName], c),
  );
}

/**
 * The columns of an entity's table for a SELECT list, optionally qualified and renamed
 * (`s.id, s.status, …` or `rv.id AS rv_id, …` for a join read back with hydrate(…, prefix)), optionally only
 * those of the properties `only` (a module constant; read back with hydrate(…, prefix, only)).
 */
export function columnList<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  alias?: string,
  prefix?: string,
  only?: readonly (keyof T & string)[],
): string {
  const shape = shapeOf(ds, target);
  const memoKey = `${alias ?? ''}|${prefix ?? ''}|${only ? only.join(',') : '*'}`;
  let list = shape.columnLists.get(memoKey);
  if (list === undefined) {
    list = columnsOf(ds, target, only)
      .map((c) => {
        const col = alias ? `${alias}.${c.databaseName}` : c.databaseName;
        return prefix ? `${col} AS ${prefix}${c.databaseName}` : col;
      })
      .join(', ');
    shape.columnLists.set(memoKey, list);
  }
  return list;
}

/** A value as a statement parameter for a column of an entity, converted by the driver (e.g. dates on SQLite). */
export function paramFor<T extends ObjectLiteral>(
  ds: DataSource,
  target: EntityTarget<T>,
  property: keyof T & string,
  value: unknown,
): unknown {
  const col = shapeOf(ds, target).columns.find((c) => c.propertyName === property);
  if (!col) throw new Error(`no column ${property}`);
  return ds.driver.preparePersistentValue(value, col);
}
