// A credential route's capabilities as one capability set instead of one boolean column per primitive (issue 30,
// ADR 0054): `primitives` holds the sum of the bits of the primitives the route can do (PrimitiveSpec.bit:
// identify 1, age_verify 2, sign 4, attestation 8; never renumbered). A new primitive then needs a new bit, not
// a migration. The values below are written out: a migration never reads the live registry.
import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

const FLAGS = [
  ['identify', 1],
  ['age_verify', 2],
  ['sign', 4],
  ['attestation', 8],
] as const;

export class RouteCapabilitySet1766800000000 implements MigrationInterface {
  name = 'RouteCapabilitySet1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'credential_route',
      new TableColumn({ name: 'primitives', type: 'int', isNullable: false, default: 0 }),
    );
    await q.query(
      `UPDATE credential_route SET primitives = ${FLAGS.map(([c, bit]) => `(CASE WHEN ${c} = 1 THEN ${bit} ELSE 0 END)`).join(' + ')}`,
    );
    for (const [c] of FLAGS) await q.dropColumn('credential_route', c);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [c] of FLAGS)
      await q.addColumn(
        'credential_route',
        new TableColumn({ name: c, type: 'boolean', isNullable: false, default: false }),
      );
    await q.query(
      `UPDATE credential_route SET ${FLAGS.map(([c, bit]) => `${c} = (CASE WHEN (primitives & ${bit}) <> 0 THEN 1 ELSE 0 END)`).join(', ')}`,
    );
    await q.dropColumn('credential_route', 'primitives');
  }
}
