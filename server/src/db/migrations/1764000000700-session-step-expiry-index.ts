// The expiry sweeper reads overdue sessions with two index range scans: (status, expires_at), which exists,
// and (status, step_expires_at), added here. Before, `expires_at <= ? OR step_expires_at <= ?` left only the
// status part of IDX_session_status_expires usable, so a pass read every live session.
import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';

const INDEX = new TableIndex({
  name: 'IDX_session_status_step_expires',
  columnNames: ['status', 'step_expires_at'],
});

export class SessionStepExpiryIndex1764000000700 implements MigrationInterface {
  name = 'SessionStepExpiryIndex1764000000700';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('session', INDEX);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('session', INDEX.name as string);
  }
}
