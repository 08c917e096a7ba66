// Plain SQL for the request hot paths (API-key check, session create, session read). TypeORM's repository
// and query-builder calls cost about half of a create's CPU (query building, property-name rewriting, result
// transformation) and one QueryRunner per statement; these helpers skip all of that and keep only what makes
// the rows portable: column names and value conversion come from the entity metadata and the driver, so the
// same code serves MySQL/MariaDB and the embedded SQLite. See docs/adr/0015-hot-path-performance.md.
import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { isMysql } from './data-source';

type Row = Record<string, unknown>;

interface MysqlPool {
  execute(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
}

interface SqljsStatement {
  bind(values: unknown[]): boolean;
  step(): boolean;
  getAsObject(): Row;
  free(): boolean;
}

/**
 * A SELECT on the embedded database straight on sql.js: what TypeORM's SqljsQueryRunner.query does for it
 * (prepare, bind with undefined as null, step, rows as objects, free) without the query runner, logger and
 * event broadcaster around it, about half of a small read's CPU (ADR 0021). Only reads: writes go through
 * TypeORM, which marks the database dirty and saves the file after them.
 */
function sqljsSelect(ds: DataSource, statement: string, params: unknown[]): Row[] {
  const db = (ds.driver as unknown as { databaseConnection: { prepare(sql: string): SqljsStatement } })
    .databaseConnection;
  const st = db.prepare(statement);
  try {
    st.bind(params.map((p) => (p === undefined ? null : p)));
    const rows: Row[] = [];
    while (st.step()) rows.push(st.getAsObject());
    return rows;
  } finally {
    st.free();
  }
}

/**
 * Runs one statement. Inside the caller's transaction it goes on that transaction's connection; otherwise on
 * MySQL straight to the driver's mysql2 pool (no QueryRunner), on SQLite straight to sql.js for a SELECT
 * (sqljsSelect) and through ds.query for anything else.
 */
export function sql<T = Row[]>(
  ds: DataSource,
  statement: string,
  params: unknown[],
  m?: EntityManager,
): Promise<T> {
  if (m?.queryRunner?.isTransactionActive) return m.query(statement, params) as Promise<T>;
  if (isMysql(ds)) {
    // execute: a server-side prepared statement, cached per connection, so the server parses each hot
    // statement once per connection instead of once per request
    const pool = (ds.driver as unknown as { pool: MysqlPool }).pool;
    return new Promise<T>((resolve, reject) =>
      pool.execute(statement, params, (err, rows) => (err ? reject(err) : resolve(rows as T))),
    );
  }
  if (ds.options.type === 'sqljs' && /^\s*SELECT\s/i.test(statement)) {
    try {
      return Promise.resolve(sqljsSelect(ds, statement, params) as T);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return ds.query(statement, params) as Promise<T>;
}

interface EntityShape {
  table: string;
  columns: ColumnMetadata[];
  insert: string;
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

/**
 * `INSERT INTO t (every column) SELECT ?, …, ?` (the caller appends FROM/WHERE): an insert that happens only
 * when its condition holds, as committed at that moment. Values in rowValues order.
 */
export function insertSelect(ds: DataSource, target: EntityTarget<ObjectLiteral>): string {
  const s = shapeOf(ds, target);
  return `INSERT INTO ${ds.driver.escape(s.table)} (${s.columns.map((c) => ds.driver.escape(c.databaseName)).join(', ')}) SELECT ${s.columns.map(() => '?').join(', ')}`;
}

interface BatchConnection {
  query(sql: string, values: unknown[], cb: (err: Error | null, rows: unknown) => void): void;
  release(): void;
  destroy(): void;
}
interface BatchPool {
  getConnection(cb: (err: Error | null, conn: BatchConnection) => void): void;
  end(cb: (err: Error | null) => void): void;
}
const batchPools = new WeakMap<DataSource, BatchPool>();

/** A result header of one statement of a batch. */
export interface BatchResult {
  affectedRows?: number;
}

/**
 * MySQL/MariaDB only: sends several statements in ONE round trip (`START TRANSACTION; …; COMMIT`), so a
 * transaction of a few writes costs one network exchange instead of one per statement. Runs on a small pool
 * of its own, the only connections opened with multipleStatements: the main pool stays single-statement, and
 * this one only ever receives the fixed statement texts of its callers, values escaped by the driver.
 * When any statement fails the server runs none after it; the open transaction is rolled back here before the
 * connection goes back to the pool (or the connection is dropped, which rolls it back too).
 */
export async function batch(ds: DataSource, statements: string, params: unknown[]): Promise<BatchResult[]> {
  const pool = batchPool(ds);
  const conn = await new Promise<BatchConnection>((resolve, reject) =>
    pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
  );
  try {
    const rows = await new Promise<unknown>((resolve, reject) =>
      conn.query(statements, params, (err, r) => (err ? reject(err) : resolve(r))),
    );
    conn.release();
    return (Array.isArray(rows) ? rows : [rows]) as BatchResult[];
  } catch (e) {
    await new Promise<void>((resolve) =>
      conn.query('ROLLBACK', [], (err) => {
        if (err) conn.destroy();
        else conn.release();
        resolve();
      }),
    );
    throw e;
  }
}

function batchPool(ds: DataSource): BatchPool {
  let pool = batchPools.get(ds);
  if (pool) return pool;
  // the driver's own connection options (URL, TLS, charset, timezone, typecasts), so both pools read and
  // write values identically; only multipleStatements and the size differ
  const driver = ds.driver as unknown as {
    mysql: { createPool(o: Record<string, unknown>): BatchPool };
    createConnectionOptions(o: unknown, c: unknown): Record<string, unknown>;
  };
  pool = driver.mysql.createPool({
    ...driver.createConnectionOptions(ds.options, ds.options),
    multipleStatements: true,
    connectionLimit: BATCH_POOL_SIZE,
  });
  batchPools.set(ds, pool);
  // closed with the DataSource, so nothing outlives the service (or a test's database)
  const destroy = ds.destroy.bind(ds);
  ds.destroy = async () => {
    batchPools.delete(ds);
    await new Promise<void>((resolve) => pool?.end(() => resolve()));
    return destroy();
  };
  return pool;
}

/** Connections of the batch pool: a create holds one for a single round trip, so few go a long way. */
const BATCH_POOL_SIZE = 10;
