// The support timeline's `started` and `wallet_request` entries come from the rows those steps write (issue 27,
// ADR 0074), as `created` comes from the session row (ADR 0023): Start stamps `session.started_at`, and a wallet
// request keeps its transport and its timeline order key on its own row. Each of those steps is then one guarded
// statement with no timeline row beside it. Sessions and requests from before keep the entries stored for them
// (the new columns are NULL there).
import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

const STARTED_AT = new TableColumn({ name: 'started_at', type: 'datetime', precision: 3, isNullable: true });
const REQUEST_COLUMNS = [
  new TableColumn({ name: 'transport', type: 'varchar', length: '16', isNullable: true }),
  new TableColumn({ name: 'order_key', type: 'varchar', length: '20', isNullable: true }),
];

export class TimelineFromRows1767000000000 implements MigrationInterface {
  name = 'TimelineFromRows1767000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('session', STARTED_AT);
    await q.addColumns('wallet_request', REQUEST_COLUMNS);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumns('wallet_request', ['order_key', 'transport']);
    await q.dropColumn('session', 'started_at');
  }
}
