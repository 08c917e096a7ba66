// Registration certificates imported per business and environment (issue 19, ADR 0040). Portable Table API
// (MariaDB and SQLite), the same column shapes as the entity (db/columns.ts).
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

const v = (name: string, length: number, isNullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});
const ts = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });

export class RegistrationCertificates1766100000000 implements MigrationInterface {
  name = 'RegistrationCertificates1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'registration_certificate',
        columns: [
          { ...v('id', 40), isPrimary: true },
          v('business_id', 40),
          v('environment', 16),
          { name: 'jwt', type: 'text', isNullable: false },
          v('sub', 255),
          v('name', 255),
          v('anchor_sha256', 64),
          ts('expires_at'),
          ts('created_at'),
          ts('revoked_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_registration_certificate_scope',
            columnNames: ['business_id', 'environment', 'revoked_at'],
          }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('registration_certificate');
  }
}
