// Accounts (issue 9): dashboard users, their cookie sessions, sign-in links, passkeys and WebAuthn
// challenges, invitations, the account/operator audit trail, and API key scopes/attribution/last use.
// Every secret (session token, sign-in link, invitation link) is stored only as its SHA-256 hex digest.
// Portable Table API, same column shapes as the initial migration; new api_key columns are nullable
// (NULL scopes = a full key, as every key issued before this migration).
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
const int = (name: string): TableColumnOptions => ({ name, type: 'int', isNullable: false });
const ts = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});
const id = (): TableColumnOptions => ({ ...v('id', 40), isPrimary: true });
const idx = (name: string, columnNames: string[], isUnique = false) =>
  new TableIndex({ name, columnNames, isUnique });

const API_KEY_COLUMNS = [v('scopes', 200, true), v('created_by', 80, true), ts('last_used_at', true)];

export class Accounts1764000000400 implements MigrationInterface {
  name = 'Accounts1764000000400';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'dashboard_user',
        columns: [id(), v('business_id', 40), v('email', 320), v('role', 16), ts('created_at')],
        indices: [
          idx('IDX_dashboard_user_email', ['email'], true),
          idx('IDX_dashboard_user_business', ['business_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'dashboard_session',
        columns: [
          id(),
          v('user_id', 40),
          v('business_id', 40),
          v('token_hash', 64),
          v('method', 16),
          v('user_agent', 200, true),
          ts('created_at'),
          ts('last_seen_at'),
          ts('expires_at'),
          ts('revoked_at', true),
        ],
        indices: [
          idx('IDX_dashboard_session_token', ['token_hash'], true),
          idx('IDX_dashboard_session_user', ['user_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'sign_in_link',
        columns: [
          id(),
          v('user_id', 40),
          v('token_hash', 64),
          ts('created_at'),
          ts('expires_at'),
          ts('used_at', true),
        ],
        indices: [idx('IDX_sign_in_link_token', ['token_hash'], true)],
      }),
    );
    await q.createTable(
      new Table({
        name: 'passkey',
        columns: [
          id(),
          v('user_id', 40),
          v('credential_id', 255),
          txt('public_key'),
          int('counter'),
          v('transports', 200, true),
          ts('created_at'),
          ts('last_used_at', true),
        ],
        indices: [
          idx('IDX_passkey_credential', ['credential_id'], true),
          idx('IDX_passkey_user', ['user_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'webauthn_challenge',
        columns: [
          id(),
          v('purpose', 16),
          v('user_id', 40, true),
          v('challenge', 128),
          ts('created_at'),
          ts('expires_at'),
          ts('used_at', true),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'invitation',
        columns: [
          id(),
          v('business_id', 40),
          v('email', 320),
          v('role', 16),
          v('token_hash', 64),
          v('created_by', 40),
          ts('created_at'),
          ts('expires_at'),
          ts('sent_at'),
          ts('accepted_at', true),
          v('accepted_user_id', 40, true),
          ts('revoked_at', true),
        ],
        indices: [
          idx('IDX_invitation_token', ['token_hash'], true),
          idx('IDX_invitation_business', ['business_id']),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'account_audit',
        columns: [
          id(),
          v('business_id', 40, true),
          v('actor_kind', 16),
          v('actor_id', 80),
          v('action', 64),
          v('target', 120, true),
          txt('detail', true),
          ts('created_at'),
        ],
        indices: [
          idx('IDX_account_audit_business', ['business_id']),
          idx('IDX_account_audit_actor', ['actor_kind']),
        ],
      }),
    );
    await q.addColumns(
      'api_key',
      API_KEY_COLUMNS.map((c) => new Column(c)),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of [...API_KEY_COLUMNS].reverse()) await q.dropColumn('api_key', c.name);
    for (const t of [
      'account_audit',
      'invitation',
      'webauthn_challenge',
      'passkey',
      'sign_in_link',
      'dashboard_session',
      'dashboard_user',
    ])
      await q.dropTable(t);
  }
}
