// The configuration a session create depends on, read in ONE statement: the workflow (tenant-checked) with its
// latest published revision, whether the business has a webhook endpoint in the environment, and the
// credential routes that decide which primitives are available. Before this, a create spent seven statements
// (and most of its CPU) re-reading these. Nothing here is cached: every create sees the configuration as
// committed, on every node, so publishing, endpoint changes and route acceptances take effect at once.
import type { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { columnList, hydrate, sql } from '../../db/fast-sql';
import { CredentialRouteEntity } from '../catalog/catalog.entities';
import { offeredPrimitives, type PrimitiveFlags } from '../catalog/catalog.service';
import { WorkflowRevisionEntity } from '../workflow/workflow-revision.entity';

export interface CreateContext {
  revision: WorkflowRevisionEntity;
  hasEndpoint: boolean;
  /** The primitives some available route supports in the environment. */
  offered: PrimitiveFlags;
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
  ${ROUTE_COLUMNS.map((c) => `c.${c} AS cr_${c}`).join(', ')}, c.sandbox_only AS ci_sandbox_only
FROM workflow w
LEFT JOIN workflow_revision rv ON rv.workflow_id = w.id AND rv.revision = w.latest_revision
LEFT JOIN (
  SELECT ${ROUTE_COLUMNS.map((c) => `cr.${c}`).join(', ')}, ci.sandbox_only
  FROM credential_route cr
  JOIN credential_issuer ci ON ci.id = cr.issuer_id
  JOIN wallet wa ON wa.id = cr.wallet_id
) c ON 1 = 1
WHERE w.id = ? AND w.business_id = ?`;
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
  const rows = await sql(ds, statement(ds), [businessId, environment, workflowId, businessId], m);
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
  };
}
