// The trust store's read of an issuer's current key (`issuer = ? AND environment = ? AND retired_at IS NULL
// ORDER BY created_at DESC LIMIT 1`, once per presentation verified) walks (issuer, environment, created_at)
// from its newest end instead of sorting the issuer's keys each time (a temporary B-tree on SQLite, a filesort
// on MySQL/MariaDB). The new index replaces (issuer, environment), of which it is an extension.
import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';

const OLD = new TableIndex({ name: 'IDX_trusted_issuer_iss_env', columnNames: ['issuer', 'environment'] });
const NEW = new TableIndex({
  name: 'IDX_trusted_issuer_iss_env_created',
  columnNames: ['issuer', 'environment', 'created_at'],
});

export class TrustedIssuerKeyIndex1764600000000 implements MigrationInterface {
  name = 'TrustedIssuerKeyIndex1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex('trusted_issuer', NEW);
    await q.dropIndex('trusted_issuer', OLD.name as string);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex('trusted_issuer', OLD);
    await q.dropIndex('trusted_issuer', NEW.name as string);
  }
}
