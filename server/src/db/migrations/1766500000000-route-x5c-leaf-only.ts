// A per-route rule for our signed requests (issue 26, ADR 0050): send only the leaf (the access certificate) in
// the request object's `x5c`, as Germany's wallet requires; off by default (leaf and intermediates, as HAIP allows).
import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

export class RouteX5cLeafOnly1766500000000 implements MigrationInterface {
  name = 'RouteX5cLeafOnly1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'credential_route',
      new TableColumn({ name: 'x5c_leaf_only', type: 'boolean', isNullable: false, default: false }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('credential_route', 'x5c_leaf_only');
  }
}
