// Test helper: a fresh, uniquely named MySQL/MariaDB database per suite (TEST_MYSQL_URL, default local root).
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

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const server = testMysqlServerUrl().replace(/\/+$/, '');
  const name = `svc_t_${label.replace(/\W/g, '').slice(0, 20)}_${randomBytes(4).toString('hex')}`;
  const conn = await mysql.createConnection(server);
  try {
    await conn.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
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

/** A fresh database with every migration applied and a connected DataSource: the start of most unit suites. */
export async function migratedTestDatabase(label: string): Promise<MigratedTestDatabase> {
  const db = await createTestDatabase(label);
  const ds = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' });
  await ds.initialize();
  await ds.runMigrations();
  return {
    ...db,
    ds,
    async close() {
      await ds.destroy();
      await db.drop();
    },
  };
}
