// The configuration a session create depends on, read in ONE statement: the workflow (tenant-checked) with its
// latest published revision, whether the business has a webhook endpoint in the environment, and the
// credential routes that decide which primitives are available (with the catalog's version). Before this, a
// create spent seven statements (and most of its CPU) re-reading these. What a create remembers of them is a
// guess that the one guarded INSERT checks as committed (KnownRevision, ADR 0025): every create sees the
// configuration as committed, on every node, so publishing, endpoint changes and route acceptances take
// effect at once. Statement texts and remembered facts live in instances (one per SessionService), never in
// module globals: two services in one process (the Galera suite's nodes) each start cold.
import type { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { isDeadlock, isUniqueViolation } from '../../db/data-source';
import { columnList, hydrate, rowValues, sql } from '../../db/fast-sql';
import { offeredPrimitives, type PrimitiveFlags } from '../catalog/catalog.service';
import { CredentialRouteEntity } from '../credential-routes/catalog.entities';
import type { WorkflowStep } from '../workflow/workflow.steps';
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

/** The route columns the create reads; `primitives` is the capability set (ADR 0054). */
const ROUTE_COLUMNS = [
  'formats',
  'primitives',
  'sandbox_available',
  'production_available',
  'provider_accepted',
  'issuer_accepted',
  'service_accepted',
] as const;

/** The one statement of readCreateContext (text built from the entity metadata of `ds`). */
function contextStatement(ds: DataSource): string {
  const rv = columnList(ds, WorkflowRevisionEntity, 'rv', 'rv_');
  // A route is offered only with its wallet and issuer present (CatalogService.routes skips dangling ones).
  return `SELECT w.latest_revision AS w_latest_revision, ${rv},
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
}

const flag = (v: unknown): boolean => v === true || v === 1 || v === '1';

/** Reads the create context in one statement; its text is built once per instance (one DataSource). */
export class CreateContextReader {
  private text: string | undefined;

  constructor(private readonly ds: DataSource) {}

  /** Throws workflow_not_found / workflow_not_published like WorkflowService.latestPublished. */
  async read(
    tenant: { businessId: string; environment: Environment },
    workflowId: string,
  ): Promise<CreateContext> {
    const { ds } = this;
    const { businessId, environment } = tenant;
    this.text ??= contextStatement(ds);
    const rows = await sql(ds, this.text, [businessId, environment, workflowId, businessId, environment]);
    const first = rows[0];
    if (!first)
      throw new AppError('workflow_not_found', 'No workflow with this id.', { param: 'workflow_id' });
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
          primitives: Number(r.cr_primitives),
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
}

/**
 * What a create already learned about a workflow: its latest published revision when last read (with its
 * steps), and the catalog version under which the catalog offered every primitive of it. A published
 * revision never changes, so this is only a guess of which revision is the latest; the guarded INSERT checks
 * it, and everything mutable, as committed.
 */
export interface KnownRevision {
  revision: WorkflowRevisionEntity;
  steps: WorkflowStep[];
  catalogVersion: number | null;
}

const KNOWN_MAX = 10_000;
const knownKey = (t: { businessId: string; environment: Environment }, workflowId: string) =>
  `${t.businessId}\u0000${t.environment}\u0000${workflowId}`;

/**
 * The facts a create remembered, per tenant and workflow: a bounded guess cache of one service instance.
 * Invalidation: none is needed for correctness (the guarded INSERT refuses a stale guess, and the create then
 * reads and remembers again); it is dropped whole when full.
 */
export class KnownRevisions {
  private readonly known = new Map<string, KnownRevision>();

  get(t: { businessId: string; environment: Environment }, workflowId: string): KnownRevision | undefined {
    return this.known.get(knownKey(t, workflowId));
  }

  /** Call only once the context was found to offer every primitive of the revision's steps. */
  remember(
    t: { businessId: string; environment: Environment },
    workflowId: string,
    cfg: Pick<CreateContext, 'revision' | 'catalogVersion'>,
    steps: WorkflowStep[],
  ): KnownRevision {
    if (this.known.size >= KNOWN_MAX) this.known.clear(); // dropping it only costs a full read
    const k = { revision: cfg.revision, steps, catalogVersion: cfg.catalogVersion };
    this.known.set(knownKey(t, workflowId), k);
    return k;
  }

  forget(t: { businessId: string; environment: Environment }, workflowId: string): void {
    this.known.delete(knownKey(t, workflowId));
  }
}

/** How the guarded INSERT ended. */
export type InsertOutcome = 'created' | 'stale' | 'key_taken' | 'deadlock';

/**
 * The one session INSERT, guarded by the facts the create relies on (KnownRevision): the workflow's latest
 * revision, an endpoint of the business in the environment, and the catalog version under which every
 * primitive of the revision was offered. Every catalog write bumps that version in its own transaction
 * (bumpCatalogVersion), so checking one primary-key row stands for re-evaluating every route (ADR 0025).
 * For an API-key actor it also checks, as committed now, that the key is not revoked (the /v1 pipeline does
 * not read a remembered key's row first: ADR 0025, 0037). The same statement on MySQL/MariaDB and the embedded SQLite.
 */
export class GuardedSessionInsert {
  private texts: { plain: string; byKey: string } | undefined;

  constructor(private readonly ds: DataSource) {}

  private text(byKey: boolean): string {
    if (!this.texts) {
      const cols = columnList(this.ds, SessionEntity);
      const n = cols.split(', ').length;
      const plain = `INSERT INTO session (${cols}) SELECT ${Array(n).fill('?').join(', ')} FROM workflow w
WHERE w.id = ? AND w.business_id = ? AND w.environment = ? AND w.latest_revision = ?
AND EXISTS (SELECT 1 FROM webhook_endpoint e WHERE e.business_id = ? AND e.environment = ?)
AND EXISTS (SELECT 1 FROM catalog_version v WHERE v.id = 1 AND v.version = ?)`;
      // the key's tenant is the session's (the actor's business and environment come from the key row)
      this.texts = {
        plain,
        byKey: `${plain}
AND EXISTS (SELECT 1 FROM api_key k WHERE k.id = ? AND k.business_id = w.business_id AND k.environment = w.environment AND k.revoked_at IS NULL)`,
      };
    }
    return byKey ? this.texts.byKey : this.texts.plain;
  }

  /**
   * Inserts `session` pinned to `k.revision` only if every guarded fact holds as committed now: in autocommit
   * (one round trip), or in the caller's transaction `m` (a create that stores documents). 'stale': a fact no
   * longer holds (or the API key was revoked) and nothing was written; 'key_taken': another session holds the
   * Idempotency-Key (a concurrent repeat waits on the first one's uncommitted index entry, then fails on it);
   * 'deadlock': an InnoDB deadlock (waiters on a key whose holder rolled back) or a Galera certification
   * conflict in autocommit, nothing written, run it again.
   */
  async run(
    session: SessionEntity,
    k: KnownRevision,
    apiKeyId: string | undefined,
    m?: EntityManager,
  ): Promise<InsertOutcome> {
    const { ds } = this;
    const params = [
      ...rowValues(ds, SessionEntity, session),
      session.workflowId,
      session.businessId,
      session.environment,
      k.revision.revision,
      session.businessId,
      session.environment,
      k.catalogVersion,
    ];
    if (apiKeyId !== undefined) params.push(apiKeyId);
    // a prepared statement refuses undefined instead of binding NULL
    const bound = params.map((v) => (v === undefined ? null : v));
    try {
      const res = await sql<{ affectedRows?: number }>(ds, this.text(apiKeyId !== undefined), bound, m);
      return res.affectedRows === 1 ? 'created' : 'stale';
    } catch (e) {
      // session ids are random: a duplicate is the key's unique index
      if (session.idemKey && isUniqueViolation(e)) return 'key_taken';
      if (!m && isDeadlock(e)) return 'deadlock';
      throw e;
    }
  }
}
