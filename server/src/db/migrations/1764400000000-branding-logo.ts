// Branding logo (issue 10, ADR 0019): the logo bytes in their own table (read only when the logo is served,
// by content hash), and the current logo's hash on the settings row the hosted page already reads.
import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

const COLUMN = new TableColumn({ name: 'logo_sha256', type: 'varchar', length: '64', isNullable: true });

const table = (mysql: boolean) =>
  new Table({
    name: 'hosted_page_logo',
    columns: [
      { name: 'business_id', type: 'varchar', length: '40', isPrimary: true, isNullable: false },
      { name: 'environment', type: 'varchar', length: '16', isPrimary: true, isNullable: false },
      { name: 'sha256', type: 'varchar', length: '64', isNullable: false },
      { name: 'content_type', type: 'varchar', length: '16', isNullable: false },
      { name: 'width', type: 'int', isNullable: false },
      { name: 'height', type: 'int', isNullable: false },
      { name: 'size', type: 'int', isNullable: false },
      { name: 'created_at', type: 'datetime', precision: 3, isNullable: false },
      // BLOB stops at 64 KiB on MySQL; SQLite has only BLOB (no size classes)
      { name: 'bytes', type: mysql ? 'mediumblob' : 'blob', isNullable: false },
    ],
    indices: [new TableIndex({ name: 'IDX_hosted_page_logo_sha256', columnNames: ['sha256'] })],
  });

export class BrandingLogo1764400000000 implements MigrationInterface {
  name = 'BrandingLogo1764400000000';

  async up(q: QueryRunner): Promise<void> {
    const type = q.dataSource.options.type;
    await q.createTable(table(type === 'mysql' || type === 'mariadb'));
    await q.addColumn('hosted_page_settings', COLUMN);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('hosted_page_settings', COLUMN.name);
    await q.dropTable('hosted_page_logo');
  }
}
