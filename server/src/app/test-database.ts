// Test helper: a fresh, uniquely named MySQL/MariaDB database per suite (TEST_MYSQL_URL, default local root).
// A migrated one is copied from the test run's template (TEST_TEMPLATE_DATABASE: every migration applied once by
// test/support/global-setup.ts), table by table with its rows, instead of running the migrations again (ADR 0066).
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import type { DataSource } from 'typeorm';
import { createDataSource } from './database';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export const testMysqlServerUrl = (): string => process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

/** The environment variable naming the test run's migrated template database, on TEST_MYSQL_URL's server. */
export const TEMPLATE_DATABASE_ENV = 'TEST_TEMPLATE_DATABASE';

/**
 * A new database. `migrated`: with every migration applied, copied from the run's template when there is one
 * (otherwise empty, and whoever opens it runs the migrations, as a service does at start).
 */
export async function createTestDatabase(
  label: string,
  opts: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  const server = testMysqlServerUrl().replace(/\/+$/, '');
  const name = `svc_t_${label.replace(/\W/g, '').slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const template = opts.migrated ? process.env[TEMPLATE_DATABASE_ENV] : undefined;
  const conn = await mysql.createConnection({ uri: server, multipleStatements: true });
  try {
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (template) await copyTables(conn, template, name);
  } finally {
    await conn.end();
  }
  return {
    url: `${server}/${name}`,
    name,
    drop: async () => {
      const c = await mysql.createConnection(server);
      try {
        await c.query(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await c.end();
      }
    },
  };
}

export interface MigratedTestDatabase extends TestDatabase {
  ds: DataSource;
  /** Disconnects and drops the database. */
  close(): Promise<void>;
}

/** Every table of `from` in `to`, with its definition (columns, indexes, checks) and its rows. */
async function copyTables(conn: mysql.Connection, from: string, to: string): Promise<void> {
  const [tables] = await conn.query<mysql.RowDataPacket[]>(
    "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'",
    [from],
  );
  const q = (db: string, t: string) => `\`${db}\`.\`${t}\``;
  await conn.query(
    tables
      .map(
        ({ t }) =>
          `CREATE TABLE ${q(to, t)} LIKE ${q(from, t)}; INSERT INTO ${q(to, t)} SELECT * FROM ${q(from, t)};`,
      )
      .join('\n'),
  );
}

/** The run's template: a database with every migration applied (test/support/global-setup.ts makes it once). */
export async function createTemplateDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase('template');
  await (await openMigrated(db.url)).destroy();
  return db;
}

/** A connected DataSource on `url` with every migration applied (none to run on a copy of the template). */
async function openMigrated(url: string): Promise<DataSource> {
  const ds = await createDataSource({ databaseUrl: url, dataDir: '/nonexistent' });
  await ds.initialize();
  await ds.runMigrations();
  return ds;
}

/** A fresh database with every migration applied and a connected DataSource: the start of most unit suites. */
export async function migratedTestDatabase(label: string): Promise<MigratedTestDatabase> {
  const db = await createTestDatabase(label, { migrated: true });
  const ds = await openMigrated(db.url);
  return {
    ...db,
    ds,
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}
