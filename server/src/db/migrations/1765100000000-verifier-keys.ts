// The verifier's identity (issue 19, ADR 0034): its signing keys (sealed under the local master key) and the
// certificate chains for them (imported access certificates, the registrar CA, per-business leaves). Portable
// Table API, the same column shapes as the entities (db/columns.ts).
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

const v = (name: string, length: number, isNullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});
const txt = (name: string) => ({ name, type: 'text', isNullable: false });
const ts = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });

const scope = [v('purpose', 16), v('host', 255), v('business_id', 40, true), v('environment', 16, true)];

export class VerifierKeys1765100000000 implements MigrationInterface {
  name = 'VerifierKeys1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'verifier_key',
        columns: [
          { ...v('id', 40), isPrimary: true },
          ...scope,
          txt('public_jwk'),
          txt('private_key_enc'),
          ts('created_at'),
          ts('retired_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_verifier_key_scope',
            columnNames: ['purpose', 'host', 'business_id', 'environment'],
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'verifier_chain',
        columns: [
          { ...v('id', 40), isPrimary: true },
          v('key_id', 40),
          ...scope,
          txt('x5c'),
          txt('root_certificate'),
          v('leaf_sha256', 64),
          ts('not_before'),
          ts('not_after'),
          ts('created_at'),
          ts('retired_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'IDX_verifier_chain_scope',
            columnNames: ['purpose', 'host', 'business_id', 'environment', 'retired_at'],
          }),
          new TableIndex({ name: 'UQ_verifier_chain_leaf', columnNames: ['leaf_sha256'], isUnique: true }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('verifier_chain');
    await q.dropTable('verifier_key');
  }
}
