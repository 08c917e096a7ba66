// Owns the one way a session changes: SessionTransitions.run opens the transaction (batchedTransactionWithRetry:
// deadlock and Galera certification retries; on MySQL one round trip per decision plus the commit, ADR 0058),
// takes the session row lock, lets the caller write what belongs to the change (audit record, result,
// evidence, a burned wallet request) through a TransitionTx, applies each state-machine move as a guarded
// write (status + version checked by affected rows, session.machine.ts), writes the timeline rows and queues
// every outbox event through the typed builders (session.events.ts), and wakes the webhook relay once after
// the commit. A lost race has one answer (see `run`). Expiry on access is a transition like any other
// (`current`), used by every reader of a session.
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import {
  batchedTransactionWithRetry,
  deferIfBatched,
  isBatched,
  isLostGuard,
} from '../../db/batched-transaction';
import { isMysql, LOCK_SESSION_ROW } from '../../db/data-source';
import { later } from '../../db/fast-sql';
import {
  recordSessionEventRows,
  type SessionEventInput,
  type SessionEventKind,
  sessionEventRow,
} from '../timeline/session-events';
import { type ClaimAtCommit, enqueueSessionEvents } from '../webhook/outbox';
import { CLAIMED_AT_COMMIT_SQL, SESSION_CANDIDATES_SQL } from '../webhook/webhook.outbox-sql';
import { SessionEntity } from './session.entity';
import { type SessionOutboxEvent, sessionEnded } from './session.events';
import { type UsedRow, updateSession, useUpAlone } from './session.guarded-update';
import { isTerminal, nextStatus, type SessionEvent } from './session.machine';
import { type ConditionEnd, expiryReason, type FailureReason, isOverdue } from './session.state';

export type { UsedRow } from './session.guarded-update';

/** Columns a move may set besides status and version. */
export type MovePatch = Partial<
  Pick<
    SessionEntity,
    | 'currentStage'
    | 'stepExpiresAt'
    | 'bindingHash'
    | 'decisionDueAt'
    | 'decisionRemindedAt'
    | 'anchorHolderKey'
  >
> & {
  /** Why a `fail` happens (the caller knows the refusal); `expire` computes its own. */
  failure?: FailureReason;
  /** The workflow condition that ended the session (session.completed/failed `condition`, ADR 0031). */
  condition?: ConditionEnd;
};

/**
 * The timeline entry each transition writes (support view); null where the entry is read from the row the move
 * writes: Start's `started` is the session's started_at (ADR 0074).
 */
const TIMELINE_KIND: Record<SessionEvent, SessionEventKind | null> = {
  start: null,
  step_completed_more: 'step_completed',
  step_completed_gate: 'step_completed',
  step_completed_last: 'step_completed',
  continue: 'continued',
  continue_last: 'continued',
  stop: 'stopped',
  fail: 'failed',
  expire: 'expired',
};

/** Attempts of an expiry transaction chosen as a deadlock victim (see current()). */
const EXPIRE_ATTEMPTS = 10;

/** Thrown inside the transaction when a guarded move lost: rolls back every write of the unit. */
class LostRace extends Error {}

/** What the caller's writes get inside the transaction, with the session row locked. */
export interface TransitionTx {
  readonly m: EntityManager;
  /** The session as of the last move of this unit (first: as the caller read it; moves check its version). */
  readonly session: SessionEntity;
  readonly now: Date;
  /** Applies `event` by a guarded write; a lost write rolls the whole unit back and `run` answers the race. */
  move(event: SessionEvent, patch?: MovePatch): Promise<SessionEntity>;
  /** Like move, but a lost write returns null and keeps the unit's other writes (e.g. a burned request). */
  moveIfCurrent(event: SessionEvent, patch?: MovePatch): Promise<SessionEntity | null>;
  /**
   * Columns written with the unit's next move, in its guarded UPDATE (one statement less; ADR 0045
   * amendment); written alone at the end of the unit when no move follows.
   */
  carry(patch: Pick<MovePatch, 'anchorHolderKey'>): void;
  /**
   * Uses up a single-use row of another table (the completion's wallet request) by its guarded write: on MySQL
   * in the guarded UPDATE of the unit's next `move`, one statement for both (ADR 0058 amendment 3), whose
   * loss rolls the unit back and `run` answers through `recheck` (which must tell a used row apart); written
   * alone at the end of the unit when no move follows. Elsewhere it is written at once, and `used.lost()` is
   * thrown when its guard is false.
   */
  useUp(used: UsedRow): Promise<void>;
  /** A timeline row of this change. */
  timeline(entry: SessionEventInput): Promise<void>;
  /** Queues a webhook event of this session (typed builders in session.events.ts). */
  emit(event: SessionOutboxEvent): Promise<void>;
}

