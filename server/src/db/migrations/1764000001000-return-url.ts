// Hosted page settings (issue 10, ADR 0019): per business and environment, the registered return_url origins
// and the branding (display name, accent colour); and the session's return_url. Own table and one new
// nullable column only.
import { type MigrationInterface, type QueryRunner, Table, TableColumn } from 'typeorm';

const TABLE = new Table({
  name: 'hosted_page_settings',
  columns: [
    { name: 'business_id', type: 'varchar', length: '40', isPrimary: true, isNullable: false },
    { name: 'environment', type: 'varchar', length: '16', isPrimary: true, isNullable: false },
    { name: 'origins', type: 'text', isNullable: false },
    { name: 'display_name', type: 'varchar', length: '80', isNullable: true },
    { name: 'accent_color', type: 'varchar', length: '7', isNullable: true },
    { name: 'updated_at', type: 'datetime', precision: 3, isNullable: false },
  ],
});

const COLUMN = new TableColumn({ name: 'return_url', type: 'varchar', length: '2048', isNullable: true });

export class ReturnUrl1764000001000 implements MigrationInterface {
  name = 'ReturnUrl1764000001000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(TABLE);
    await q.addColumn('session', COLUMN);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('session', COLUMN.name);
    await q.dropTable(TABLE.name);
  }
}
