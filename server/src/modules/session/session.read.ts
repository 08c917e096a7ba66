// Owns the business's read of a session (GET /v1/sessions/{id}, the dashboard): one statement joining the
// session and its results (or that join appended to the API-key read by tenancy), and the view built from it.
// Statement texts are fields of the instance (one per SessionService). Expiry is enforced on read.
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { isMysql } from '../../db/data-source';
import { columnList, hydrate, sql } from '../../db/fast-sql';
import type { KeyJoin } from '../tenancy/tenancy.service';
import type { SessionCreated, SessionView, StepResultView } from './session.contract';
import { SessionEntity } from './session.entity';
import { type FailureReason, isOverdue } from './session.state';
import type { SessionTransitions } from './session.transition';
import { StepResultEntity } from './step-result.entity';

// The answer shapes are the route contract's (z.infer of its schemas, ADR 0037).
export type { SessionCreated, SessionView, StepResultView } from './session.contract';

/** The step_result columns a result view reads (not session_id, business_id). */
const RESULT_VIEW = [
  'stage',
  'primitive',
  'result',
  'auditId',
  'completedAt',
] as const satisfies readonly (keyof StepResultEntity)[];

/**
 * The session columns a view reads and expiry needs to decide (isOverdue: status, expires_at, step_expires_at).
 * An overdue session is re-read whole before its guarded expiry write (`viewOfJoin`).
 */
const SESSION_VIEW = [
  'id',
  'workflowId',
  'workflowRevision',
  'status',
  'metadata',
  'expiresAt',
  'stepExpiresAt',
  'decisionDueAt',
  'createdAt',
  'failureReason',
] as const satisfies readonly (keyof SessionEntity)[];
type SessionViewRow = Pick<SessionEntity, (typeof SESSION_VIEW)[number]>;

const resultView = (r: Pick<StepResultEntity, (typeof RESULT_VIEW)[number]>): StepResultView => ({
  stage: r.stage,
  primitive: r.primitive,
  audit_id: r.auditId,
  completed_at: r.completedAt.toISOString(),
  ...(JSON.parse(r.result) as Record<string, unknown>),
});

/**
 * The session's results, joined by the primary key's prefix. On MySQL/MariaDB the index is named: with the
 * session row a constant, the optimizer otherwise plans a range scan and runs its range analysis on every
 * execution. The forced plan is a `ref` lookup and costs MariaDB about 10-12 µs less CPU per GET (ADR 0025).
 */
const resultsOf = (ds: DataSource): string =>
  isMysql(ds) ? 'step_result r FORCE INDEX (PRIMARY)' : 'step_result r';

export class SessionReader {
  private getText: string | undefined;
  private join: KeyJoin | undefined;

  constructor(
    private readonly deps: {
      ds: DataSource;
      clock: Clock;
      hostedUrl: string;
      transitions: SessionTransitions;
    },
  ) {}

  hostedUrlOf(id: string): string {
    return `${this.deps.hostedUrl}/s/${id}`;
  }

  created(
    s: Pick<SessionEntity, 'id' | 'workflowId' | 'workflowRevision' | 'status' | 'expiresAt'>,
  ): SessionCreated {
    return {
      id: s.id,
      workflow_id: s.workflowId,
      workflow_revision: s.workflowRevision,
      url: this.hostedUrlOf(s.id),
      status: s.status,
      expires: s.expiresAt.toISOString(),
    };
  }

  /**
   * GET's one statement: the session's columns as they are, its results' columns prefixed r_. No ORDER BY: with
   * the TEXT columns in the row, MariaDB sorts through an on-disk temporary table; results are sorted in JS.
   */
  async get(id: string, businessId: string, environment: string): Promise<SessionView> {
    const { ds } = this.deps;
    this.getText ??= `SELECT ${columnList(ds, SessionEntity, 's')}, ${columnList(ds, StepResultEntity, 'r', 'r_')}
FROM session s LEFT JOIN ${resultsOf(ds)} ON r.session_id = s.id
WHERE s.id = ? AND s.business_id = ? AND s.environment = ?`;
    return this.viewOfRows(await sql(ds, this.getText, [id, businessId, environment]));
  }

