// Owns the business side of sessions: create (with Idempotency-Key, reserved on the session row: ADR 0024),
// read for reconciliation, continue and stop at a gate, the expiry sweep and the gate reminder
// (session.decision_due). The hosted-page side lives in session.transport.ts.

import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { newId, sha256Hex } from '../../common/ids';
import type { Config } from '../../config/config';
import { isMysql, isUniqueViolation, lockSessionRow, transactionWithRetry } from '../../db/data-source';
import { columnList, hydrate, insertRow, paramFor, sql } from '../../db/fast-sql';
import { checkReturnUrl } from '../branding/branding.service';
import type { CatalogService } from '../catalog/catalog.service';
import { assertPrimitivesOffered } from '../catalog/catalog.service';
import type { DocumentService, PlannedDocument } from '../document/document.service';
import type { UploadedFile } from '../document/multipart';
import type { KeyJoin } from '../tenancy/tenancy.service';
import { enqueueEvent } from '../webhook/outbox';
import type { WebhookService } from '../webhook/webhook.service';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { STEP_WINDOW_MINUTES } from '../workflow/workflow.steps';
import {
  type CreateSessionInput,
  parseCreateInput,
  SESSION_LIMITS,
  type SessionCreated,
  type SessionView,
  type StepResultView,
} from './session.contract';
import {
  createInOneTrip,
  insertIfCurrent,
  knownRevision,
  readCreateContext,
  rememberRevision,
} from './session.create-context';
import { SessionEntity } from './session.entity';
import { isTerminal } from './session.machine';
import {
  applyTransition,
  enforceExpiry,
  type FailureReason,
  isOverdue,
  rereadSession,
} from './session.state';
import { StepResultEntity } from './step-result.entity';

// The create input's rules, the spec's limits and the answer shapes are the route contract's (ADR 0037).
export {
  type CreateSessionInput,
  SESSION_LIMITS,
  type SessionCreated,
  type SessionView,
  type StepResultView,
} from './session.contract';

export interface SessionDeps {
  ds: DataSource;
  config: Pick<Config, 'hostedUrl' | 'decisionDueHours'>;
  clock: Clock;
  workflows: WorkflowService;
  webhooks: Pick<WebhookService, 'hasEndpoint'>;
  /** Refuses a workflow whose primitives have no credential route available in the environment. */
  catalog: Pick<CatalogService, 'assertAvailable'>;
  /** Sign-step documents: which uploads a workflow takes, and storing them at creation. */
  documents: Pick<DocumentService, 'plan' | 'store' | 'ensureStored'>;
  /** Called after a commit that queued webhook events (wakes the relay). */
  onEventsQueued?: () => void;
}

const isDuplicateKey = isUniqueViolation;

/** A repeat waited longer than the database's lock wait for the first request with its key. */
const isLockWaitTimeout = (e: unknown): boolean => {
  const err = e as { code?: string; driverError?: { code?: string } };
  return (err?.driverError?.code ?? err?.code) === 'ER_LOCK_WAIT_TIMEOUT';
};

/**
 * Attempts of a create. When the holder of a key rolls back, InnoDB deadlocks the repeats that waited on its
 * index entry; one takes the key over, the others re-run. Each failing holder costs a waiter at most one
 * attempt, and at most as many requests as the connection pool (20) wait at once.
 */
const CREATE_ATTEMPTS = 50;

/**
 * Rounds of create-then-replay: a replay finds no session when the key was released meanwhile (24 h passed,
 * or the holder rolled back after the duplicate was seen); the request is then new and creates again.
 */
const KEY_ROUNDS = 3;

class IdempotentReplay extends Error {}

/** What a create answers: 201 with the session, `replayed` when an earlier request with the key created it. */
export interface CreateOutcome {
  statusCode: number;
  session: SessionCreated;
  replayed: boolean;
}

/** The 409 of a repeat that waited longer than the database's lock wait for the first request with its key. */
const inProgress = (cause: unknown): AppError =>
  new AppError(
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still in progress; retry.',
    {
      cause,
    },
  );

const RETENTION_MS = SESSION_LIMITS.idempotencyRetentionHours * 3600_000;

