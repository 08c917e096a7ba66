// IACA root certificates trusted per environment and docType for ISO mdoc (mso_mdoc) issuer signatures.
import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

export class MdocTrustAnchor1763900000009 implements MigrationInterface {
  name = 'MdocTrustAnchor1763900000009';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'mdoc_trust_anchor',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true, isNullable: false },
          { name: 'environment', type: 'varchar', length: '16', isNullable: false },
          { name: 'doctype', type: 'varchar', length: '200', isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          { name: 'subject', type: 'varchar', length: '500', isNullable: false },
          { name: 'certificate_pem', type: 'text', isNullable: false },
          { name: 'created_at', type: 'datetime', precision: 3, isNullable: false },
          { name: 'retired_at', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_mdoc_trust_anchor_env_doctype',
            columnNames: ['environment', 'doctype'],
          }),
        ],
      }),
      false,
      false,
      true,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('mdoc_trust_anchor', true);
  }
}
