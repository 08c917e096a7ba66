// The first step's holder key moves out of every result (issue 28, ADR 0046): later steps are bound to it
// through the session row while the session runs (`anchor_holder_key`, cleared when the session ends). Sessions
// whose first step completed before keep it in that step's stored result, which the binding still reads.
import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

const COLUMN = new TableColumn({
  name: 'anchor_holder_key',
  type: 'varchar',
  length: '64',
  isNullable: true,
});

export class AnchorHolderKey1766246000000 implements MigrationInterface {
  name = 'AnchorHolderKey1766246000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('session', COLUMN);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('session', 'anchor_holder_key');
  }
}