  /**
   * The GET's read as a join to the API key row `k` (tenancy `authenticateAnd`: key and session in one
   * statement, the /v1 pipeline's GET: ADR 0023, 0037): the session and its results, restricted to the key's business and
   * environment. Rows without a session (`id` NULL) mean no such session for this tenant. Only the columns the
   * view reads (SESSION_VIEW, RESULT_VIEW): the rows go to `viewOfJoin`.
   */
  getJoin(id: string): { join: KeyJoin; params: unknown[] } {
    const { ds } = this.deps;
    this.join ??= {
      columns: `${columnList(ds, SessionEntity, 's', undefined, SESSION_VIEW)}, ${columnList(ds, StepResultEntity, 'r', 'r_', RESULT_VIEW)}`,
      from: `LEFT JOIN session s ON s.id = ? AND s.business_id = k.business_id AND s.environment = k.environment LEFT JOIN ${resultsOf(ds)} ON r.session_id = s.id`,
    };
    return { join: this.join, params: [id] };
  }

  /**
   * The session view from getJoin's rows. A session that is overdue (isOverdue) is read again whole, through
   * `get`, whose expiry write needs every column; that read is tenant-scoped like the join.
   */
  async viewOfJoin(
    tenant: { businessId: string; environment: string },
    id: string,
    rows: Record<string, unknown>[],
  ): Promise<SessionView> {
    const { ds, clock } = this.deps;
    if (!rows[0] || rows[0].id === null || rows[0].id === undefined)
      throw new AppError('not_found', 'No session with this id.');
    const s = hydrate(ds, SessionEntity, rows[0], '', SESSION_VIEW);
    if (isOverdue(s, clock.now())) return this.get(id, tenant.businessId, tenant.environment);
    return this.view(s, rows);
  }

  /** The session view from the GET's rows (session columns, results prefixed `r_`); expiry enforced on read. */
  async viewOfRows(rows: Record<string, unknown>[]): Promise<SessionView> {
    const { ds } = this.deps;
    if (!rows[0] || rows[0].id === null || rows[0].id === undefined)
      throw new AppError('not_found', 'No session with this id.');
    const s = await this.deps.transitions.current(hydrate(ds, SessionEntity, rows[0]));
    return this.view(s, rows);
  }

  /**
   * The view of a session (expiry already enforced) and its rows' results (prefixed `r_`): `created`'s object
   * with the view's fields added in the answer's key order. Built with spreads, the object took about three
   * times as long to build and serialize, on every GET.
   */
  private view(s: SessionViewRow, rows: Record<string, unknown>[]): SessionView {
    const v = this.created(s) as SessionView;
    v.created = s.createdAt.toISOString();
    v.metadata = s.metadata ? (JSON.parse(s.metadata) as Record<string, unknown>) : null;
    v.results = this.resultsOfRows(rows);
    v.decision_due =
      s.status === 'awaiting_decision' && s.decisionDueAt ? s.decisionDueAt.toISOString() : null;
    if (s.failureReason) v.failure_reason = JSON.parse(s.failureReason) as FailureReason;
    return v;
  }

  /** The results of the GET's rows (a session without results has one row, with NULL `r_` columns). */
  private resultsOfRows(rows: Record<string, unknown>[]): StepResultView[] {
    if (rows.length === 1 && (rows[0]?.r_stage === null || rows[0]?.r_stage === undefined)) return [];
    const { ds } = this.deps;
    return rows
      .filter((r) => r.r_stage !== null && r.r_stage !== undefined)
      .map((r) => hydrate(ds, StepResultEntity, r, 'r_', RESULT_VIEW))
      .sort((a, b) => a.stage - b.stage)
      .map(resultView);
  }

  async results(m: EntityManager, sessionId: string): Promise<StepResultView[]> {
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    const rows = await m
      .getRepository(StepResultEntity)
      .find({ where: { sessionId }, order: { stage: 'ASC' } });
    return rows.map(resultView);
  }
}
