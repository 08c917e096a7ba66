// One row, `trust_version`, that every write changing a route's trust bumps in the same transaction (ADR 0063):
// with catalog_version it is the stamp a hosted-page request reads with its session, so the trust stores may
// answer from their per-instance cache while nothing changed, on any node.
import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

const TABLE = new Table({
  name: 'trust_version',
  columns: [
    { name: 'id', type: 'int', isPrimary: true, isNullable: false },
    { name: 'version', type: 'int', isNullable: false },
  ],
});

export class TrustVersion1766900000000 implements MigrationInterface {
  name = 'TrustVersion1766900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(TABLE);
    await q.query('INSERT INTO trust_version (id, version) VALUES (1, 1)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('trust_version');
  }
}
