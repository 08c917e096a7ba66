// The business as the relying party (issue 19, ADR 0035): legal name, display name, contact, privacy policy
// and default purpose per business and environment. Portable Table API (MariaDB and SQLite).
import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

const v = (name: string, length: number, isNullable = true) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});

export class RelyingParty1765800000000 implements MigrationInterface {
  name = 'RelyingParty1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'relying_party',
        columns: [
          { ...v('business_id', 40, false), isPrimary: true },
          { ...v('environment', 16, false), isPrimary: true },
          v('legal_name', 200),
          v('display_name', 80),
          v('contact_email', 254),
          v('privacy_policy_url', 512),
          v('purpose', 300),
          { name: 'updated_at', type: 'datetime', precision: 3, isNullable: false },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('relying_party');
  }
}
