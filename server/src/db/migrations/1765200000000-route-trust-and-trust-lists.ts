// Issuer trust per route (issue 19, ADR 0036): every configured key (trusted_issuer), X.509 anchor
// (trust_anchor) and mdoc IACA (mdoc_trust_anchor) belongs to one credential route. Existing rows are attached
// here to the route(s) of their issuer: keys and anchors to the routes whose issuer identifier is their `iss`
// (one copy per further route), mdoc IACAs to the routes that carry mso_mdoc (sandbox IACAs: of sandbox-only
// issuers; production ones: of the others). A row no route matches keeps
// route_id NULL and trusts nobody (why-trusted shows it). Also the ETSI trust lists (trust_list) and every
// version or refused refresh of them (trust_list_version); anchors made from a list name it and the entity.
import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { newId } from '../../common/ids';

const routeCols = () => [
  new TableColumn({ name: 'route_id', type: 'varchar', length: '40', isNullable: true }),
  new TableColumn({ name: 'trust_list_id', type: 'varchar', length: '40', isNullable: true }),
  new TableColumn({ name: 'entity', type: 'varchar', length: '500', isNullable: true }),
];

type Row = Record<string, unknown> & { id: string };

/** Sets route_id on `row` to the first route and inserts a copy (new id) for each further route. */
async function attach(q: QueryRunner, table: string, prefix: string, row: Row, routes: string[]) {
  const [first, ...rest] = routes;
  if (!first) return;
  await q.query(`UPDATE ${table} SET route_id = ? WHERE id = ?`, [first, row.id]);
  for (const routeId of rest) {
    const copy: Record<string, unknown> = { ...row, id: newId(prefix), route_id: routeId };
    const cols = Object.keys(copy);
    await q.query(
      `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      cols.map((c) => copy[c]),
    );
  }
}

export class RouteTrustAndTrustLists1765200000000 implements MigrationInterface {
  name = 'RouteTrustAndTrustLists1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('trusted_issuer', [
      new TableColumn({ name: 'route_id', type: 'varchar', length: '40', isNullable: true }),
    ]);
    await q.addColumns('trust_anchor', routeCols());
    await q.addColumns('mdoc_trust_anchor', routeCols());
    await q.createIndex(
      'trusted_issuer',
      new TableIndex({
        name: 'IDX_trusted_issuer_route',
        columnNames: ['route_id', 'issuer', 'environment'],
      }),
    );
    await q.createIndex(
      'trust_anchor',
      new TableIndex({ name: 'IDX_trust_anchor_route', columnNames: ['route_id', 'issuer', 'environment'] }),
    );
    await q.createIndex(
      'mdoc_trust_anchor',
      new TableIndex({
        name: 'IDX_mdoc_trust_anchor_route',
        columnNames: ['route_id', 'environment', 'doctype'],
      }),
    );
    await q.createTable(
      new Table({
        name: 'trust_list',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true, isNullable: false },
          { name: 'name', type: 'varchar', length: '200', isNullable: false },
          { name: 'kind', type: 'varchar', length: '8', isNullable: false },
          { name: 'source', type: 'varchar', length: '1000', isNullable: false },
          { name: 'environment', type: 'varchar', length: '16', isNullable: false },
          { name: 'routes', type: 'text', isNullable: false },
          { name: 'doctypes', type: 'text', isNullable: false },
          { name: 'anchors_pem', type: 'text', isNullable: false },
          { name: 'current_version', type: 'int', isNullable: true },
          { name: 'next_update', type: 'datetime', precision: 3, isNullable: true },
          { name: 'last_attempt_at', type: 'datetime', precision: 3, isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'created_at', type: 'datetime', precision: 3, isNullable: false },
          { name: 'retired_at', type: 'datetime', precision: 3, isNullable: true },
        ],
      }),
      false,
      false,
      true,
    );
    await q.createTable(
      new Table({
        name: 'trust_list_version',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true, isNullable: false },
          { name: 'list_id', type: 'varchar', length: '40', isNullable: false },
          { name: 'attempt', type: 'int', isNullable: false },
          { name: 'status', type: 'varchar', length: '16', isNullable: false },
          { name: 'sequence_number', type: 'varchar', length: '40', isNullable: true },
          { name: 'issued_at', type: 'datetime', precision: 3, isNullable: true },
          { name: 'next_update', type: 'datetime', precision: 3, isNullable: true },
          { name: 'digest', type: 'varchar', length: '64', isNullable: true },
          { name: 'entities', type: 'text', isNullable: true },
          { name: 'added', type: 'text', isNullable: false },
          { name: 'removed', type: 'text', isNullable: false },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'fetched_at', type: 'datetime', precision: 3, isNullable: false },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_trust_list_version_list_attempt',
            columnNames: ['list_id', 'attempt'],
            isUnique: true,
          }),
        ],
      }),
      false,
      false,
      true,
    );

    // Attach what exists to its routes.
    const routes = (await q.query(
      `SELECT cr.id AS route_id, cr.formats AS formats, ci.identifier AS identifier, ci.sandbox_only AS sandbox_only
       FROM credential_route cr JOIN credential_issuer ci ON ci.id = cr.issuer_id ORDER BY cr.id`,
    )) as { route_id: string; formats: string; identifier: string; sandbox_only: unknown }[];
    const byIssuer = (iss: string) => routes.filter((r) => r.identifier === iss).map((r) => r.route_id);
    // an mdoc IACA has no iss: the routes that carry mso_mdoc, sandbox IACAs on sandbox-only issuers' routes
    const mdocRoutes = (environment: unknown) =>
      routes
        .filter(
          (r) =>
            (JSON.parse(r.formats) as string[]).includes('mso_mdoc') &&
            Boolean(Number(r.sandbox_only)) === (environment === 'sandbox'),
        )
        .map((r) => r.route_id);
    for (const row of (await q.query('SELECT * FROM trusted_issuer')) as Row[])
      await attach(q, 'trusted_issuer', 'tis', row, byIssuer(String(row.issuer)));
    for (const row of (await q.query('SELECT * FROM trust_anchor')) as Row[])
      await attach(q, 'trust_anchor', 'tan', row, byIssuer(String(row.issuer)));
    for (const row of (await q.query('SELECT * FROM mdoc_trust_anchor')) as Row[])
      await attach(q, 'mdoc_trust_anchor', 'mta', row, mdocRoutes(row.environment));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('trust_list_version', true);
    await q.dropTable('trust_list', true);
    await q.dropIndex('mdoc_trust_anchor', 'IDX_mdoc_trust_anchor_route');
    await q.dropIndex('trust_anchor', 'IDX_trust_anchor_route');
    await q.dropIndex('trusted_issuer', 'IDX_trusted_issuer_route');
    for (const c of ['entity', 'trust_list_id', 'route_id']) {
      await q.dropColumn('mdoc_trust_anchor', c);
      await q.dropColumn('trust_anchor', c);
    }
    await q.dropColumn('trusted_issuer', 'route_id');
  }
}