/** How a unit runs (see `run`). */
export interface UnitOptions {
  /**
   * Take the session row lock first (default). A unit whose every decision is a guarded write (the moves,
   * a consuming `state = 'open'` UPDATE) and that reads nothing inside to decide on passes `false`: its first
   * guarded write of the session row takes the same lock, one statement less (ADR 0045, statements per
   * session). A unit that counts or reads rows to decide (refusals, reminders) keeps the lock.
   */
  lock?: boolean;
  /**
   * A read sent with the unit's COMMIT on MySQL, after every write of the unit and inside its transaction, so
   * it sees what the unit wrote (the hosted page's read after Start or a wallet response, ADR 0062
   * amendment): `collect` gets its rows only when that round trip, the COMMIT included, answered without
   * error, and never for a unit that lost (its batch stopped at the guard). Elsewhere it is not run: the caller
   * reads after the unit (`collect` was not called).
   */
  readWithCommit?: KeptRead;
}

/** A constant read statement with its values, and what receives its rows (UnitOptions.readWithCommit). */
export interface KeptRead {
  text: string;
  params: unknown[];
  collect: (rows: Record<string, unknown>[]) => void;
}

export interface TransitionDeps {
  ds: DataSource;
  clock: Clock;
  /**
   * Called after a commit that queued webhook events (wakes the relay); on MySQL with the session's due
   * candidates, read in the commit's round trip (ADR 0058 amendment 3), for the relay's next claim.
   */
  onEventsQueued?: (offered?: Record<string, unknown>[], claimToken?: string) => void;
  /**
   * This node's relay's claim on the events a unit queues, when its relay runs here (WebhookRelay.claimAtCommit,
   * ADR 0071): on MySQL the rows are written with it and read back with the COMMIT, and onEventsQueued gets them
   * with its token, for the relay to send without a claim of its own.
   */
  claimAtCommit?: (events: number) => ClaimAtCommit | undefined;
}

/**
 * The one answer after a lost race when the caller's own precondition still holds on the fresh row (a
 * concurrent writer changed it in a way that precondition does not look at): 409, naming the state now.
 */
export const lostRace = (fresh: Pick<SessionEntity, 'status'> | null): AppError =>
  new AppError(
    'session_state_conflict',
    `The session changed meanwhile; repeat the request if it still applies (it is ${fresh?.status ?? 'gone'}).`,
  );

export class SessionTransitions {
  constructor(private readonly deps: TransitionDeps) {}

  /**
   * One change of session `s` in one transaction, re-run whole on a deadlock or certification conflict.
   * `write` decides only on what it reads inside (the lock is held) and on `s`, whose version every move
   * checks; with `lock: false` only on `s` and its own guarded writes. Events queued by a committed unit wake
   * the relay once.
   *
   * The lost race, one rule: when a move lost (another writer changed the session, or its window passed),
   * nothing of the unit is written; the row is read again with expiry enforced and the request is answered as
   * if it had arrived after the winner: `recheck` runs the caller's precondition on the fresh row and throws
   * its refusal, or returns the answer the fresh state gives (e.g. a repeated start); when it returns
   * undefined (the precondition still holds), the answer is `lostRace(fresh)`.
   */
  async run<T>(
    s: SessionEntity,
    write: (tx: TransitionTx) => Promise<T>,
    recheck?: (fresh: SessionEntity) => T | undefined | Promise<T | undefined>,
    opts: UnitOptions = {},
  ): Promise<T> {
    const out = await this.unit(s, write, undefined, opts.lock ?? true, opts.readWithCommit);
    if (out.won) return out.value;
    const fresh = await this.reread(s.id);
    const answer = fresh && recheck ? await recheck(fresh) : undefined;
    if (answer !== undefined) return answer;
    throw lostRace(fresh);
  }

