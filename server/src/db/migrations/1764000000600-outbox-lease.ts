// Outbox lease with a fencing token (ADR 0014): a relay claims webhook_event rows by a compare-and-set update
// that writes its own claim_token and lease_until, reads back the rows carrying its token, and guards every
// later write of that delivery by the token. Correct where `FOR UPDATE SKIP LOCKED` does not lock (TiDB) and
// where locks are per node (Galera). Both columns are nullable: NULL = never claimed. Portable Table API.
import { type MigrationInterface, type QueryRunner, TableColumn, TableIndex } from 'typeorm';

export class OutboxLease1764000000600 implements MigrationInterface {
  name = 'OutboxLease1764000000600';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('webhook_event', [
      new TableColumn({ name: 'claim_token', type: 'varchar', length: '40', isNullable: true }),
      new TableColumn({ name: 'lease_until', type: 'datetime', precision: 3, isNullable: true }),
    ]);
    // The read-back after a claim (`WHERE claim_token = ?`) must not scan the outbox.
    await q.createIndex(
      'webhook_event',
      new TableIndex({ name: 'IDX_webhook_event_claim', columnNames: ['claim_token'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('webhook_event', 'IDX_webhook_event_claim');
    await q.dropColumn('webhook_event', 'lease_until');
    await q.dropColumn('webhook_event', 'claim_token');
  }
}
