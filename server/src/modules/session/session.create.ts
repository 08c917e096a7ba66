// Owns creating a session, the one path on both engines (ADR 0038): validate; the facts the create depends on
// (workflow revision, webhook endpoint, offered primitives under a catalog version) remembered from an earlier
// create of this instance or read in one statement (session.create-context.ts); then ONE guarded INSERT that
// re-checks those facts as committed (and, for an API-key actor, that the key is not revoked), in autocommit,
// or in a transaction only when the session's documents are stored with it. The Idempotency-Key is reserved on
// the session row itself (`idem_key`, unique per tenant: ADR 0024), for as long as the session exists (ADR 0048).
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { newId, sha256Hex } from '../../common/ids';
import { transactionWithRetry } from '../../db/data-source';
import { columnList, hydrate, sql } from '../../db/fast-sql';
import { checkReturnUrl } from '../branding/branding.service';
import { assertPrimitivesOffered } from '../catalog/catalog.service';
import type { DocumentService, PlannedDocument } from '../document/document.service';
import type { UploadedFile } from '../document/multipart';
import { toRevisionView } from '../workflow/workflow.service';
import {
  CreateContextReader,
  GuardedSessionInsert,
  type InsertOutcome,
  type KnownRevision,
  KnownRevisions,
} from './session.create-context';
import { SessionEntity } from './session.entity';
import { type CreateSessionInput, validateCreateInput, validateIdempotencyKey } from './session.input';

export interface CreatorDeps {
  ds: DataSource;
  clock: Clock;
  documents: Pick<DocumentService, 'plan' | 'store' | 'ensureStored'>;
}

/** What a create ended with: the session row, and whether an earlier request with the key created it. */
export interface Created {
  session: SessionEntity;
  replayed: boolean;
}

/**
 * Which way each create of this instance went (cheap counters; ADR 0038): facts `remembered` or `read`,
 * `documents` (the INSERT ran in a transaction with its documents), `stale` (the guard refused a remembered
 * or just-read fact, so the create read again), `replayed` (an Idempotency-Key repeat).
 */
export interface CreatePaths {
  remembered: number;
  read: number;
  documents: number;
  stale: number;
  replayed: number;
}

/** A repeat waited longer than the database's lock wait for the first request with its key. */
const isLockWaitTimeout = (e: unknown): boolean => {
  const err = e as { code?: string; driverError?: { code?: string } };
  return (err?.driverError?.code ?? err?.code) === 'ER_LOCK_WAIT_TIMEOUT';
};

/**
 * Attempts of a create's INSERT lost to a deadlock. When the holder of a key rolls back, InnoDB deadlocks the
 * repeats that waited on its index entry; one takes the key over, the others re-run. Each failing holder costs
 * a waiter at most one attempt, and at most as many requests as the connection pool (20) wait at once.
 */
const CREATE_ATTEMPTS = 50;

/** Reads of the facts before a create gives up on a guard that keeps refusing (the key was revoked). */
const READ_ROUNDS = 3;

/**
 * Rounds of create-then-replay: a replay finds no session when the holder rolled back after the duplicate was
 * seen; the request is then new and creates again.
 */
const KEY_ROUNDS = 3;

class IdempotentReplay extends Error {}

/** The 409 of a repeat that waited longer than the database's lock wait for the first request with its key. */
const inProgress = (cause: unknown): AppError =>
  new AppError(
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still in progress; retry.',
    {
      cause,
    },
  );

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
    startedAt: null,
  } satisfies Partial<SessionEntity>);
}

export class SessionCreator {
  readonly paths: CreatePaths = { remembered: 0, read: 0, documents: 0, stale: 0, replayed: 0 };
  private readonly known = new KnownRevisions();
  private readonly context: CreateContextReader;
  private readonly insert: GuardedSessionInsert;
  /** The replay's statement: the session holding a key. */
  private keyed: string | undefined;

  constructor(private readonly deps: CreatorDeps) {
    this.context = new CreateContextReader(deps.ds);
    this.insert = new GuardedSessionInsert(deps.ds);
  }

