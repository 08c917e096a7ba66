// Signed and encrypted wallet transports: the verifier's request-signing identity (verifier_identity) and, per
// wallet request, its response mode, its signed request object (JAR) and its sealed ephemeral
// response-encryption key. New wallet_request columns are nullable: a NULL response_mode is the unsigned
// DC API request of the walking skeleton. Portable Table API, same column shapes as the initial migration.
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
const ts = (name: string, nullable = false): TableColumnOptions => ({
  name,
  type: 'datetime',
  precision: 3,
  isNullable: nullable,
});

const WALLET_REQUEST_COLUMNS = [
  v('response_mode', 32, true),
  txt('request_object', true),
  txt('response_key', true),
];

export class WalletTransports1763900000010 implements MigrationInterface {
  name = 'WalletTransports1763900000010';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'verifier_identity',
        columns: [
          { ...v('id', 40), isPrimary: true },
          v('host', 255),
          txt('x5c'),
          txt('root_certificate'),
          txt('private_key_enc'),
          ts('not_after'),
          ts('created_at'),
        ],
        indices: [new TableIndex({ name: 'IDX_verifier_identity_host', columnNames: ['host'] })],
      }),
    );
    await q.addColumns(
      'wallet_request',
      WALLET_REQUEST_COLUMNS.map((c) => new Column(c)),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of [...WALLET_REQUEST_COLUMNS].reverse()) await q.dropColumn('wallet_request', c.name);
    await q.dropTable('verifier_identity');
  }
}
