// Initial schema. Written with TypeORM's portable Table API so the same migration runs on MySQL/MariaDB
// and SQLite. Never edit a released migration: add a new one.

import type { TableColumn } from 'typeorm';
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

type TableColumnOptions = ConstructorParameters<typeof TableColumn>[0] & {};

const v = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const id = (name = 'id', length = 40): TableColumnOptions => ({ ...v(name, length), isPrimary: true });
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
const bool = (name: string): TableColumnOptions => ({ name, type: 'boolean', isNullable: false });
const ts = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});
const idx = (name: string, columnNames: string[], isUnique = false) =>
  new TableIndex({ name, columnNames, isUnique });

const TABLES: Table[] = [
  new Table({ name: 'business', columns: [id(), v('name', 200), ts('created_at')] }),
  new Table({
    name: 'api_key',
    columns: [
      id(),
      v('business_id', 40),
      v('environment', 16),
      v('lookup', 32),
      v('secret_hash', 64),
      v('label', 200),
      ts('created_at'),
      ts('revoked_at', true),
    ],
    indices: [idx('IDX_api_key_lookup', ['lookup'], true), idx('IDX_api_key_business', ['business_id'])],
  }),
  new Table({
    name: 'webhook_endpoint',
    columns: [
      id(),
      v('business_id', 40),
      v('environment', 16),
      v('url', 2048),
      v('secret', 128),
      ts('created_at'),
      ts('updated_at'),
    ],
    indices: [idx('IDX_webhook_endpoint_business_env', ['business_id', 'environment'], true)],
  }),
  new Table({
    name: 'webhook_event',
    columns: [
      id(),
      v('business_id', 40),
      v('environment', 16),
      v('session_id', 40),
      int('sequence'),
      v('event', 64),
      int('counter'),
      v('delivery_id', 200),
      txt('body'),
      v('status', 16),
      int('attempts'),
      ts('next_attempt_at'),
      v('last_error', 500, true),
      ts('created_at'),
      ts('delivered_at', true),
    ],
    indices: [
      idx('IDX_webhook_event_delivery', ['delivery_id'], true),
      idx('IDX_webhook_event_session_seq', ['session_id', 'sequence'], true),
      idx('IDX_webhook_event_due', ['status', 'next_attempt_at']),
    ],
  }),
  new Table({
    name: 'webhook_attempt',
    columns: [
      id(),
      v('event_id', 40),
      v('business_id', 40),
      ts('attempted_at'),
      int('status_code', true),
      v('error', 500, true),
      int('duration_ms'),
    ],
    indices: [idx('IDX_webhook_attempt_event', ['event_id'])],
  }),
  new Table({
    name: 'workflow',
    columns: [
      id(),
      v('business_id', 40),
      v('name', 200),
      bool('api_only'),
      txt('draft_steps'),
      int('latest_revision'),
      ts('created_at'),
      ts('updated_at'),
    ],
    indices: [idx('IDX_workflow_business', ['business_id'])],
  }),
  new Table({
    name: 'workflow_revision',
    columns: [
      id(),
      v('workflow_id', 40),
      v('business_id', 40),
      int('revision'),
      v('name', 200),
      bool('api_only'),
      txt('steps'),
      ts('published_at'),
    ],
    indices: [idx('IDX_workflow_revision_wf_rev', ['workflow_id', 'revision'], true)],
  }),
  new Table({
    name: 'session',
    columns: [
      id(),
      v('business_id', 40),
      v('environment', 16),
      v('workflow_id', 40),
      int('workflow_revision'),
      v('status', 24),
      int('version'),
      int('current_stage'),
      txt('metadata', true),
      ts('expires_at'),
      ts('step_expires_at', true),
      v('binding_hash', 64, true),
      ts('created_at'),
      ts('updated_at'),
      ts('ended_at', true),
    ],
    indices: [
      idx('IDX_session_business_created', ['business_id', 'created_at']),
      idx('IDX_session_status_expires', ['status', 'expires_at']),
    ],
  }),
  new Table({
    name: 'idempotency_key',
    columns: [
      id('business_id'),
      { ...v('environment', 16), isPrimary: true },
      { ...v('idem_key', 255), isPrimary: true },
      v('session_id', 40, true),
      int('status_code', true),
      ts('created_at'),
      ts('expires_at'),
    ],
  }),
  new Table({
    name: 'step_result',
    columns: [
      id('session_id'),
      { ...int('stage'), isPrimary: true },
      v('business_id', 40),
      v('primitive', 24),
      txt('result'),
      v('audit_id', 80),
      ts('completed_at'),
    ],
  }),
  new Table({
    name: 'wallet_request',
    columns: [
      id(),
      v('session_id', 40),
      v('business_id', 40),
      int('stage'),
      v('nonce', 128),
      v('audience', 500),
      txt('request'),
      v('state', 16),
      ts('created_at'),
      ts('expires_at'),
    ],
    indices: [idx('IDX_wallet_request_session', ['session_id', 'stage'])],
  }),
  new Table({
    name: 'trusted_issuer',
    columns: [
      id(),
      v('issuer', 500),
      v('environment', 16),
      v('name', 200),
      txt('public_jwk'),
      ts('created_at'),
      ts('retired_at', true),
    ],
    indices: [idx('IDX_trusted_issuer_iss_env', ['issuer', 'environment'])],
  }),
  new Table({
    name: 'sandbox_key',
    columns: [
      id(),
      v('purpose', 16),
      v('owner', 100),
      txt('private_jwk'),
      txt('public_jwk'),
      ts('created_at'),
    ],
    indices: [idx('IDX_sandbox_key_owner', ['owner', 'purpose'], true)],
  }),
  new Table({
    name: 'sandbox_credential',
    columns: [
      id(),
      v('persona', 100),
      v('format', 16),
      v('vct', 200),
      txt('credential'),
      int('status_index', true),
      ts('created_at'),
    ],
    indices: [idx('IDX_sandbox_credential_persona', ['persona'])],
  }),
  new Table({
    name: 'status_list',
    columns: [
      id(),
      v('issuer', 500),
      int('bits'),
      int('size'),
      int('next_index'),
      txt('statuses'),
      ts('updated_at'),
    ],
  }),
  new Table({
    name: 'kms_key_version',
    columns: [
      id('kid', 300),
      v('purpose', 32),
      v('algorithm', 16),
      txt('public_jwk'),
      txt('private_key_enc'),
      v('state', 16),
      ts('created_at'),
    ],
    indices: [idx('IDX_kms_key_version_purpose', ['purpose', 'state'])],
  }),
  new Table({
    name: 'audit_record',
    columns: [
      id('id', 80),
      v('business_id', 40),
      v('session_id', 40),
      int('stage'),
      txt('record'),
      v('digest', 64),
      v('kid', 300),
      v('signature', 200),
      ts('created_at'),
    ],
    indices: [idx('IDX_audit_record_session', ['session_id', 'stage'], true)],
  }),
];

export class Initial1763800000000 implements MigrationInterface {
  name = 'Initial1763800000000';

  async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await q.createTable(t, false, false, true);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [...TABLES].reverse()) await q.dropTable(t.name, true);
  }
}
