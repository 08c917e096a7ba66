// The same-device redirect's single-use response codes (issue 26, ADR 0050). Portable Table API (MariaDB and
// SQLite), the same column shapes as the entity (db/columns.ts).
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

const v = (name: string, length: number) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable: false,
});
const t = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });

export class WalletRedirect1766600000000 implements MigrationInterface {
  name = 'WalletRedirect1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'wallet_redirect',
        columns: [
          { ...v('code_hash', 64), isPrimary: true },
          v('session_id', 40),
          v('request_id', 40),
          t('created_at'),
          t('expires_at'),
          t('used_at', true),
        ],
      }),
    );
    await q.createIndex(
      'wallet_redirect',
      new TableIndex({ name: 'IDX_wallet_redirect_session', columnNames: ['session_id'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('wallet_redirect');
  }
}