const keyedStatements = new WeakMap<DataSource, { read: string; release: string }>();
/**
 * The two statements of a replay, on the unique index (business_id, environment, idem_key): the session that
 * holds a key, and the guarded release of a key past its 24 h (only if that session still holds it).
 */
function keyedStatement(ds: DataSource): { read: string; release: string } {
  let s = keyedStatements.get(ds);
  if (!s) {
    s = {
      read: `SELECT ${columnList(ds, SessionEntity)} FROM session WHERE business_id = ? AND environment = ? AND idem_key = ?`,
      release:
        'UPDATE session SET idem_key = NULL WHERE id = ? AND business_id = ? AND environment = ? AND idem_key = ?',
    };
    keyedStatements.set(ds, s);
  }
  return s;
}

/** The row of a new session (status created), pinned to `revision`. */
function sessionRow(a: {
  id: string;
  businessId: string;
  environment: 'sandbox' | 'production';
  workflowId: string;
  metadata: Record<string, unknown> | null;
  expiresIn: number;
  now: Date;
  revision: number;
  returnUrl: string | null;
  /** SHA-256 hex of the Idempotency-Key, which the row reserves (ADR 0024). */
  idemKey: string | null;
}): SessionEntity {
  return Object.assign(new SessionEntity(), {
    id: a.id,
    businessId: a.businessId,
    environment: a.environment,
    workflowId: a.workflowId,
    workflowRevision: a.revision,
    status: 'created',
    version: 0,
    currentStage: 0,
    metadata: a.metadata ? JSON.stringify(a.metadata) : null,
    expiresAt: new Date(a.now.getTime() + a.expiresIn * 1000),
    stepExpiresAt: null,
    bindingHash: null,
    createdAt: a.now,
    updatedAt: a.now,
    endedAt: null,
    failureReason: null,
    returnUrl: a.returnUrl,
    idemKey: a.idemKey,
  } satisfies Partial<SessionEntity>);
}

/** The create input's rules: the route contract's (session.contract.ts), with their stable error codes. */
export function validateCreateInput(input: CreateSessionInput): {
  workflowId: string;
  metadata: Record<string, unknown> | null;
  expiresIn: number;
} {
  return parseCreateInput(input);
}

export function validateIdempotencyKey(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  if (key.length === 0 || key.length > SESSION_LIMITS.idempotencyKeyMaxLength || !/^[\x21-\x7e]+$/.test(key))
    throw new AppError(
      'validation_failed',
      `Idempotency-Key must be 1-${SESSION_LIMITS.idempotencyKeyMaxLength} printable ASCII characters.`,
      { param: 'Idempotency-Key' },
    );
  return key;
}

/** The step window end for a step starting now, never beyond the overall expiry. */
export function stepWindowEnd(step: WorkflowStep, now: Date, overall: Date): Date {
  const end = new Date(now.getTime() + STEP_WINDOW_MINUTES[step.primitive] * 60_000);
  return end < overall ? end : overall;
}

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

const getStatements = new WeakMap<DataSource, string>();
/**
 * GET's one statement: the session's columns as they are, its results' columns prefixed r_. No ORDER BY: with
 * the TEXT columns in the row, MariaDB sorts through an on-disk temporary table; results are sorted in JS.
 */
function getStatement(ds: DataSource): string {
  let s = getStatements.get(ds);
  if (!s) {
    s = `SELECT ${columnList(ds, SessionEntity, 's')}, ${columnList(ds, StepResultEntity, 'r', 'r_')}
FROM session s LEFT JOIN ${resultsOf(ds)} ON r.session_id = s.id
WHERE s.id = ? AND s.business_id = ? AND s.environment = ?`;
    getStatements.set(ds, s);
  }
  return s;
}

const getJoins = new WeakMap<DataSource, KeyJoin>();

/** The statuses that can expire (created, in_progress: see isOverdue). */
const SWEPT_STATUSES = ['created', 'in_progress'] as const;

const sweeps = new WeakMap<DataSource, Map<number, [string, string]>>();
/**
 * The sweeper's two reads. Each is one range scan on its own index, (status, expires_at) and (status,
 * step_expires_at): `status IN (…) AND <deadline> <= ?` reads only the overdue entries. No ORDER BY (a filesort
 * of rows with TEXT columns goes through a temporary table); the index order is the natural order anyway.
 * session.sweeper.test.ts checks the plans with EXPLAIN.
 */
