// Reader certificates for ISO 18013-5 reader authentication (issue 26, ADR 0049): the chain a wallet ecosystem
// (Apple) issued for the hosted domain, bound to a credential route. The key is a verifier_key row (purpose
// 'reader'). Portable Table API (MariaDB and SQLite), the same column shapes as the entity (db/columns.ts).
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

const v = (name: string, length: number, isNullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});
const ts = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });

export class ReaderCertificates1766490000000 implements MigrationInterface {
  name = 'ReaderCertificates1766490000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'reader_certificate',
        columns: [
          { ...v('id', 40), isPrimary: true },
          v('key_id', 40),
          v('route_id', 64),
          v('environment', 16),
          v('domain', 255),
          { name: 'per_document', type: 'boolean', isNullable: false },
          { name: 'x5chain', type: 'text', isNullable: false },
          v('leaf_sha256', 64),
          ts('not_before'),
          ts('not_after'),
          ts('created_at'),
          ts('retired_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_reader_certificate_scope',
            columnNames: ['route_id', 'environment', 'retired_at'],
          }),
          new TableIndex({
            name: 'UQ_reader_certificate_leaf',
            columnNames: ['leaf_sha256'],
            isUnique: true,
          }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('reader_certificate');
  }
}
