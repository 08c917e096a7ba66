import 'reflect-metadata';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../app/database';
import { createTestDatabase, type TestDatabase } from '../app/test-database';
import { pendingSchemaDiff } from './schema-check';

describe('migrations from empty', () => {
  let db: TestDatabase | undefined;
  afterAll(async () => db?.drop());

  it('produce exactly the schema the entities describe, on MySQL/MariaDB', async () => {
    db = await createTestDatabase('schema');
    const ds = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' });
    await ds.initialize();
    try {
      const tablesBefore = await ds.query('SHOW TABLES');
      expect(tablesBefore).toHaveLength(0);
      const ran = await ds.runMigrations();
      expect(ran.length).toBeGreaterThan(0);
      expect(await pendingSchemaDiff(ds)).toEqual([]);
      // and the entity list covers every table the migrations made (besides TypeORM's own)
      const tables = ((await ds.query('SHOW TABLES')) as Record<string, string>[])
        .map((r) => Object.values(r)[0])
        .filter((t) => t !== 'migrations')
        .sort();
      expect(tables).toEqual(ds.entityMetadatas.map((m) => m.tableName).sort());
    } finally {
      await ds.destroy();
    }
  });
});
