// Owns which credential routes' issuer trust may validate a step's credential (ADR 0036): the step's own
// `routes`, or else every route available in the session's environment that offers the step's primitive
// (the same availability rules as the catalog). Read at verification time inside the trust read, which a node
// may answer from its cache only at the same trust stamp (ADR 0063: the catalog's version is half of it), so an
// operator's acceptance change or a route's removal takes effect for the next presentation on every node.
import { type DataSource, In } from 'typeorm';
import type { Environment } from '../../config/config';
import { paramFor, sql } from '../../db/fast-sql';
import { CredentialIssuerEntity, CredentialRouteEntity } from '../credential-routes/catalog.entities';
import { PRIMITIVE_SPECS } from './primitives';
import type { WorkflowStep } from './workflow.steps';

/**
 * A route offers the primitive when its capability set has the primitive's bit (ADR 0054): `primitives & ?`,
 * the same on MySQL/MariaDB, SQLite, TiDB and Vitess. The bit is bound, so one statement text serves every
 * primitive.
 */
const OFFERS = '(primitives & ?) <> 0';

/**
 * The allowed routes of a step as a subquery (`SELECT id FROM credential_route …`) with its parameters, the same
 * rules as allowedRoutes: for a statement that reads the routes' trust in the same round trip (ADR 0045
 * amendment).
 */
export function allowedRoutesSql(
  ds: DataSource,
  step: Pick<WorkflowStep, 'primitive' | 'routes'>,
  environment: Environment,
): { sql: string; params: unknown[] } {
  if (step.routes) {
    const ids = step.routes.length ? step.routes.map(() => '?').join(', ') : 'NULL';
    return { sql: `SELECT id FROM credential_route WHERE id IN (${ids})`, params: [...step.routes] };
  }
  const available = environment === 'production' ? 'production_available' : 'sandbox_available';
  const bit = PRIMITIVE_SPECS[step.primitive].bit;
  const yes = paramFor(ds, CredentialRouteEntity, 'sandboxAvailable', true);
  const base = `SELECT id FROM credential_route WHERE ${OFFERS} AND ${available} = ?`;
  if (environment === 'sandbox') return { sql: base, params: [bit, yes] };
  // production never trusts through a sandbox-only issuer's route, whatever its flags say
  const no = paramFor(ds, CredentialIssuerEntity, 'sandboxOnly', false);
  return {
    sql: `${base} AND issuer_id IN (SELECT id FROM credential_issuer WHERE sandbox_only = ?)`,
    params: [bit, yes, no],
  };
}

export async function allowedRoutes(
  ds: DataSource,
  step: Pick<WorkflowStep, 'primitive' | 'routes'>,
  environment: Environment,
): Promise<string[]> {
  if (step.routes) return [...step.routes];
  // one plain statement (fast-sql.ts): read on every wallet response (ADR 0045)
  const available = environment === 'production' ? 'production_available' : 'sandbox_available';
  const yes = paramFor(ds, CredentialRouteEntity, 'sandboxAvailable', true);
  const routes = (
    await sql<{ id: string; issuer_id: string }[]>(
      ds,
      `SELECT id, issuer_id FROM credential_route WHERE ${OFFERS} AND ${available} = ? ORDER BY id`,
      [PRIMITIVE_SPECS[step.primitive].bit, yes],
    )
  ).map((r) => ({ id: r.id, issuerId: r.issuer_id }));
  if (environment === 'sandbox' || routes.length === 0) return routes.map((r) => r.id);
  // production never trusts through a sandbox-only issuer's route, whatever its flags say
  const real = new Set(
    (
      await ds.getRepository(CredentialIssuerEntity).find({
        select: { id: true },
        where: { id: In(routes.map((r) => r.issuerId)), sandboxOnly: false },
      })
    ).map((i) => i.id),
  );
  return routes.filter((r) => real.has(r.issuerId)).map((r) => r.id);
}

/**
 * The allowed routes for a trust read (verification/trust.ts RouteScope): the step's own list, or the rules as a
 * subquery of the trust read itself, so a verification reads them in the same statement as the issuer's trust
 * (ADR 0058 amendment). `list` reads them (allowedRoutes) only to name them in an `issuer_untrusted` refusal.
 */
export function routeScope(
  ds: DataSource,
  step: Pick<WorkflowStep, 'primitive' | 'routes'>,
  environment: Environment,
  /** The trust stamp read with the session (ADR 0063): the trust stores may answer from their caches. */
  stamp?: string,
):
  | readonly string[]
  | { sql: string; params: unknown[]; list(): Promise<readonly string[]>; stamp?: string } {
  if (step.routes && stamp === undefined) return [...step.routes];
  return {
    ...allowedRoutesSql(ds, step, environment),
    list: () => allowedRoutes(ds, step, environment),
    ...(stamp === undefined ? {} : { stamp }),
  };
}