  /**
   * Creates a session pinned to the latest published revision. With an Idempotency-Key a concurrent repeat
   * waits on the first insert's index entry and then replays the original, for as long as that session exists
   * (spec 4.1 rule 1; ADR 0048: no release after 24 h). A remembered API key (ADR 0025) is the API layer's
   * concern: the guarded INSERT checks it, and the /v1 pipeline confirms it before any other answer (a refusal
   * or a replay), so a revoked key is told 401 and nothing else (ADR 0057).
   */
  async create(
    ctx: Ctx,
    input: CreateSessionInput,
    idempotencyKey: string | undefined,
    uploads: UploadedFile[] | null | undefined,
  ): Promise<Created> {
    const tenant = tenantOf(ctx);
    // the key is stored as its SHA-256: the column collation is case-insensitive, keys are not
    const rawKey = validateIdempotencyKey(idempotencyKey);
    const key = rawKey === undefined ? undefined : sha256Hex(rawKey);
    for (let round = 1; ; round++) {
      try {
        return { session: await this.createNew(ctx, input, key, uploads), replayed: false };
      } catch (e) {
        if (!key) throw e;
        if (isLockWaitTimeout(e)) throw inProgress(e);
        // A refused create writes nothing, so its key stays free; but bodies are not compared, so a repeat of
        // a request that succeeded replays even when this body would be refused.
        const refused = e instanceof AppError && e.status < 500;
        if (!refused && !(e instanceof IdempotentReplay)) throw e;
        // a replay answers with a stored session: the pipeline confirms a remembered key before it goes out
        const replayed = await this.replay(tenant.businessId, tenant.environment, key);
        if (replayed) {
          this.paths.replayed++;
          return { session: replayed, replayed: true };
        }
        if (refused) throw e;
        // the key's holder rolled back meanwhile: this is a new request
        if (round >= KEY_ROUNDS) throw inProgress(e);
      }
    }
  }