  /** One unit of work; `won: false` when a move lost (everything rolled back). */
  private async unit<T>(
    s: SessionEntity,
    write: (tx: TransitionTx) => Promise<T>,
    attempts?: number,
    lock = true,
    read?: KeptRead,
  ): Promise<{ won: true; value: T } | { won: false }> {
    let queued = 0;
    let offered: Record<string, unknown>[] | undefined;
    let claimToken: string | undefined;
    try {
      // batched on MySQL (ADR 0058): BEGIN goes with the first statement, the writes that decide nothing with
      // the next one that does, COMMIT with the last writes
      const value = await batchedTransactionWithRetry(
        this.deps.ds,
        async (m) => {
          queued = 0;
          offered = undefined;
          claimToken = undefined;
          // the row lock first, so every transaction that touches a session locks in the same order (its answer
          // decides nothing: it travels with the unit's first statement)
          if (lock && isMysql(m.dataSource)) await later(m.dataSource, LOCK_SESSION_ROW, [s.id], m);
          const tx = this.tx(m, s, () => queued++);
          const value = await write(tx);
          await tx.flush((rows, token) => {
            offered = rows;
            claimToken = token;
          });
          // last before the COMMIT, after the writes kept for it (UnitOptions.readWithCommit)
          if (read)
            deferIfBatched(m, read.text, read.params, {
              atCommit: true,
              collect: (rows) => read.collect(rows as Record<string, unknown>[]),
            });
          return value;
        },
        attempts,
      );
      if (queued > 0) this.deps.onEventsQueued?.(offered, claimToken);
      return { won: true, value };
    } catch (e) {
      // a move lost: decided in the unit (LostRace), or on the server by a kept move's guard (isLostGuard, ADR
      // 0058 amendment 3); either way nothing of the unit was committed
      if (e instanceof LostRace || isLostGuard(e)) return { won: false };
      throw e;
    }
  }

  /**
   * The session as it stands now: when it is past its overall or step window, exactly one caller wins the
   * guarded expiry write (and queues the one session.expired); every caller gets the persisted state back.
   * `onWon` runs for the winner only.
   */
  async current(s: SessionEntity, onWon?: () => void): Promise<SessionEntity> {
    let cur = s;
    for (let i = 0; i < 5 && isOverdue(cur, this.deps.clock.now()); i++) {
      // Many expiries at once (sweepers on several nodes, readers) deadlock on the outbox index's gap locks of
      // different sessions; each retry re-runs the guarded write, so retrying more is safe and spares a 5xx.
      const out = await this.unit(cur, (tx) => tx.move('expire'), EXPIRE_ATTEMPTS);
      if (out.won) {
        onWon?.();
        return out.value;
      }
      // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
      const fresh = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: s.id });
      if (!fresh) return cur;
      cur = fresh;
    }
    return cur;
  }

  /** The persisted state (expiry enforced), or null if the row is gone. */
  async reread(id: string): Promise<SessionEntity | null> {
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const fresh = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id });
    return fresh ? this.current(fresh) : null;
  }

  /**
   * The unit's view of its transaction. Timeline rows and webhook events are kept in order and written by
   * `flush` at the end of the unit (one INSERT each, ADR 0045); a rolled-back unit writes neither.
   */
  private tx(
    m: EntityManager,
    first: SessionEntity,
    onQueued: () => void,
  ): TransitionTx & {
    flush(offer: (rows: Record<string, unknown>[], claimToken?: string) => void): Promise<void>;
  } {
    const now = this.deps.clock.now();
    let session = first;
    const rows: ReturnType<typeof sessionEventRow>[] = [];
    const events: SessionOutboxEvent[] = [];
    const emit = async (e: SessionOutboxEvent) => {
      events.push(e);
      onQueued();
    };
    const timeline = async (entry: SessionEventInput) => {
      rows.push(sessionEventRow(session, entry));
    };
    let carried: Pick<MovePatch, 'anchorHolderKey'> | null = null;
    let used: UsedRow | null = null;
    const apply = async (event: SessionEvent, patch: MovePatch | undefined, keep: boolean) => {
      const withRow = keep ? used : null;
      const next = await guardedMove(
        m,
        session,
        event,
        now,
        { ...carried, ...patch },
        emit,
        timeline,
        keep,
        withRow,
      );
      if (withRow) used = null;
      if (next) {
        session = next;
        carried = null;
      }
      return next;
    };
    const moveIfCurrent = (event: SessionEvent, patch?: MovePatch) => apply(event, patch, false);
    return {
      m,
      now,
      get session() {
        return session;
      },
      moveIfCurrent,
      move: async (event, patch) => {
        // a lost move rolls the unit back whatever its writes: on MySQL it is kept with its guard (the next
        // writes and the COMMIT go with it, ADR 0058 amendment 3), and the server stops the batch if it lost
        const next = await apply(event, patch, true);
        if (!next) throw new LostRace();
        return next;
      },
      carry: (patch) => {
        carried = { ...carried, ...patch };
      },
      useUp: async (row) => {
        if (isBatched(m)) used = row;
        else await useUpAlone(m, row);
      },
      timeline,
      emit,
      flush: async (offer) => {
        if (used) {
          await useUpAlone(m, used);
          used = null;
        }
        if (carried) {
          await updateSession(m, carried, first.id, undefined, 'deferred');
          carried = null;
        }
        await recordSessionEventRows(m, rows.splice(0));
        const queued = events.splice(0);
        // Claimed for this node's relay when it runs here and the read below goes with the COMMIT (ADR 0071): a
        // claim whose rows were not read back would hold them until its lease ran out.
        const claim =
          queued.length > 0 && isBatched(m) ? this.deps.claimAtCommit?.(queued.length) : undefined;
        const claimed = await enqueueSessionEvents(m, queued, claim);
        // On MySQL the relay's read of what this unit queued goes with the COMMIT's round trip, after the
        // outbox INSERT (ADR 0058 amendment 3): its rows reach the relay only once committed (`run`), and its
        // claim takes them without a read of its own (or, claimed here, it sends them with no claim at all).
        // A read decides nothing here; nothing runs it elsewhere.
        if (claimed && claim) {
          const { token } = claim;
          deferIfBatched(m, CLAIMED_AT_COMMIT_SQL, [first.id, token], {
            collect: (r) => offer(r as Record<string, unknown>[], token),
          });
        } else if (queued.length > 0) {
          const due = new Date(Math.max(now.getTime(), ...queued.map((e) => e.now.getTime())));
          deferIfBatched(m, SESSION_CANDIDATES_SQL, [due, first.id], {
            collect: (r) => offer(r as Record<string, unknown>[]),
          });
        }
      },
    };
  }
}

