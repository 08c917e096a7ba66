// Google Wallet's gw_rp_metadata_bytes per signing certificate (issue 26, ADR 0050). Portable Table API
// (MariaDB and SQLite), the same column shapes as the entity (db/columns.ts).
import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

const v = (name: string, length: number, isNullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});

export class GwRpMetadata1766500000001 implements MigrationInterface {
  name = 'GwRpMetadata1766500000001';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'gw_rp_metadata',
        columns: [
          { ...v('leaf_sha256', 64), isPrimary: true },
          v('business_id', 40, true),
          v('environment', 16, true),
          { name: 'metadata', type: 'text', isNullable: false },
          { name: 'created_at', type: 'datetime', precision: 3, isNullable: false },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('gw_rp_metadata');
  }
}
