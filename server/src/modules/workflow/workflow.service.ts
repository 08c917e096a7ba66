// Owns workflows: drafts are editable; publishing writes an immutable revision that sessions pin. A workflow
// belongs to the environment of the credential that created it; every read, edit, publish and session
// pinning is scoped to the caller's business AND environment, so a sandbox credential can never see or change
// what production runs (another environment's workflow is "not found"; ADR 0007).
import { type DataSource, type EntityManager, In } from 'typeorm';
import type { Ctx } from '../../common/context';
import { tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import { inTransaction } from '../../db/data-source';
import { auditActorOf, writeAccountAudit } from '../accounts/audit';
import { CredentialRouteEntity } from '../credential-routes/catalog.entities';
import { WorkflowEntity } from './workflow.entity';
import {
  type IntendedUse,
  intendedUseColumn,
  intendedUseOf,
  validateIntendedUse,
} from './workflow.intended-use';
import { validateSteps, type WorkflowStep } from './workflow.steps';
import { WorkflowRevisionEntity } from './workflow-revision.entity';

export interface WorkflowView {
  id: string;
  environment: 'sandbox' | 'production';
  name: string;
  apiOnly: boolean;
  draftSteps: WorkflowStep[];
  /** The draft's intended use (ADR 0042); null: the business's default purpose applies. */
  intendedUse: IntendedUse | null;
  latestRevision: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface RevisionView {
  workflowId: string;
  revision: number;
  name: string;
  apiOnly: boolean;
  steps: WorkflowStep[];
  intendedUse: IntendedUse | null;
  publishedAt: Date;
}

const toView = (w: WorkflowEntity): WorkflowView => ({
  id: w.id,
  environment: w.environment,
  name: w.name,
  apiOnly: w.apiOnly,
  draftSteps: JSON.parse(w.draftSteps) as WorkflowStep[],
  intendedUse: intendedUseOf(w.intendedUse),
  latestRevision: w.latestRevision,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

export const toRevisionView = (r: WorkflowRevisionEntity): RevisionView => ({
  workflowId: r.workflowId,
  revision: r.revision,
  name: r.name,
  apiOnly: r.apiOnly,
  steps: JSON.parse(r.steps) as WorkflowStep[],
  intendedUse: intendedUseOf(r.intendedUse),
  publishedAt: r.publishedAt,
});

/** Pinned revisions kept by one service instance (they are insert-only, so a kept one is never stale). */
const KEPT_REVISIONS = 1000;

export class WorkflowService {
  /** `workflowId:revision` -> the committed revision row, frozen; oldest dropped first past KEPT_REVISIONS. */
  private readonly keptRevisions = new Map<string, Readonly<WorkflowRevisionEntity>>();

  constructor(private readonly deps: { ds: DataSource }) {}

  async create(
    ctx: Ctx,
    input: { name: string; apiOnly?: boolean; steps?: unknown; intendedUse?: unknown },
  ): Promise<WorkflowView> {
    const { businessId, environment } = tenantOf(ctx);
    const name = input.name?.trim();
    if (!name || name.length > 200)
      throw new AppError('validation_failed', 'name must be 1-200 characters.', { param: 'name' });
    const steps = validateSteps(input.steps ?? [], false);
    const intendedUse = validateIntendedUse(input.intendedUse);
    const now = ctx.clock.now();
    const w = Object.assign(new WorkflowEntity(), {
      id: newId('wf'),
      businessId,
      environment,
      name,
      apiOnly: input.apiOnly ?? true,
      draftSteps: JSON.stringify(steps),
      intendedUse: intendedUseColumn(intendedUse),
      latestRevision: 0,
      createdAt: now,
      updatedAt: now,
    });
    await this.deps.ds.getRepository(WorkflowEntity).insert(w);
    return toView(w);
  }

  async list(ctx: Ctx): Promise<WorkflowView[]> {
    const { businessId, environment } = tenantOf(ctx);
    const rows = await this.deps.ds
      .getRepository(WorkflowEntity)
      .find({ where: { businessId, environment }, order: { createdAt: 'ASC' } });
    return rows.map(toView);
  }

  async get(ctx: Ctx, id: string): Promise<WorkflowView> {
    return toView(await this.load(ctx, id, this.deps.ds.manager));
  }

  /**
   * Replaces the draft's steps. A change of any step's routes (which issuers' trust may validate it, ADR 0036)
   * writes account_audit `workflow.routes.set` in the same transaction.
   */
  async setSteps(ctx: Ctx, id: string, steps: unknown, apiOnly?: boolean): Promise<WorkflowView> {
    const validated = validateSteps(steps, false);
    return inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const w = await this.load(ctx, id, m);
      const routesOf = (list: WorkflowStep[]) => list.map((s) => s.routes ?? null);
      const before = routesOf(JSON.parse(w.draftSteps) as WorkflowStep[]);
      w.draftSteps = JSON.stringify(validated);
      if (apiOnly !== undefined) w.apiOnly = apiOnly;
      w.updatedAt = ctx.clock.now();
      await m
        .getRepository(WorkflowEntity)
        .update(
          { id: w.id, businessId: w.businessId, environment: w.environment },
          { draftSteps: w.draftSteps, apiOnly: w.apiOnly, updatedAt: w.updatedAt },
        );
      const after = routesOf(validated);
      if (JSON.stringify(before) !== JSON.stringify(after))
        await this.audit(ctx, m, w, 'workflow.routes.set', { routes: after });
      return toView(w);
    });
  }

  /**
   * Replaces the draft's intended use (null clears it: the business's default purpose applies). It reaches
   * sessions with the next published revision. Writes account_audit `workflow.intended_use.set`.
   */
  async setIntendedUse(ctx: Ctx, id: string, input: unknown): Promise<WorkflowView> {
    const intendedUse = validateIntendedUse(input);
    return inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const w = await this.load(ctx, id, m);
      w.intendedUse = intendedUseColumn(intendedUse);
      w.updatedAt = ctx.clock.now();
      await m
        .getRepository(WorkflowEntity)
        .update(
          { id: w.id, businessId: w.businessId, environment: w.environment },
          { intendedUse: w.intendedUse, updatedAt: w.updatedAt },
        );
      await this.audit(ctx, m, w, 'workflow.intended_use.set', { intendedUse });
      return toView(w);
    });
  }

  private async audit(
    ctx: Ctx,
    m: EntityManager,
    w: WorkflowEntity,
    action: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await writeAccountAudit(m, ctx.clock.now(), {
      businessId: w.businessId,
      actor: auditActorOf(ctx.actor),
      action,
      target: w.id,
      detail: { environment: w.environment, ...detail },
    });
  }

  /**
   * Publishes the draft as the next immutable revision. Concurrent publishes get distinct revision numbers.
   * A draft identical to the latest revision (steps, name, API-only, intended use) publishes nothing: the latest revision is
   * the answer, so publishing is idempotent and sessions never see two revisions that differ only in number.
   */
  async publish(ctx: Ctx, id: string): Promise<RevisionView> {
    return inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const w = await this.load(ctx, id, m);
      const steps = validateSteps(JSON.parse(w.draftSteps), true);
      // a step's routes must exist in the catalog (ADR 0036); an unknown id would only ever refuse credentials
      const named = [...new Set(steps.flatMap((s) => s.routes ?? []))];
      if (named.length > 0) {
        const known = new Set(
          (
            await m
              .getRepository(CredentialRouteEntity)
              .find({ select: { id: true }, where: { id: In(named) } })
          ).map((r) => r.id),
        );
        const i = steps.findIndex((s) => (s.routes ?? []).some((r) => !known.has(r)));
        if (i >= 0)
          throw new AppError('workflow_invalid', `Step ${i + 1}: a route is not in the catalog.`, {
            param: `steps[${i}].routes`,
          });
      }
      if (w.latestRevision > 0) {
        const latest = await m
          .getRepository(WorkflowRevisionEntity)
          .findOne({ where: { workflowId: w.id, businessId: w.businessId, revision: w.latestRevision } });
        if (
          latest &&
          latest.name === w.name &&
          Boolean(latest.apiOnly) === Boolean(w.apiOnly) &&
          (latest.intendedUse ?? null) === (w.intendedUse ?? null) &&
          JSON.stringify(JSON.parse(latest.steps)) === JSON.stringify(steps)
        )
          return toRevisionView(latest);
      }
      const revision = w.latestRevision + 1;
      const res = await m
        .createQueryBuilder()
        .update(WorkflowEntity)
        .set({ latestRevision: revision, updatedAt: ctx.clock.now() })
        .where('id = :id AND environment = :env AND latest_revision = :prev', {
          id: w.id,
          env: w.environment,
          prev: w.latestRevision,
        })
        .execute();
      if (res.affected !== 1)
        throw new AppError('session_state_conflict', 'The workflow was published concurrently; retry.');
      const r = Object.assign(new WorkflowRevisionEntity(), {
        id: newId('wfr'),
        workflowId: w.id,
        businessId: w.businessId,
        revision,
        name: w.name,
        apiOnly: w.apiOnly,
        steps: JSON.stringify(steps),
        intendedUse: w.intendedUse ?? null,
        publishedAt: ctx.clock.now(),
      });
      await m.getRepository(WorkflowRevisionEntity).insert(r);
      return toRevisionView(r);
    });
  }

  async revisions(ctx: Ctx, id: string): Promise<RevisionView[]> {
    const w = await this.load(ctx, id, this.deps.ds.manager);
    const rows = await this.deps.ds
      .getRepository(WorkflowRevisionEntity)
      .find({ where: { workflowId: w.id, businessId: w.businessId }, order: { revision: 'ASC' } });
    return rows.map(toRevisionView);
  }

  /**
   * The latest published revision of a workflow of this business and environment, for pinning a new session:
   * a session only ever runs a workflow of its own environment.
   */
  async latestPublished(
    m: EntityManager,
    businessId: string,
    environment: 'sandbox' | 'production',
    workflowId: string,
  ): Promise<WorkflowRevisionEntity> {
    const w = await m.getRepository(WorkflowEntity).findOneBy({ id: workflowId, businessId, environment });
    if (!w) throw new AppError('workflow_not_found', 'No workflow with this id.', { param: 'workflow_id' });
    if (w.latestRevision === 0)
      throw new AppError('workflow_not_published', 'Publish the workflow before creating sessions.', {
        param: 'workflow_id',
      });
    const r = await m
      .getRepository(WorkflowRevisionEntity)
      .findOneBy({ workflowId, revision: w.latestRevision });
    if (!r) throw new AppError('internal_error', 'Published revision missing.');
    return r;
  }

  async revision(
    m: EntityManager,
    workflowId: string,
    revision: number,
  ): Promise<Readonly<WorkflowRevisionEntity>> {
    const key = `${workflowId}:${revision}`;
    const kept = this.keptRevisions.get(key);
    if (kept) return kept;
    const r = await m.getRepository(WorkflowRevisionEntity).findOneBy({ workflowId, revision });
    if (!r) throw new AppError('internal_error', 'Pinned revision missing.');
    // a row read inside a transaction may still roll back: only a committed read (no query runner) is kept
    if (!m.queryRunner) {
      if (this.keptRevisions.size >= KEPT_REVISIONS)
        this.keptRevisions.delete(this.keptRevisions.keys().next().value as string);
      this.keptRevisions.set(key, Object.freeze(r));
    }
    return r;
  }

  /** A workflow of the caller's business and environment; any other is "not found", never "forbidden". */
  private async load(ctx: Ctx, id: string, m: EntityManager): Promise<WorkflowEntity> {
    const { businessId, environment } = tenantOf(ctx);
    const w = await m.getRepository(WorkflowEntity).findOneBy({ id, businessId, environment });
    if (!w) throw new AppError('workflow_not_found', 'No workflow with this id.', { param: 'id' });
    return w;
  }
}
