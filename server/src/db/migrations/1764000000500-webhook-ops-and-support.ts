// Webhook operations and sessions for support (issue 9, ADR 0013): the rotation overlap of an endpoint's
// previous secret, the delivery log columns of webhook_attempt, the structured failure reason of a session
// and the session_event timeline. New columns are nullable (existing rows predate them). Portable Table API,
// same column shapes as the initial migration.
import type { TableColumn } from 'typeorm';
import { TableColumn as Column, type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

type TableColumnOptions = ConstructorParameters<typeof TableColumn>[0] & {};

const v = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const txt = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'text',
  isNullable: nullable,
});
const int = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'int',
  isNullable: nullable,
});
const ts = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});

const ENDPOINT_COLUMNS = [v('previous_secret', 128, true), ts('previous_secret_expires_at', true)];
const ATTEMPT_COLUMNS = [v('environment', 16, true), v('url', 2048, true), txt('response_excerpt', true)];
const SESSION_COLUMNS = [txt('failure_reason', true)];

export class WebhookOpsAndSupport1764000000500 implements MigrationInterface {
  name = 'WebhookOpsAndSupport1764000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns(
      'webhook_endpoint',
      ENDPOINT_COLUMNS.map((c) => new Column(c)),
    );
    await q.addColumns(
      'webhook_attempt',
      ATTEMPT_COLUMNS.map((c) => new Column(c)),
    );
    await q.createIndex(
      'webhook_attempt',
      new TableIndex({
        name: 'IDX_webhook_attempt_log',
        columnNames: ['business_id', 'environment', 'attempted_at'],
      }),
    );
    await q.addColumns(
      'session',
      SESSION_COLUMNS.map((c) => new Column(c)),
    );
    await q.createTable(
      new Table({
        name: 'session_event',
        columns: [
          { ...v('id', 40), isPrimary: true },
          v('session_id', 40),
          v('business_id', 40),
          v('environment', 16),
          ts('at'),
          v('order_key', 20),
          v('kind', 40),
          int('stage', true),
          v('code', 64, true),
          txt('detail', true),
        ],
        indices: [new TableIndex({ name: 'IDX_session_event_session', columnNames: ['session_id', 'at'] })],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('session_event');
    for (const c of SESSION_COLUMNS) await q.dropColumn('session', c.name);
    await q.dropIndex('webhook_attempt', 'IDX_webhook_attempt_log');
    for (const c of [...ATTEMPT_COLUMNS].reverse()) await q.dropColumn('webhook_attempt', c.name);
    for (const c of [...ENDPOINT_COLUMNS].reverse()) await q.dropColumn('webhook_endpoint', c.name);
  }
}