  /** One create: facts remembered or read, then the guarded INSERT (read again when it refuses). */
  private async createNew(
    ctx: Ctx,
    input: CreateSessionInput,
    key: string | undefined,
    uploads: UploadedFile[] | null | undefined,
  ): Promise<SessionEntity> {
    const { ds, clock } = this.deps;
    const tenant = tenantOf(ctx);
    const { workflowId, metadata, expiresIn } = validateCreateInput(input);
    const returnUrl = await checkReturnUrl(ds.manager, tenant, input.return_url);
    const apiKeyId = ctx.actor.kind === 'api_key' ? ctx.actor.apiKeyId : undefined;
    // Only API-key creates use remembered facts: a dashboard create reads the revision's API-only flag.
    let facts = apiKeyId !== undefined ? this.known.get(tenant, workflowId) : undefined;
    let documents: PlannedDocument[] | undefined;
    if (facts) {
      try {
        documents = this.deps.documents.plan(facts.steps, uploads ?? null);
        this.paths.remembered++;
      } catch {
        facts = undefined; // the remembered revision may be stale: refuse only on facts read now
      }
    }
    for (let reads = 0, deadlocks = 0; ; ) {
      if (!facts || !documents) {
        // a guard refused: the facts may be stale, or a remembered key revoked (then the rounds run out and
        // the pipeline's confirmation answers 401: ADR 0025)
        if (reads >= READ_ROUNDS) throw this.keepsRefusing(apiKeyId);
        reads++;
        this.paths.read++;
        ({ facts, documents } = await this.readFacts(ctx, workflowId, uploads ?? null));
      }
      const now = clock.now();
      const session = sessionRow({
        id: newId('sess'),
        ...tenant,
        workflowId,
        metadata,
        expiresIn,
        now,
        revision: facts.revision.revision,
        returnUrl,
        idemKey: key ?? null,
      });
      const outcome = await this.insertWith(session, facts, apiKeyId, documents, now);
      if (outcome === 'created') return session;
      if (outcome === 'key_taken') throw new IdempotentReplay();
      if (outcome === 'deadlock') {
        if (++deadlocks >= CREATE_ATTEMPTS) throw inProgress(new Error('deadlock'));
        await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** Math.min(deadlocks, 6)));
        continue;
      }
      // stale: a remembered guess (or what was just read) no longer holds; read what is committed now
      this.paths.stale++;
      this.known.forget(tenant, workflowId);
      facts = undefined;
    }
  }

  /** The INSERT, alone in autocommit, or in a transaction with the session's documents (write-once blobs). */
  private async insertWith(
    session: SessionEntity,
    facts: KnownRevision,
    apiKeyId: string | undefined,
    documents: PlannedDocument[],
    now: Date,
  ): Promise<InsertOutcome> {
    if (documents.length === 0) return this.insert.run(session, facts, apiKeyId);
    this.paths.documents++;
    // Retried whole on deadlock: waiters on a key whose holder rolled back deadlock on its index entry
    // (InnoDB), and the same key inserted through two Galera members fails certification on one of them.
    const outcome = await transactionWithRetry(
      this.deps.ds,
      async (m) => {
        const inserted = await this.insert.run(session, facts, apiKeyId, m);
        if (inserted === 'created') await this.deps.documents.store(m, session, documents, now);
        return inserted;
      },
      CREATE_ATTEMPTS,
    );
    if (outcome === 'created') await this.deps.documents.ensureStored(documents); // see ensureStored
    return outcome;
  }

  /**
   * The facts read as committed, every refusal in the order a caller sees them: workflow, API-only access,
   * documents, credential routes, webhook endpoint. Remembered for the next API-key create.
   */
  private async readFacts(
    ctx: Ctx,
    workflowId: string,
    uploads: UploadedFile[] | null,
  ): Promise<{ facts: KnownRevision; documents: PlannedDocument[] }> {
    const tenant = tenantOf(ctx);
    const cfg = await this.context.read(tenant, workflowId);
    // spec §1 "API-only access": the published revision's flag decides; only an API key creates its sessions
    if (cfg.revision.apiOnly && ctx.actor.kind !== 'api_key')
      throw new AppError(
        'workflow_api_only',
        'This workflow is set to API-only access: create its sessions with an API key (POST /v1/sessions), ' +
          'or publish a revision without API-only access to create them from the dashboard.',
      );
    const steps = toRevisionView(cfg.revision).steps;
    // Every refusal about documents happens before anything is written (no row, no blob).
    const documents = this.deps.documents.plan(steps, uploads);
    assertPrimitivesOffered(cfg.offered, tenant.environment, steps);
    if (!cfg.hasEndpoint)
      throw new AppError(
        'webhook_endpoint_required',
        `Configure a webhook endpoint for the ${tenant.environment} environment before creating sessions.`,
      );
    return { facts: this.known.remember(tenant, workflowId, cfg, steps), documents };
  }

  /** The answer when the guard refused after every fresh read: the acting key was revoked (or facts churn). */
  private keepsRefusing(apiKeyId: string | undefined): AppError {
    return apiKeyId !== undefined
      ? new AppError('unauthenticated', 'The API key was revoked.')
      : new AppError(
          'session_state_conflict',
          "The workflow's configuration changed while the session was created; repeat the request.",
        );
  }

  /**
   * The original answer for a key: the session that holds it, whatever its age (spec 4.1 rule 1: a repeat never
   * creates a duplicate). Null when no session holds it (the key is free). The caller enforces expiry on it like
   * on every read, so a replay answers the session as it is now.
   */
  private async replay(
    businessId: string,
    environment: 'sandbox' | 'production',
    key: string,
  ): Promise<SessionEntity | null> {
    const { ds } = this.deps;
    // on the unique index (business_id, environment, idem_key)
    this.keyed ??= `SELECT ${columnList(ds, SessionEntity)} FROM session WHERE business_id = ? AND environment = ? AND idem_key = ?`;
    const row = (await sql(ds, this.keyed, [businessId, environment, key]))[0];
    return row ? hydrate(ds, SessionEntity, row) : null;
  }
}
