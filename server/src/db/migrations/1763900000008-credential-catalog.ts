// The credential route catalog (wallet, credential_issuer, credential_route) and X.509 trust anchors
// (trust_anchor). Portable Table API, same column shapes as the initial migration.
import type { TableColumn } from 'typeorm';
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

type TableColumnOptions = ConstructorParameters<typeof TableColumn>[0] & {};

const v = (name: string, length: number, nullable = false): TableColumnOptions => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: nullable,
});
const id = (): TableColumnOptions => ({ ...v('id', 40), isPrimary: true });
const txt = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'text',
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
  new Table({
    name: 'wallet',
    columns: [
      id(),
      v('name', 200),
      v('provider', 200),
      txt('description'),
      txt('platforms'),
      ts('created_at'),
      ts('updated_at'),
    ],
  }),
  new Table({
    name: 'credential_issuer',
    columns: [
      id(),
      v('identifier', 500),
      v('name', 200),
      v('country', 16, true),
      txt('description'),
      bool('sandbox_only'),
      ts('created_at'),
      ts('updated_at'),
    ],
  }),
  new Table({
    name: 'credential_route',
    columns: [
      id(),
      v('wallet_id', 40),
      v('issuer_id', 40),
      txt('formats'),
      bool('identify'),
      bool('age_verify'),
      bool('sign'),
      bool('attestation'),
      bool('sandbox_available'),
      bool('production_available'),
      bool('provider_accepted'),
      bool('issuer_accepted'),
      bool('service_accepted'),
      txt('notes'),
      ts('created_at'),
      ts('updated_at'),
    ],
    indices: [idx('IDX_credential_route_wallet_issuer', ['wallet_id', 'issuer_id'], true)],
  }),
  new Table({
    name: 'trust_anchor',
    columns: [
      id(),
      v('issuer', 500),
      v('environment', 16),
      v('name', 200),
      txt('certificate'),
      v('fingerprint', 64),
      ts('not_after'),
      ts('created_at'),
      ts('retired_at', true),
    ],
    indices: [idx('IDX_trust_anchor_iss_env', ['issuer', 'environment'])],
  }),
];

export class CredentialCatalog1763900000008 implements MigrationInterface {
  name = 'CredentialCatalog1763900000008';

  async up(q: QueryRunner): Promise<void> {
    for (const t of TABLES) await q.createTable(t, false, false, true);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [...TABLES].reverse()) await q.dropTable(t.name, true);
  }
}
