// The upgrade path of the boundaries migration on MariaDB: workflows that existed before it get an
// environment, production only when a production session ever ran them (ADR 0007).
import 'reflect-metadata';
import { afterAll, describe, expect, it } from 'vitest';
import { createDataSource } from '../../app/database';
import { createTestDatabase, type TestDatabase } from '../../app/test-database';
import { Boundaries1764000000200 } from './1764000000200-boundaries';
import { MIGRATIONS } from './index';

describe('migration 1764000000200-boundaries on existing data', () => {
  let db: TestDatabase | undefined;
  afterAll(async () => db?.drop());

  it('gives existing workflows the environment their sessions ran in (sandbox when none)', async () => {
    db = await createTestDatabase('mig_bound');
    const ds = await createDataSource({ databaseUrl: db.url, dataDir: '/nonexistent' });
    const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(Boundaries1764000000200));
    ds.setOptions({ migrations: before });
    await ds.initialize();
    try {
      await ds.runMigrations();
      const wf = (id: string) =>
        ds.query(
          'INSERT INTO workflow (id, business_id, name, api_only, draft_steps, latest_revision, created_at, updated_at) VALUES (?, ?, ?, 1, ?, 1, NOW(3), NOW(3))',
          [id, 'biz_1', id, '[]'],
        );
      const session = (id: string, workflowId: string, environment: string) =>
        ds.query(
          'INSERT INTO session (id, business_id, environment, workflow_id, workflow_revision, status, version, current_stage, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, 0, 0, NOW(3), NOW(3), NOW(3))',
          [id, 'biz_1', environment, workflowId, 'created'],
        );
      await wf('wf_prod');
      await wf('wf_sand');
      await wf('wf_unused');
      await session('sess_p', 'wf_prod', 'production');
      await session('sess_s', 'wf_sand', 'sandbox');

      const q = ds.createQueryRunner();
      try {
        await new Boundaries1764000000200().up(q);
      } finally {
        await q.release();
      }
      const rows = (await ds.query('SELECT id, environment FROM workflow ORDER BY id')) as {
        id: string;
        environment: string;
      }[];
      expect(rows).toEqual([
        { id: 'wf_prod', environment: 'production' },
        { id: 'wf_sand', environment: 'sandbox' },
        { id: 'wf_unused', environment: 'sandbox' },
      ]);
      const sessions = (await ds.query(
        'SELECT decision_due_at, decision_reminded_at FROM session',
      )) as unknown[];
      expect(sessions).toEqual([
        { decision_due_at: null, decision_reminded_at: null },
        { decision_due_at: null, decision_reminded_at: null },
      ]);
    } finally {
      await ds.destroy();
    }
  });
});
