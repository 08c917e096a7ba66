// One row, `catalog_version`, that every write to the credential route catalog (wallet, credential_issuer,
// credential_route) bumps in its own transaction (CatalogService). A create that remembers which primitives
// the catalog offered checks this number inside its guarded INSERT instead of re-evaluating the routes there
// (ADR 0025): a changed number refuses the one-statement create, and the full path reads the catalog again.
import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

const TABLE = new Table({
  name: 'catalog_version',
  columns: [
    { name: 'id', type: 'int', isPrimary: true, isNullable: false },
    { name: 'version', type: 'int', isNullable: false },
  ],
});

export class CatalogVersion1764700000000 implements MigrationInterface {
  name = 'CatalogVersion1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(TABLE);
    await q.query('INSERT INTO catalog_version (id, version) VALUES (1, 1)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('catalog_version');
  }
}