/** Expiry on access without a service instance at hand (modules/receipt): see SessionTransitions.current. */
export function enforceExpiry(
  ds: DataSource,
  clock: Clock,
  s: SessionEntity,
  onEventsQueued?: () => void,
): Promise<SessionEntity> {
  return new SessionTransitions({ ds, clock, onEventsQueued }).current(s);
}

/**
 * The guarded write of one move from `s` (as read). Null when the session changed meanwhile (another writer
 * won), the move is not allowed from its status, or the session is already overdue at `now` (only `expire`
 * may be applied then). Writes the move's timeline rows and, on entering a terminal state, its event.
 */
async function guardedMove(
  m: EntityManager,
  s: SessionEntity,
  event: SessionEvent,
  now: Date,
  { failure, condition, ...patch }: MovePatch = {},
  emit: (e: SessionOutboxEvent) => Promise<void>,
  timeline: (e: SessionEventInput) => Promise<void>,
  /** A lost move rolls the unit back (`move`): the guarded write may be kept, not answered (updateSession). */
  keep = false,
  /** A row used up in the same guarded UPDATE (kept moves on MySQL only, TransitionTx.useUp). */
  withRow: UsedRow | null = null,
): Promise<SessionEntity | null> {
  const to = nextStatus(s.status, event);
  if (!to) return null;
  if (event !== 'expire' && isOverdue(s, now)) return null;
  const reason =
    event === 'expire'
      ? expiryReason(s, now)
      : to === 'failed'
        ? (failure ?? { code: 'failed', stage: s.currentStage, window: null, refused_responses: null })
        : null;
  const set = {
    ...patch,
    // Start's timeline entry is the row's own stamp, not a session_event row (ADR 0074)
    ...(event === 'start' ? { startedAt: now } : {}),
    ...(reason ? { failureReason: JSON.stringify(reason) } : {}),
    status: to,
    version: s.version + 1,
    updatedAt: now,
    // the first step's holder key is needed only while steps remain (ADR 0046)
    ...(isTerminal(to) ? { endedAt: now, stepExpiresAt: null, anchorHolderKey: null } : {}),
  };
  const guard = { status: s.status, version: s.version };
  if ((await updateSession(m, set, s.id, guard, keep ? 'guarded' : 'answer', withRow)) !== 1) return null;
  const next = Object.assign(new SessionEntity(), s, set);
  await recordMove(timeline, s, event, to, now, reason);
  if (to === 'completed' || to === 'stopped' || to === 'failed' || to === 'expired')
    await emit(sessionEnded(next, to, reason, condition, now));
  return next;
}

/** The timeline rows of one move, in its transaction. */
async function recordMove(
  timeline: (e: SessionEventInput) => Promise<void>,
  s: SessionEntity,
  event: SessionEvent,
  to: SessionEntity['status'],
  now: Date,
  reason: FailureReason | null,
): Promise<void> {
  const kind = TIMELINE_KIND[event];
  if (kind === null) return;
  const stage = s.status === 'created' ? null : s.currentStage;
  await timeline({
    kind,
    at: now,
    stage: reason ? reason.stage : stage,
    code: reason?.code ?? null,
    detail: reason ? { window: reason.window, refused_responses: reason.refused_responses } : null,
  });
  if (to === 'completed' || to === 'awaiting_decision')
    await timeline({ kind: to, at: now, stage: to === 'completed' ? null : s.currentStage });
}