export function sweepStatements(ds: DataSource, batch: number): [string, string] {
  if (!Number.isInteger(batch) || batch < 1) throw new Error('batch must be a positive integer');
  let perDs = sweeps.get(ds);
  if (!perDs) {
    perDs = new Map();
    sweeps.set(ds, perDs);
  }
  let s = perDs.get(batch);
  if (!s) {
    const cols = columnList(ds, SessionEntity);
    const q = (col: string, index: string) =>
      // sql-lint-allow: session-scope: the expiry sweeper scans overdue sessions of every tenant by design (a scatter query on Vitess)
      `SELECT ${cols} FROM session${isMysql(ds) ? ` FORCE INDEX (${index})` : ''} WHERE status IN (?, ?) AND ${col} <= ? LIMIT ${batch}`;
    s = [
      q('expires_at', 'IDX_session_status_expires'),
      q('step_expires_at', 'IDX_session_status_step_expires'),
    ];
    perDs.set(batch, s);
  }
  return s;
}

export class SessionService {
  constructor(private readonly deps: SessionDeps) {}

  hostedUrlOf(id: string): string {
    return `${this.deps.config.hostedUrl}/s/${id}`;
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
   * Creates a session pinned to the latest published revision. With an Idempotency-Key the session row itself
   * reserves the key (`idem_key`, unique per tenant: ADR 0024): a concurrent repeat waits on the first insert's
   * index entry and then replays the original; a key whose session is 24 h old is released and used again.
   */
  async create(
    ctx: Ctx,
    input: CreateSessionInput,
    idempotencyKey?: string,
    /** File parts of a multipart create (null or absent: a JSON create, which carries no documents). */
    uploads?: UploadedFile[] | null,
    /**
     * Set when the caller's API key was recognised without reading its row (the lean lane, ADR 0025): the
     * one-statement create checks the key in its INSERT; every other path calls this first (401 if revoked).
     */
    confirmKey?: () => Promise<void>,
  ): Promise<CreateOutcome> {
    const tenant = tenantOf(ctx);
    // the key is stored as its SHA-256: the column collation is case-insensitive, keys are not
    const rawKey = validateIdempotencyKey(idempotencyKey);
    const key = rawKey === undefined ? undefined : sha256Hex(rawKey);
    if (!key) return this.createNew(ctx, input, undefined, uploads, confirmKey);
    for (let round = 1; ; round++) {
      try {
        return await this.createNew(ctx, input, key, uploads, confirmKey);
      } catch (e) {
        if (isLockWaitTimeout(e)) throw inProgress(e);
        // A refused create writes nothing, so its key stays free; but bodies are not compared, so a repeat of
        // a request that succeeded replays even when this body would be refused.
        const refused = e instanceof AppError && e.status < 500;
        if (!refused && !(e instanceof IdempotentReplay) && !isDuplicateKey(e)) throw e;
        // a replay answers with a stored session: only to a key confirmed now (401 if revoked since)
        await confirmKey?.();
        const replayed = await this.replay(tenant.businessId, tenant.environment, key);
        if (replayed) return replayed;
        if (refused) throw e;
        // the key was released meanwhile (24 h passed, or its holder rolled back): this is a new request
        if (round >= KEY_ROUNDS) throw inProgress(e);
      }
    }
  }

  /** One create: the one-round-trip path when it applies, else the full transaction (retried on deadlock). */
  private async createNew(
    ctx: Ctx,
    input: CreateSessionInput,
    key: string | undefined,
    uploads: UploadedFile[] | null | undefined,
    confirmKey: (() => Promise<void>) | undefined,
  ): Promise<CreateOutcome> {
    const fast = await this.createInOneTrip(ctx, input, key, uploads);
    if (fast) return { statusCode: 201, session: this.created(fast), replayed: false };
    await confirmKey?.(); // the INSERT did not run or refused: the key may be revoked (ADR 0025)
    // The documents the committed attempt stored (their blobs are re-put after commit).
    let stored: PlannedDocument[] = [];
    // Retried on deadlock: waiters on a key whose holder rolled back deadlock on its index entry (InnoDB), and
    // the same key inserted through two Galera members fails certification on one of them.
    // A transaction: the session and its documents commit together.
    const s = await transactionWithRetry(
      this.deps.ds,
      async (m) => {
        const out = await this.createAttempt(m, ctx, input, key, uploads);
        stored = out.documents;
        return out.session;
      },
      CREATE_ATTEMPTS,
    );
    if (stored.length > 0) await this.deps.documents.ensureStored(stored); // see ensureStored: cleanup race
    return { statusCode: 201, session: this.created(s), replayed: false };
  }

  /**
   * One attempt of the full create, in its transaction `m`: validates, reads the configuration, inserts the
   * session (carrying the key) and stores its documents. A duplicate of the key surfaces as IdempotentReplay.
   */
  private async createAttempt(
    m: EntityManager,
    ctx: Ctx,
    input: CreateSessionInput,
    key: string | undefined,
    uploads: UploadedFile[] | null | undefined,
  ): Promise<{ session: SessionEntity; documents: PlannedDocument[] }> {
    const { ds, clock } = this.deps;
    const tenant = tenantOf(ctx);
    const { businessId, environment } = tenant;
    const now = clock.now();
    const id = newId('sess');
    const { workflowId, metadata, expiresIn } = validateCreateInput(input);
    const returnUrl = await checkReturnUrl(m, tenant, input.return_url);
    const newSession = (revision: number) =>
      sessionRow({
        id,
        businessId,
        environment,
        workflowId,
        metadata,
        expiresIn,
        now,
        revision,
        returnUrl,
        idemKey: key ?? null,
      });
    const keyed = async <T>(write: Promise<T>): Promise<T> => {
      try {
        return await write;
      } catch (e) {
        // session ids are random: a duplicate is the key's unique index
        if (key && isDuplicateKey(e)) throw new IdempotentReplay();
        throw e;
      }
    };
    // Fast path (JSON create): one INSERT … SELECT that checks, as committed now, that the revision
    // seen last is still the latest, the endpoint exists and the catalog has not changed since its routes
    // offered the revision's primitives (session.create-context.ts, ADR 0025). A workflow with a sign step
    // takes files, so never this path.
    // Only API-key creates take the remembered paths: a dashboard create must read the revision's API-only flag.
    const viaApi = ctx.actor.kind === 'api_key';
    const seen = viaApi && !uploads ? knownRevision(tenant, workflowId) : undefined;
    if (seen && !seen.primitives.includes('sign')) {
      const session = newSession(seen.revision.revision);
      if (await keyed(insertIfCurrent(ds, m, session, seen))) return { session, documents: [] };
    }
    // workflow + revision, webhook endpoint and credential routes in one statement (session.create-context.ts)
    const cfg = await readCreateContext(ds, m, tenant, workflowId);
    // spec §1 "API-only access": the published revision's flag decides; only an API key creates its sessions
    if (cfg.revision.apiOnly && !viaApi)
      throw new AppError(
        'workflow_api_only',
        'This workflow is set to API-only access: create its sessions with an API key (POST /v1/sessions), ' +
          'or publish a revision without API-only access to create them from the dashboard.',
      );
    const steps = toRevisionView(cfg.revision).steps;
    // Every refusal about documents happens here, before anything is written (no row, no blob).
    const documents = this.deps.documents.plan(steps, uploads ?? null);
    assertPrimitivesOffered(cfg.offered, environment, steps);
    if (!cfg.hasEndpoint)
      throw new AppError(
        'webhook_endpoint_required',
        `Configure a webhook endpoint for the ${environment} environment before creating sessions.`,
      );
    rememberRevision(tenant, workflowId, cfg, steps);
    const session = newSession(cfg.revision.revision);
    // no `created` timeline row: the timeline derives it from the session row (ADR 0023)
    await keyed(insertRow(ds, SessionEntity, session, m));
    // Exact bytes, content-addressed and write-once; the rows commit with the session or not at all.
    if (documents.length > 0) await this.deps.documents.store(m, session, documents, now);
    return { session, documents };
  }

  /**
   * The common create in one round trip (session.create-context.ts createInOneTrip): a JSON body
   * that validates, no return_url (its check reads the business's origins), a workflow whose revision this
   * process has pinned before and that has no sign step. Undefined when this path does not apply or the
   * configuration changed since (nothing was written): the caller takes the full path, which refuses with the
   * precise error or pins the new revision. Throws IdempotentReplay when another request holds the key.
   */
  private async createInOneTrip(
    ctx: Ctx,
    input: CreateSessionInput,
    key: string | undefined,
    uploads: UploadedFile[] | null | undefined,
  ): Promise<SessionEntity | undefined> {
    const { ds, clock } = this.deps;
    if (uploads || (input.return_url !== undefined && input.return_url !== null)) return;
    if (ctx.actor.kind !== 'api_key') return; // the full path checks API-only access
    const tenant = tenantOf(ctx);
    const workflowId = typeof input.workflow_id === 'string' ? input.workflow_id : undefined;
    const seen = workflowId ? knownRevision(tenant, workflowId) : undefined;
    if (!workflowId || !seen || seen.primitives.includes('sign')) return;
    let valid: ReturnType<typeof validateCreateInput>;
    try {
      valid = validateCreateInput(input);
    } catch {
      return; // refused on the full path, which names the field at fault
    }
    const { businessId, environment } = tenant;
    const session = sessionRow({
      id: newId('sess'),
      businessId,
      environment,
      workflowId,
      metadata: valid.metadata,
      expiresIn: valid.expiresIn,
      now: clock.now(),
      revision: seen.revision.revision,
      returnUrl: null,
      idemKey: key ?? null,
    });
    const outcome = await createInOneTrip(
      ds,
      session,
      seen,
      ctx.actor.kind === 'api_key' ? ctx.actor.apiKeyId : undefined,
    );
    if (outcome === 'key_taken') throw new IdempotentReplay();
    return outcome === 'created' ? session : undefined;
  }

  /**
   * The original answer for a key: the session that holds it. Null when no session holds it (the key is free)
   * or its session is 24 h old: the key is then released by a guarded write (only if that session still holds
   * it), so the caller creates a new session with it.
   */
  private async replay(
    businessId: string,
    environment: 'sandbox' | 'production',
    key: string,
  ): Promise<CreateOutcome | null> {
    const { ds, clock } = this.deps;
    const { read, release } = keyedStatement(ds);
    const row = (await sql(ds, read, [businessId, environment, key]))[0];
    if (!row) return null;
    const s = hydrate(ds, SessionEntity, row);
    if (s.createdAt.getTime() + RETENTION_MS <= clock.now().getTime()) {
      await sql(ds, release, [s.id, businessId, environment, key]);
      return null;
    }
    return { statusCode: 201, session: this.created(s), replayed: true };
  }

  /** Loads a session of the caller's tenant (another tenant's is "not found") with expiry enforced. */
  async load(ctx: Ctx, id: string): Promise<SessionEntity> {
    const { businessId, environment } = tenantOf(ctx);
    const s = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id, businessId, environment });
    if (!s) throw new AppError('not_found', 'No session with this id.');
    return enforceExpiry(this.deps.ds, this.deps.clock, s, this.deps.onEventsQueued);
  }

  /**
   * The session with its results in one statement (session LEFT JOIN step_result), expiry enforced. The read
   * is tenant-scoped like load(): another tenant's session is "not found".
   */
  async get(ctx: Ctx, id: string): Promise<SessionView> {
    const { businessId, environment } = tenantOf(ctx);
    const { ds } = this.deps;
    return this.viewOfRows(await sql(ds, getStatement(ds), [id, businessId, environment]));
  }

  /**
   * The GET's read as a join to the API key row `k` (tenancy `authenticateAnd`: key and session in one
   * statement, the lean lane's GET): the session and its results, restricted to the key's business and
   * environment. Rows without a session (`id` NULL) mean no such session for this tenant. Only the columns the
   * view reads (SESSION_VIEW, RESULT_VIEW): the rows go to `viewOfJoin`.
   */
  getJoin(id: string): { join: KeyJoin; params: unknown[] } {
    const { ds } = this.deps;
    let join = getJoins.get(ds);
    if (!join) {
      join = {
        columns: `${columnList(ds, SessionEntity, 's', undefined, SESSION_VIEW)}, ${columnList(ds, StepResultEntity, 'r', 'r_', RESULT_VIEW)}`,
        from: `LEFT JOIN session s ON s.id = ? AND s.business_id = k.business_id AND s.environment = k.environment LEFT JOIN ${resultsOf(ds)} ON r.session_id = s.id`,
      };
      getJoins.set(ds, join);
    }
    return { join, params: [id] };
  }

  /**
   * The session view from getJoin's rows. A session that is overdue (isOverdue) is read again whole, through
   * `get`, whose expiry write needs every column; that read is tenant-scoped like the join.
   */
  async viewOfJoin(ctx: Ctx, id: string, rows: Record<string, unknown>[]): Promise<SessionView> {
    const { ds, clock } = this.deps;
    if (!rows[0] || rows[0].id === null || rows[0].id === undefined)
      throw new AppError('not_found', 'No session with this id.');
    const s = hydrate(ds, SessionEntity, rows[0], '', SESSION_VIEW);
    if (isOverdue(s, clock.now())) return this.get(ctx, id);
    return this.view(s, rows);
  }

  /** The session view from the GET's rows (session columns, results prefixed `r_`); expiry enforced on read. */
  async viewOfRows(rows: Record<string, unknown>[]): Promise<SessionView> {
    const { ds } = this.deps;
    if (!rows[0] || rows[0].id === null || rows[0].id === undefined)
      throw new AppError('not_found', 'No session with this id.');
    const s = await enforceExpiry(
      ds,
      this.deps.clock,
      hydrate(ds, SessionEntity, rows[0]),
      this.deps.onEventsQueued,
    );
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
    v.results = this.resultsOf(rows);
    v.decision_due =
      s.status === 'awaiting_decision' && s.decisionDueAt ? s.decisionDueAt.toISOString() : null;
    if (s.failureReason) v.failure_reason = JSON.parse(s.failureReason) as FailureReason;
    return v;
  }

  /** The results of the GET's rows (a session without results has one row, with NULL `r_` columns). */
  private resultsOf(rows: Record<string, unknown>[]): StepResultView[] {
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

  /**
   * Business continues a session waiting at a gate: the next step starts with a fresh step window, or the
   * session completes if the gate followed the last step. Continuing after the overall expiry has passed
   * starts a step that can never run, so the session expires in the same transaction.
   */
  async continue(ctx: Ctx, id: string): Promise<SessionView> {
    const s = await this.load(ctx, id);
    if (s.status !== 'awaiting_decision')
      throw new AppError(
        'session_state_conflict',
        `Only a session in awaiting_decision can be continued (it is ${s.status}).`,
      );
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const now = this.deps.clock.now();
    const nextStep = rev.steps[s.currentStage];
    const done = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      if (!nextStep) return applyTransition(m, s, 'continue_last', now);
      const moved = await applyTransition(m, s, 'continue', now, {
        stepExpiresAt: stepWindowEnd(nextStep, now, s.expiresAt),
      });
      return moved && now >= moved.expiresAt ? applyTransition(m, moved, 'expire', now) : moved;
    });
    if (!done) throw await this.lostRace(s, 'continued');
    this.deps.onEventsQueued?.();
    return this.get(ctx, id);
  }

  /** Business stops a session that has not ended (created, in_progress or awaiting_decision). */
  async stop(ctx: Ctx, id: string): Promise<SessionView> {
    const s = await this.load(ctx, id);
    if (isTerminal(s.status))
      throw new AppError('session_state_conflict', `The session has ended (it is ${s.status}).`);
    const done = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      return applyTransition(m, s, 'stop', this.deps.clock.now());
    });
    if (!done) throw await this.lostRace(s, 'stopped');
    this.deps.onEventsQueued?.();
    return this.get(ctx, id);
  }

  /** The 409 for a guarded write that lost: names the state the winner left (expiry enforced). */
  private async lostRace(s: SessionEntity, verb: string): Promise<AppError> {
    const fresh = await rereadSession(this.deps.ds, this.deps.clock, s.id, this.deps.onEventsQueued);
    return new AppError(
      'session_state_conflict',
      `The session changed meanwhile and was not ${verb} (it is ${fresh?.status ?? s.status}).`,
    );
  }

  /**
   * Expires overdue sessions nobody reads, so the business still hears session.expired. A pass costs what is
   * overdue, not what is live: two index range scans (SWEEP_STATEMENTS, one per deadline column), in batches
   * of `batch` until none is due (at most `maxBatches` per pass, so one pass never runs unbounded). Each
   * session expires through enforceExpiry's guarded write: racing sweepers and readers, on any node, queue
   * exactly one session.expired.
   */
  async sweepOverdue(batch = 100, maxBatches = 100): Promise<number> {
    const { ds, clock } = this.deps;
    const [byExpiry, byStep] = sweepStatements(ds, batch);
    let expired = 0;
    for (let i = 0; i < maxBatches; i++) {
      const params = [...SWEPT_STATUSES, paramFor(ds, SessionEntity, 'expiresAt', clock.now())];
      const [a, b] = await Promise.all([sql(ds, byExpiry, params), sql(ds, byStep, params)]);
      const due = new Map<string, SessionEntity>();
      for (const row of [...a, ...b]) {
        const s = hydrate(ds, SessionEntity, row);
        due.set(s.id, s);
      }
      let n = 0;
      for (const s of due.values()) {
        // counted only when this pass's guarded write won (onQueued runs for the winner alone)
        await enforceExpiry(ds, clock, s, () => {
          n++;
          this.deps.onEventsQueued?.();
        });
      }
      expired += n;
      // Done when both scans came back short; also stop if nothing could be expired (another node won them
      // all, or the rows changed): the next pass picks up whatever is still due.
      if ((a.length < batch && b.length < batch) || n === 0) break;
    }
    return expired;
  }

  /**
   * Queues session.decision_due once per gate for sessions whose decision is overdue (ADR 0008). The guarded
   * write on decision_reminded_at decides who queues it, so racing sweepers (several nodes) queue it once.
   */
  async sweepDecisionsDue(limit = 100): Promise<number> {
    const { ds, clock } = this.deps;
    const now = clock.now();
    const repo = ds.getRepository(SessionEntity);
    // sessions that reached their gate before deadlines existed get one, counted from when they arrived there
    const undated = await repo
      .createQueryBuilder('s')
      .where('s.status = :st AND s.decision_due_at IS NULL', { st: 'awaiting_decision' })
      .limit(limit)
      .getMany();
    for (const s of undated)
      await repo
        .createQueryBuilder()
        .update(SessionEntity)
        .set({
          decisionDueAt: new Date(s.updatedAt.getTime() + this.deps.config.decisionDueHours * 3600_000),
        })
        .where('id = :id AND status = :st AND decision_due_at IS NULL', { id: s.id, st: 'awaiting_decision' })
        .execute();
    const due = await repo
      .createQueryBuilder('s')
      .where('s.status = :st AND s.decision_reminded_at IS NULL AND s.decision_due_at <= :now', {
        st: 'awaiting_decision',
        now,
      })
      .limit(limit)
      .getMany();
    let n = 0;
    for (const s of due) {
      const queued = await transactionWithRetry(ds, async (m) => {
        await lockSessionRow(m, s.id);
        const won = await m
          .createQueryBuilder()
          .update(SessionEntity)
          .set({ decisionRemindedAt: now })
          .where(
            'id = :id AND status = :st AND version = :v AND decision_reminded_at IS NULL AND decision_due_at <= :now',
            { id: s.id, st: 'awaiting_decision', v: s.version, now },
          )
          .execute();
        if (won.affected !== 1) return false;
        await enqueueEvent(m, {
          businessId: s.businessId,
          environment: s.environment,
          sessionId: s.id,
          event: 'session.decision_due',
          data: {
            session_id: s.id,
            status: 'awaiting_decision',
            workflow_id: s.workflowId,
            workflow_revision: s.workflowRevision,
            completed_steps: s.currentStage,
            decision_due: (s.decisionDueAt as Date).toISOString(),
          },
          now,
        });
        return true;
      });
      if (queued) n++;
    }
    if (n > 0) this.deps.onEventsQueued?.();
    return n;
  }
}
