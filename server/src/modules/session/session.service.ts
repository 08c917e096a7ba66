// Owns the business side of sessions: create (session.create.ts), read for reconciliation
// (session.read.ts), continue and stop at a gate, and the background passes (session.sweeper.ts). Every
// change of a session goes through the transition API (session.transition.ts). The hosted-page side lives in
// session.transport.ts.

import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import type { Config } from '../../config/config';
import type { CatalogService } from '../catalog/catalog.service';
import type { DocumentService } from '../document/document.service';
import type { UploadedFile } from '../document/multipart';
import type { KeyJoin } from '../tenancy/tenancy.service';
import type { WebhookService } from '../webhook/webhook.service';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import { type CreatePaths, SessionCreator } from './session.create';
import { SessionEntity } from './session.entity';
import { type CreateSessionInput, stepWindowEnd } from './session.input';
import { allows, type SessionEvent, TRANSITIONS } from './session.machine';
import { type SessionCreated, SessionReader, type SessionView, type StepResultView } from './session.read';
import { SessionSweeper } from './session.sweeper';
import { SessionTransitions, type TransitionDeps } from './session.transition';

export {
  type CreateSessionInput,
  SESSION_LIMITS,
  stepWindowEnd,
  validateCreateInput,
  validateIdempotencyKey,
} from './session.input';
export type { SessionCreated, SessionView, StepResultView } from './session.read';
export { sweepStatements } from './session.sweeper';

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
  onEventsQueued?: TransitionDeps['onEventsQueued'];
  /** This node's relay's claim on the events a transition queues (ADR 0071). */
  claimAtCommit?: TransitionDeps['claimAtCommit'];
}

/** What a create answers: 201 with the session, `replayed` when an earlier request with the key created it. */
export interface CreateOutcome {
  statusCode: number;
  session: SessionCreated;
  replayed: boolean;
}

export class SessionService {
  /** The one way this service changes a session (also used by the hosted side's own instance). */
  readonly transitions: SessionTransitions;
  private readonly creator: SessionCreator;
  private readonly reader: SessionReader;
  private readonly sweeper: SessionSweeper;

  constructor(private readonly deps: SessionDeps) {
    const { ds, clock, config, onEventsQueued, claimAtCommit } = deps;
    this.transitions = new SessionTransitions({ ds, clock, onEventsQueued, claimAtCommit });
    this.creator = new SessionCreator({ ds, clock, documents: deps.documents });
    this.reader = new SessionReader({
      ds,
      clock,
      hostedUrl: config.hostedUrl,
      transitions: this.transitions,
    });
    this.sweeper = new SessionSweeper({
      ds,
      clock,
      decisionDueHours: config.decisionDueHours,
      transitions: this.transitions,
    });
  }

  /** Which way this instance's creates went (remembered or read facts, with documents, stale guesses). */
  get createPaths(): Readonly<CreatePaths> {
    return this.creator.paths;
  }

  hostedUrlOf(id: string): string {
    return this.reader.hostedUrlOf(id);
  }

  created(
    s: Pick<SessionEntity, 'id' | 'workflowId' | 'workflowRevision' | 'status' | 'expiresAt'>,
  ): SessionCreated {
    return this.reader.created(s);
  }

  /**
   * Creates a session pinned to the latest published revision (session.create.ts: one path on both engines).
   * With an Idempotency-Key the session row itself reserves the key (ADR 0024).
   */
  async create(
    ctx: Ctx,
    input: CreateSessionInput,
    idempotencyKey?: string,
    /** File parts of a multipart create (null or absent: a JSON create, which carries no documents). */
    uploads?: UploadedFile[] | null,
  ): Promise<CreateOutcome> {
    const out = await this.creator.create(ctx, input, idempotencyKey, uploads);
    // a replay answers the session as it is now: expiry enforced like on every read (ADR 0048)
    const session = out.replayed ? await this.transitions.current(out.session) : out.session;
    return { statusCode: 201, session: this.reader.created(session), replayed: out.replayed };
  }

