// The configuration a session create depends on, read in ONE statement: the workflow (tenant-checked) with its
// latest published revision, whether the business has a webhook endpoint in the environment, and the
// credential routes that decide which primitives are available (with the catalog's version). Before this, a
// create spent seven statements (and most of its CPU) re-reading these. What a create remembers of them is a
// guess that the one-statement INSERT checks as committed (KnownRevision, ADR 0025): every create sees the
// configuration as committed, on every node, so publishing, endpoint changes and route acceptances take
// effect at once.
import type { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { isUniqueViolation } from '../../db/data-source';
import { columnList, hydrate, rowValues, sql } from '../../db/fast-sql';
import { CredentialRouteEntity } from '../catalog/catalog.entities';
import { offeredPrimitives, type PrimitiveFlags } from '../catalog/catalog.service';
import type { Primitive } from '../workflow/workflow.steps';
import { WorkflowRevisionEntity } from '../workflow/workflow-revision.entity';
import { SessionEntity } from './session.entity';

export interface CreateContext {
  revision: WorkflowRevisionEntity;
  hasEndpoint: boolean;
  /** The primitives some available route supports in the environment. */
  offered: PrimitiveFlags;
  /** The catalog's version in the same snapshot as `offered` (null only if its row is missing). */
  catalogVersion: number | null;
}

const ROUTE_COLUMNS = [
  'formats',
  'identify',
  'age_verify',
  'sign',
  'attestation',
  'sandbox_available',
  'production_available',
  'provider_accepted',
  'issuer_accepted',
  'service_accepted',
] as const;

const statements = new WeakMap<DataSource, string>();

function statement(ds: DataSource): string {
  let s = statements.get(ds);
  if (!s) {
    const rv = columnList(ds, WorkflowRevisionEntity, 'rv', 'rv_');
    // A route is offered only with its wallet and issuer present (CatalogService.routes skips dangling ones).
    s = `SELECT w.latest_revision AS w_latest_revision, ${rv},
  (SELECT COUNT(*) FROM webhook_endpoint e WHERE e.business_id = ? AND e.environment = ?) AS endpoints,
  (SELECT v.version FROM catalog_version v WHERE v.id = 1) AS catalog_version,
  ${ROUTE_COLUMNS.map((c) => `c.${c} AS cr_${c}`).join(', ')}, c.sandbox_only AS ci_sandbox_only
FROM workflow w
LEFT JOIN workflow_revision rv ON rv.workflow_id = w.id AND rv.revision = w.latest_revision
LEFT JOIN (
  SELECT ${ROUTE_COLUMNS.map((c) => `cr.${c}`).join(', ')}, ci.sandbox_only
  FROM credential_route cr
  JOIN credential_issuer ci ON ci.id = cr.issuer_id
  JOIN wallet wa ON wa.id = cr.wallet_id
) c ON 1 = 1
WHERE w.id = ? AND w.business_id = ? AND w.environment = ?`;
    statements.set(ds, s);
  }
  return s;
}

const flag = (v: unknown): boolean => v === true || v === 1 || v === '1';

/** Throws workflow_not_found / workflow_not_published like WorkflowService.latestPublished. */
export async function readCreateContext(
  ds: DataSource,
  m: EntityManager | undefined,
  tenant: { businessId: string; environment: Environment },
  workflowId: string,
): Promise<CreateContext> {
  const { businessId, environment } = tenant;
  const rows = await sql(
    ds,
    statement(ds),
    [businessId, environment, workflowId, businessId, environment],
    m,
  );
  const first = rows[0];
  if (!first) throw new AppError('workflow_not_found', 'No workflow with this id.', { param: 'workflow_id' });
  if (Number(first.w_latest_revision) === 0)
    throw new AppError('workflow_not_published', 'Publish the workflow before creating sessions.', {
      param: 'workflow_id',
    });
  if (first.rv_id === null || first.rv_id === undefined)
    throw new AppError('internal_error', 'Published revision missing.');
  const routes = rows
    .filter((r) => r.cr_formats !== null && r.cr_formats !== undefined)
    .map((r) => ({
      route: Object.assign(new CredentialRouteEntity(), {
        formats: String(r.cr_formats),
        identify: flag(r.cr_identify),
        ageVerify: flag(r.cr_age_verify),
        sign: flag(r.cr_sign),
        attestation: flag(r.cr_attestation),
        sandboxAvailable: flag(r.cr_sandbox_available),
        productionAvailable: flag(r.cr_production_available),
        providerAccepted: flag(r.cr_provider_accepted),
        issuerAccepted: flag(r.cr_issuer_accepted),
        serviceAccepted: flag(r.cr_service_accepted),
      }),
      issuer: { sandboxOnly: flag(r.ci_sandbox_only) },
    }));
  return {
    revision: hydrate(ds, WorkflowRevisionEntity, first, 'rv_'),
    hasEndpoint: Number(first.endpoints) > 0,
    offered: offeredPrimitives(routes, environment),
    catalogVersion: first.catalog_version === null ? null : Number(first.catalog_version),
  };
}

/**
 * What a create already learned about a workflow: its latest published revision when last read, and the
 * catalog version under which the catalog offered every primitive of it. A published revision never changes,
 * so this is only a guess of which revision is the latest; insertIfCurrent checks it, and everything mutable,
 * in the INSERT itself.
 */
export interface KnownRevision {
  revision: WorkflowRevisionEntity;
  primitives: Primitive[];
  catalogVersion: number | null;
}

const KNOWN_MAX = 10_000;
const known = new Map<string, KnownRevision>();
const knownKey = (t: { businessId: string; environment: Environment }, workflowId: string) =>
  `${t.businessId}\u0000${t.environment}\u0000${workflowId}`;

export function knownRevision(
  t: { businessId: string; environment: Environment },
  workflowId: string,
): KnownRevision | undefined {
  return known.get(knownKey(t, workflowId));
}

/** Call only once the context was found to offer every primitive of the revision's steps. */
export function rememberRevision(
  t: { businessId: string; environment: Environment },
  workflowId: string,
  cfg: Pick<CreateContext, 'revision' | 'catalogVersion'>,
  steps: readonly { primitive: Primitive }[],
): void {
  if (known.size >= KNOWN_MAX) known.clear(); // a bounded guess cache: dropping it only costs a full read
  known.set(knownKey(t, workflowId), {
    revision: cfg.revision,
    primitives: [...new Set(steps.map((s) => s.primitive))].sort(),
    catalogVersion: cfg.catalogVersion,
  });
}

const guarded = new WeakMap<DataSource, { plain: string; byKey: string }>();

/**
 * The session INSERT, guarded by what the create remembered (KnownRevision): the workflow's latest revision,
 * an endpoint of the business in the environment, and the catalog version under which every primitive of the
 * revision was offered. Every catalog write bumps that version in its own transaction (bumpCatalogVersion),
 * so checking one primary-key row stands for re-evaluating every route here (ADR 0025). `byKey` also checks
 * that the API key acting is not revoked, as committed now: the lean lane does not read the key's row first.
 */
function guardedInsert(ds: DataSource, byKey: boolean): string {
  let s = guarded.get(ds);
  if (!s) {
    const cols = columnList(ds, SessionEntity);
    const n = cols.split(', ').length;
    const plain = `INSERT INTO session (${cols}) SELECT ${Array(n).fill('?').join(', ')} FROM workflow w
WHERE w.id = ? AND w.business_id = ? AND w.environment = ? AND w.latest_revision = ?
AND EXISTS (SELECT 1 FROM webhook_endpoint e WHERE e.business_id = ? AND e.environment = ?)
AND EXISTS (SELECT 1 FROM catalog_version v WHERE v.id = 1 AND v.version = ?)`;
    // the key's tenant is the session's (the actor's business and environment come from the key row)
    const byKeyText = `${plain}
AND EXISTS (SELECT 1 FROM api_key k WHERE k.id = ? AND k.business_id = w.business_id AND k.environment = w.environment AND k.revoked_at IS NULL)`;
    s = { plain, byKey: byKeyText };
    guarded.set(ds, s);
  }
  return byKey ? s.byKey : s.plain;
}

const guardParams = (session: SessionEntity, k: KnownRevision): unknown[] => [
  session.workflowId,
  session.businessId,
  session.environment,
  k.revision.revision,
  session.businessId,
  session.environment,
  k.catalogVersion,
];

/**
 * Inserts the session pinned to `k.revision` in one statement, only if, as committed now, that revision is
 * still the workflow's latest, the business has a webhook endpoint in the environment and the catalog is at
 * the version under which every primitive of the revision had an available route. False when any of it no longer holds: the caller then reads the
 * configuration (readCreateContext) to refuse with the right error or pin the new revision. MySQL/MariaDB
 * only (the embedded SQLite takes the read-then-insert path).
 */
export async function insertIfCurrent(
  ds: DataSource,
  m: EntityManager | undefined,
  session: SessionEntity,
  k: KnownRevision,
): Promise<boolean> {
  const res = await sql<{ affectedRows?: number }>(
    ds,
    guardedInsert(ds, false),
    [...rowValues(ds, SessionEntity, session), ...guardParams(session, k)],
    m,
  );
  return res.affectedRows === 1;
}

/** How a one-round-trip create ended (createInOneTrip). */
export type OneTripOutcome = 'created' | 'stale' | 'key_taken' | 'deadlock';

/**
 * The whole create in ONE round trip (a JSON create of a workflow whose revision this process
 * has seen): one prepared statement in autocommit, the guarded INSERT of insertIfCurrent, with or without an
 * Idempotency-Key. The key is a column of the session row (`idem_key`, unique per tenant: ADR 0024), so when
 * the guard refuses (configuration changed, or the API key was revoked: 'stale') nothing at all is written and
 * the caller takes the full path, which confirms the API key first. A concurrent request with the same key waits on the first one's uncommitted index entry and then
 * fails on it ('key_taken': replay) once that commits, or inserts if it rolled back. The timeline's `created`
 * entry is derived from the session row (support.service.ts), so there is no second row to keep in step.
 */
export async function createInOneTrip(
  ds: DataSource,
  session: SessionEntity,
  k: KnownRevision,
  /** The acting API key: the INSERT also checks that it is not revoked (ADR 0025). */
  apiKeyId: string | undefined,
): Promise<OneTripOutcome> {
  const params = [...rowValues(ds, SessionEntity, session), ...guardParams(session, k)];
  if (apiKeyId !== undefined) params.push(apiKeyId);
  try {
    // a prepared statement refuses undefined instead of binding NULL
    const bound = params.map((v) => (v === undefined ? null : v));
    const res = await sql<{ affectedRows?: number }>(ds, guardedInsert(ds, apiKeyId !== undefined), bound);
    return res.affectedRows === 1 ? 'created' : 'stale';
  } catch (e) {
    const err = e as { code?: string };
    // session ids are random: a duplicate is the key's unique index
    if (session.idemKey && isUniqueViolation(e)) return 'key_taken';
    // an InnoDB deadlock (waiters on a key whose holder rolled back) or a Galera certification conflict (the
    // same key inserted through two members): nothing was written, the full path retries
    if (err.code === 'ER_LOCK_DEADLOCK') return 'deadlock';
    throw e;
  }
}
