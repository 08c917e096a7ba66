// Trust boundaries (issue 7): a workflow belongs to one environment (ADR 0007); sessions at a gate get a
// decision deadline and a once-only reminder (ADR 0008); idempotency reservations are purged by expiry; the
// browser-binding cookie is MACed with a key every node shares (service_secret). Portable Table API.
import type { TableColumn } from 'typeorm';
import { TableColumn as Column, type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

type TableColumnOptions = ConstructorParameters<typeof TableColumn>[0] & {};

const ts = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});

const SESSION_COLUMNS = [ts('decision_due_at', true), ts('decision_reminded_at', true)];

export class Boundaries1764000000200 implements MigrationInterface {
  name = 'Boundaries1764000000200';

  async up(q: QueryRunner): Promise<void> {
    // Existing workflows: production if a production session ever ran them, else sandbox (the safe side).
    await q.addColumn(
      'workflow',
      new Column({
        name: 'environment',
        type: 'varchar',
        length: '16',
        isNullable: false,
        default: "'sandbox'",
      }),
    );
    await q.query(
      "UPDATE workflow SET environment = 'production' WHERE id IN " +
        "(SELECT DISTINCT workflow_id FROM session WHERE environment = 'production')",
    );
    await q.addColumns(
      'session',
      SESSION_COLUMNS.map((c) => new Column(c)),
    );
    await q.createIndex(
      'session',
      new TableIndex({ name: 'IDX_session_status_decision_due', columnNames: ['status', 'decision_due_at'] }),
    );
    await q.createIndex(
      'idempotency_key',
      new TableIndex({ name: 'IDX_idempotency_key_expires', columnNames: ['expires_at'] }),
    );
    await q.createTable(
      new Table({
        name: 'service_secret',
        columns: [
          { name: 'name', type: 'varchar', length: '40', isPrimary: true },
          { name: 'value', type: 'varchar', length: '128', isNullable: false },
          ts('created_at'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('service_secret');
    await q.dropIndex('idempotency_key', 'IDX_idempotency_key_expires');
    await q.dropIndex('session', 'IDX_session_status_decision_due');
    for (const c of [...SESSION_COLUMNS].reverse()) await q.dropColumn('session', c.name);
    await q.dropColumn('workflow', 'environment');
  }
}