  /** Loads a session of the caller's tenant (another tenant's is "not found") with expiry enforced. */
  async load(ctx: Ctx, id: string): Promise<SessionEntity> {
    const { businessId, environment } = tenantOf(ctx);
    const s = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id, businessId, environment });
    if (!s) throw new AppError('not_found', 'No session with this id.');
    return this.transitions.current(s);
  }

  /**
   * The session with its results in one statement (session LEFT JOIN step_result), expiry enforced. The read
   * is tenant-scoped like load(): another tenant's session is "not found".
   */
  async get(ctx: Ctx, id: string): Promise<SessionView> {
    const { businessId, environment } = tenantOf(ctx);
    return this.reader.get(id, businessId, environment);
  }

  /** The GET's read as a join to the API key row (session.read.ts getJoin). */
  getJoin(id: string): { join: KeyJoin; params: unknown[] } {
    return this.reader.getJoin(id);
  }

  /** The session view from getJoin's rows (session.read.ts viewOfJoin). */
  async viewOfJoin(ctx: Ctx, id: string, rows: Record<string, unknown>[]): Promise<SessionView> {
    return this.reader.viewOfJoin(tenantOf(ctx), id, rows);
  }

  /** The session view from the GET's rows; expiry enforced on read. */
  async viewOfRows(rows: Record<string, unknown>[]): Promise<SessionView> {
    return this.reader.viewOfRows(rows);
  }

  async results(m: EntityManager, sessionId: string): Promise<StepResultView[]> {
    return this.reader.results(m, sessionId);
  }

  /**
   * Business continues a session waiting at a gate: the next step starts with a fresh step window, or the
   * session completes if the gate followed the last step. Continuing after the overall expiry has passed
   * starts a step that can never run, so the session expires in the same transaction.
   */
  async continue(ctx: Ctx, id: string): Promise<SessionView> {
    const s = await this.load(ctx, id);
    assertContinuable(s);
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const nextStep = rev.steps[s.currentStage];
    await this.transitions.run(
      s,
      async (tx) => {
        if (!nextStep) return tx.move('continue_last');
        const moved = await tx.move('continue', {
          stepExpiresAt: stepWindowEnd(nextStep, tx.now, s.expiresAt),
        });
        return tx.now >= moved.expiresAt ? tx.move('expire') : moved;
      },
      (fresh) => void assertContinuable(fresh),
    );
    return this.get(ctx, id);
  }

  /** Business stops a session that has not ended (created, in_progress or awaiting_decision). */
  async stop(ctx: Ctx, id: string): Promise<SessionView> {
    const s = await this.load(ctx, id);
    assertStoppable(s);
    await this.transitions.run(
      s,
      (tx) => tx.move('stop'),
      (fresh) => void assertStoppable(fresh),
    );
    return this.get(ctx, id);
  }

  /** Expires overdue sessions nobody reads (session.sweeper.ts). */
  sweepOverdue(batch = 100, maxBatches = 100): Promise<number> {
    return this.sweeper.sweepOverdue(batch, maxBatches);
  }

  /** Queues session.decision_due once per gate for overdue decisions (session.sweeper.ts). */
  sweepDecisionsDue(limit = 100): Promise<number> {
    return this.sweeper.sweepDecisionsDue(limit);
  }
}

/** The business's two moves, guarded by the machine's table (session.machine.ts TRANSITIONS), never a list here. */
function assertAllowed(s: SessionEntity, event: Extract<SessionEvent, 'continue' | 'stop'>): void {
  if (allows(event, s.status)) return;
  throw new AppError(
    'session_state_conflict',
    event === 'stop'
      ? `The session has ended (it is ${s.status}).`
      : `Only a session in ${TRANSITIONS.continue.from.join(' or ')} can be continued (it is ${s.status}).`,
  );
}
const assertContinuable = (s: SessionEntity): void => assertAllowed(s, 'continue');
const assertStoppable = (s: SessionEntity): void => assertAllowed(s, 'stop');
