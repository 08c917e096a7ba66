// How the service speaks for a business per route and environment (issue 26, ADR 0053). Portable Table API
// (MariaDB and SQLite), the same column shapes as the entity (db/columns.ts).
import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

const v = (name: string, length: number) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: false,
});

export class RouteSpeaking1766700000000 implements MigrationInterface {
  name = 'RouteSpeaking1766700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'route_speaking',
        columns: [
          { ...v('route_id', 40), isPrimary: true },
          { ...v('environment', 16), isPrimary: true },
          v('mode', 24),
          { name: 'updated_at', type: 'datetime', precision: 3, isNullable: false },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('route_speaking');
  }
}
