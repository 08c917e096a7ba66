// Owns the outbox rows of webhook deliveries: claims with leases, parking and waking, recorded outcomes, the retry
// schedule. SQL only (the loop is webhook.relay.ts, the POST webhook.sender.ts).
// Ordering (webhook.relay.ts) is kept here: an event is due only when its session's earlier events are delivered.
//
// Claiming (ADR 0014): no correctness rests on locks, so the same code is right on MySQL, MariaDB, Galera (locks
// are per member), TiDB (SKIP LOCKED parses but does not lock), Vitess and SQLite. A claim is a compare-and-set
// `UPDATE ... SET claim_token=?, lease_until=? WHERE id IN (...) AND <lease free>`, followed by reading back
// the rows that carry this claim's token (a fencing token); every later write of those deliveries is guarded by
// `claim_token = ?`, so a relay whose lease ran out (paused, partitioned) can no longer change the row. Two
// relays racing for a row: one update wins; on Galera the loser's commit fails certification (1213) and it
// simply claims nothing. A relay that dies mid-delivery leaves the lease to expire and the event is retried
// (at-least-once, same delivery id).
import { performance } from 'node:perf_hooks';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { newId } from '../../common/ids';
import type { Logger } from '../../common/logger';
import { isDeadlock, isMysql, transactionWithRetry } from '../../db/data-source';
import {
  type Attempted,
  attemptRow,
  type ClaimedDelivery,
  claimedDelivery,
  nextRetryDelayMs,
  type RecordedResult,
  TERMINAL_EVENTS,
} from './webhook.outbox-rows';
import {
  candidatesSql,
  changedRows,
  type MysqlPool,
  marks,
  multiQuery,
  recordInOneRoundTrip,
  type Stmt,
  update,
} from './webhook.outbox-sql';

export {
  type Attempted,
  type AttemptOutcome,
  attemptRow,
  type ClaimedDelivery,
  nextRetryDelayMs,
  RETRY_SCHEDULE_MS,
  type RecordedResult,
} from './webhook.outbox-rows';

export const LEASE_MARGIN_MS = 30_000;
/** How long events behind a permanently failed one wait before being looked at again (redelivery wakes them). */
const PARK_MS = 24 * 3600 * 1000;
/** Candidates read along with a claim are used for the next claim only within this age (endpoint changes). */
const PREFETCH_TTL_MS = 1_000;
/** Events of one session claimed together: the head and up to three successors (each sent after a 2xx). */
export const MAX_CHAIN = 4;
export interface WebhookOutboxStoreDeps {
  ds: DataSource;
  clock: Clock;
  logger: Logger;
  /** The delivery timeout: a claim's lease is this plus a margin. */
  timeoutMs: number;
}

export class WebhookOutboxStore {
  /** SQLite: one connection, so one write transaction at a time (the loop reads this). */
  readonly sqlite: boolean;
  /**
   * Candidates read in the round trip of the last compare-and-set (multi-statement pool only), or (`partial`)
   * those of sessions whose transitions just queued events, read in their commit's round trip (offer).
   */
  private prefetched:
    | { rows: Record<string, unknown>[]; at: number; clockAt: number; partial?: true }
    | undefined;
  /** The last claim read as many candidates as it asked for: more may be due. */
  moreDue = false;
  /** Invalidations so far: a claim keeps its candidates only if none came while its query ran (ADR 0061). */
  private epoch = 0;

  constructor(private readonly deps: WebhookOutboxStoreDeps) {
    this.sqlite = !isMysql(deps.ds);
  }

  /**
   * Forgets the candidates read with the last claim: something may be due that they do not show (an event
   * queued in this process, a successor released). A fresh empty read answers the next claim without a read.
   */
  invalidatePrefetch(): void {
    this.prefetched = undefined;
    this.epoch++;
  }

  /**
   * The due candidates of a session whose transition just committed the events it queued, read in that
   * commit's round trip (SESSION_CANDIDATES_SQL, ADR 0058 amendment 3), for the next claim to take instead of
   * reading. Added to the candidates read with the last compare-and-set when those are still fresh (which then
   * show everything due again, as a read now would, but for other nodes' events, as before); otherwise they
   * are `partial`, some sessions' only, and a claim that takes them looks at what else is due in the read that
   * goes with its compare-and-set (claim). Like a kick, an offer makes a claim under way drop its read (epoch).
   */
  offer(rows: Record<string, unknown>[]): void {
    if (this.sqlite || rows.length === 0) return;
    const pre = this.prefetched;
    const fresh =
      pre !== undefined &&
      performance.now() - pre.at < PREFETCH_TTL_MS &&
      Math.abs(this.deps.clock.now().getTime() - pre.clockAt) < PREFETCH_TTL_MS;
    const ids = new Set(rows.map((r) => String(r.id)));
    const kept = fresh && pre ? pre.rows.filter((r) => !ids.has(String(r.id))) : [];
    this.prefetched = {
      rows: [...kept, ...rows],
      at: fresh && pre ? pre.at : performance.now(),
      clockAt: fresh && pre ? pre.clockAt : this.deps.clock.now().getTime(),
      ...(fresh && pre && !pre.partial ? {} : { partial: true as const }),
    };
    this.epoch++;
  }

  /** Dates as the driver stores them: mysql2 takes Date (UTC connection); SQLite holds TypeORM's UTC text. */
  private t(d: Date): Date | string {
    return this.sqlite ? d.toISOString().replace('T', ' ').replace('Z', '') : d;
  }

  /** A short transaction, retried whole on deadlocks and Galera certification conflicts. */
  private tx<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    // READ COMMITTED: no gap locks between relays writing neighbouring rows of the due index.
    return transactionWithRetry(this.deps.ds, fn, 5, 'READ COMMITTED');
  }

  /** The relay pool's mysql2 pool when it allows multiple statements per query (service.ts), else null. */
  private multiStatementPool(): MysqlPool | null {
    if (this.sqlite) return null;
    const driver = this.deps.ds.driver as unknown as {
      pool?: MysqlPool;
      options?: { multipleStatements?: boolean };
    };
    return driver.options?.multipleStatements === true && driver.pool ? driver.pool : null;
  }

  /**
   * Claims up to `max` due session heads by compare-and-set and returns them with their endpoints. Due events
   * behind an earlier undelivered one are parked (moved out of the due set) so they cannot fill every batch and
   * starve the heads; delivering their predecessor wakes them (see record). No statement here locks anything
   * beyond the rows it updates, and none of them needs to be in one transaction: the compare-and-set is the
   * decision and its result is the proof. Usually two statements: one read of the candidates (with their
   * session's head and their endpoint), one compare-and-set; the rows carrying this claim's token are read
   * back only when the update did not take every candidate (another relay took some).
   */
  async claim(max: number): Promise<ClaimedDelivery[]> {
    const { ds, clock } = this.deps;
    const now = clock.now();
    const leaseMs = this.deps.timeoutMs + LEASE_MARGIN_MS;
    const limit = Math.max(1, Math.min(max, 500));
    this.moreDue = false;
    for (let round = 0; round < 5; round++) {
      // Candidates read right after the previous claim's compare-and-set, in the same round trip (below), when
      // still fresh; else read now. A fresh empty read answers "nothing due" once (invalidatePrefetch and the
      // wake-ups of record() drop it when that may have changed).
      const pre = this.prefetched;
      this.prefetched = undefined;
      // fresh by both clocks: the service clock may move on faster than real time (and retries come due)
      const fresh =
        round === 0 &&
        pre !== undefined &&
        performance.now() - pre.at < PREFETCH_TTL_MS &&
        Math.abs(now.getTime() - pre.clockAt) < PREFETCH_TTL_MS;
      const due: Record<string, unknown>[] =
        fresh && pre ? pre.rows.slice(0, limit) : await ds.query(candidatesSql(limit), [this.t(now)]);
      // offered candidates (offer) are some sessions' only: what else is due shows in the read that goes with
      // this claim's compare-and-set, and the next claim takes it
      const partial = fresh && pre?.partial === true;
      if (due.length === 0) return [];
      if (due.length >= limit || (partial && pre && pre.rows.length > limit)) this.moreDue = true;

      const go: Record<string, unknown>[] = [];
      const behind: Record<string, unknown>[] = [];
      const behindFailed: string[] = [];
      for (const e of due) {
        if (e.head_seq == null || Number(e.head_seq) >= Number(e.sequence)) go.push(e);
        else if (Number(e.failed_before) > 0) behindFailed.push(String(e.id));
        else behind.push(e);
      }
      // A head's due successors (the next sequences, nothing failed before them) are claimed with it and sent
      // after its 2xx, in order: one claim and one outcome write for a session's events instead of one each.
      const chains = new Map<string, Record<string, unknown>[]>();
      for (const e of go) if (!chains.has(String(e.session_id))) chains.set(String(e.session_id), [e]);
      const behindRetry: string[] = [];
      for (const e of behind.sort((a, b) => Number(a.sequence) - Number(b.sequence))) {
        const chain = chains.get(String(e.session_id));
        const last = chain?.[chain.length - 1];
        if (chain && last && chain.length < MAX_CHAIN && Number(e.sequence) === Number(last.sequence) + 1)
          chain.push(e);
        else behindRetry.push(String(e.id));
      }
      // the lease covers every send of the longest chain
      const longest = Math.max(1, ...[...chains.values()].map((c) => c.length));
      const lease = new Date(now.getTime() + this.deps.timeoutMs * longest + LEASE_MARGIN_MS);
      // Parked behind a head still being tried: looked at again after a lease period (the head's delivery wakes
      // it sooner; the bound covers a wake missed on a member that had not yet applied the successor's insert).
      // Behind a failed head: until a redelivery wakes it (and daily).
      await this.park(behindRetry, new Date(now.getTime() + leaseMs), now);
      await this.park(behindFailed, new Date(now.getTime() + PARK_MS), now);
      // A parked event whose head this claim takes is woken by this relay's own outcome write, after the park:
      // only the others can have been overtaken (checked again below when another relay took a head first).
      const parked = [...behindRetry, ...behindFailed];
      const candidates = due.map((e) => ({ id: String(e.id), session_id: String(e.session_id) }));
      const sessionOf = new Map(candidates.map((c) => [c.id, c.session_id]));
      await this.unparkOvertaken(
        parked.filter((id) => !chains.has(sessionOf.get(id) as string)),
        candidates,
        now,
      );
      if (go.length === 0) continue;

      const token = newId('clm');
      const ids = [...chains.values()]
        .flat()
        .map((e) => String(e.id))
        .sort();
      let took: number;
      // sql-lint-allow: session-scope: the relay claims due deliveries across every tenant by design (a scatter query on Vitess; ADR 0014)
      const casSql = `UPDATE webhook_event SET claim_token = ?, lease_until = ?, next_attempt_at = ?
           WHERE id IN (${marks(ids)}) AND status = 'pending' AND next_attempt_at <= ?
             AND (lease_until IS NULL OR lease_until < ?)`;
      const casParams = [token, this.t(lease), this.t(lease), ...ids, this.t(now), this.t(now)];
      try {
        const pool = this.multiStatementPool();
        if (pool) {
          // One round trip: the compare-and-set, then the next claim's candidates (read after it, so without
          // the rows just taken). Being a session head cannot be lost later (sequences only grow), and the
          // next compare-and-set re-checks everything else.
          const epoch = this.epoch;
          const [res, next] = await multiQuery<[{ affectedRows?: number }, Record<string, unknown>[]]>(
            pool,
            `${casSql};\n${candidatesSql(limit)}`,
            [...casParams, this.t(now)],
          );
          took = changedRows(res);
          if (epoch === this.epoch)
            this.prefetched = { rows: next, at: performance.now(), clockAt: now.getTime() };
          if (partial && next.length > 0) this.moreDue = true;
        } else {
          took = changedRows(await ds.query(casSql, casParams));
          if (partial) this.moreDue = true;
        }
      } catch (e) {
        // Another relay's claim of the same rows won (Galera certification, or a deadlock victim): nothing of
        // this claim committed.
        if (isDeadlock(e)) return [];
        throw e;
      }
      let own: Set<string> | null = null;
      if (took !== ids.length) {
        // Some candidates went to another relay between our read and our update: ours are those with our token.
        // sql-lint-allow: session-scope: read back by this claim's random token (globally unique), across tenants by design
        const rows: { id: string }[] = await ds.query('SELECT id FROM webhook_event WHERE claim_token = ?', [
          token,
        ]);
        own = new Set(rows.map((r) => String(r.id)));
      }
      const mine: ClaimedDelivery[] = [];
      const giveBack: string[] = [];
      for (const chain of chains.values()) {
        // a chain is ours up to its first member another relay took; what we took after that is given back
        let k = 0;
        while (k < chain.length && (own === null || own.has(String(chain[k]?.id)))) k++;
        if (own !== null)
          for (const e of chain.slice(k)) if (own.has(String(e.id))) giveBack.push(String(e.id));
        const [head, ...rest] = chain.slice(0, k).map((r) => claimedDelivery(r, token));
        if (head) mine.push(rest.length > 0 ? { ...head, successors: rest } : head);
      }
      if (own !== null) {
        if (giveBack.length > 0) await this.release(token, giveBack, now);
        const lostHeads = new Set(
          [...chains.entries()].filter(([, c]) => !own?.has(String(c[0]?.id))).map(([sid]) => sid),
        );
        await this.unparkOvertaken(
          parked.filter((id) => lostHeads.has(sessionOf.get(id) as string)),
          candidates,
          now,
        );
      }
      if (mine.length === 0) continue;
      return mine;
    }
    return [];
  }

  /**
   * Gives back events a transition queued under this relay's claim (ADR 0071) that the relay does not send now
   * (behind an undelivered event of their session, or past a chain's length): due at once, for a claim to take
   * (or park) them as it takes any other.
   */
  releaseClaimed(token: string, ids: string[]): Promise<void> {
    return this.release(token, ids, this.deps.clock.now());
  }

  /** Undoes the claim of `ids` (still carrying `token`): due again at once, as before the claim. */
  private async release(token: string, ids: string[], now: Date): Promise<void> {
    this.invalidatePrefetch();
    await this.deps.ds.query(
      // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
      `UPDATE webhook_event SET claim_token = NULL, lease_until = NULL, next_attempt_at = ?
       WHERE claim_token = ? AND id IN (${marks(ids)}) AND status = 'pending'`,
      [this.t(now), token, ...ids.sort()],
    );
  }

  /**
   * A park can land after the wake-up it was meant to wait for (the head's outcome committed between our read
   * of the heads and our park). So after parking, look again: a parked event that is now its session's head is
   * made due at once. (On Galera a member that has not yet applied the head's outcome misses this; the park's
   * bound, one lease period, covers that case.)
   */
  private async unparkOvertaken(parked: string[], due: { id: string; session_id: string }[], now: Date) {
    if (parked.length === 0) return;
    const parkedSet = new Set(parked);
    const sessions = [...new Set(due.filter((e) => parkedSet.has(e.id)).map((e) => e.session_id))];
    const open: { id: string; session_id: string; sequence: number }[] = await this.deps.ds.query(
      // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
      `SELECT id, session_id, sequence FROM webhook_event
       WHERE session_id IN (${marks(sessions)}) AND status <> 'delivered'`,
      sessions,
    );
    const heads = new Map<string, { id: string; sequence: number }>();
    for (const e of open) {
      const h = heads.get(e.session_id);
      if (!h || Number(e.sequence) < Number(h.sequence)) heads.set(e.session_id, e);
    }
    const overtaken = [...heads.values()].map((h) => h.id).filter((id) => parkedSet.has(id));
    if (overtaken.length === 0) return;
    await this.deps.ds.query(
      // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
      `UPDATE webhook_event SET next_attempt_at = ? WHERE id IN (${marks(overtaken)}) AND status = 'pending'`,
      [this.t(now), ...overtaken.sort()],
    );
  }

  private async park(ids: string[], until: Date, now: Date): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.deps.ds.query(
        // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
        `UPDATE webhook_event SET next_attempt_at = ?
         WHERE id IN (${marks(ids)}) AND status = 'pending' AND (lease_until IS NULL OR lease_until < ?)`,
        [this.t(until), ...ids.sort(), this.t(now)],
      );
    } catch (e) {
      if (!isDeadlock(e)) throw e; // lost to a concurrent wake or park: either is fine
    }
  }

  /**
   * Writes the outcomes of finished attempts, in this order: every attempt row (one insert), the delivered
   * events (one update per claim, fenced by its token), retries and failures (one update each, fenced), the
   * released successors, and a wake-up of the successor of each delivered event that is not its session's
   * last. On the relay's own pool (MySQL) one round trip, each statement committing alone (recordInOneRoundTrip
   * says why that is safe), re-run whole on a deadlock; elsewhere (the embedded engine) one transaction. An
   * outcome whose lease was taken over by another relay stays an attempt row only. Returns how each outcome was
   * recorded, once written, and whether it made an event due that no claim has seen (a woken or released
   * successor): only then is a claim worth its round trip.
   */
  async record(
    batch: Attempted[],
    /** Successors claimed with a head that did not get its 2xx: not sent, their claim undone (due again). */
    released: ClaimedDelivery[] = [],
  ): Promise<{ results: { a: Attempted; result: RecordedResult }[]; madeDue: boolean }> {
    if (batch.length === 0) return { results: [], madeDue: false };
    const now = this.deps.clock.now();
    const delivered = new Map<string, Attempted[]>();
    const others: { a: Attempted; delay: number | null }[] = [];
    for (const a of batch) {
      if (a.outcome.error === null) {
        const list = delivered.get(a.d.claimToken) ?? [];
        list.push(a);
        delivered.set(a.d.claimToken, list);
      } else {
        others.push({ a, delay: nextRetryDelayMs(a.d.attempts + 1, a.outcome.retryAfterMs) });
      }
    }
    const rows = batch.map(attemptRow);
    const cols = Object.keys(rows[0]);
    const pool = this.multiStatementPool();
    // The statements of the outcome write. Sent again whole after a deadlock (pool), the insert skips the rows
    // (client-side ids) its failed try wrote; a transaction (tx) is rolled back instead, and needs nothing.
    const again = pool ? ' ON DUPLICATE KEY UPDATE id = id' : '';
    const values = rows.map(() => `(${marks(cols)})`).join(', ');
    const stmts: Stmt[] = [
      {
        sql: `INSERT INTO webhook_attempt (${cols.join(', ')}) VALUES ${values}${again}`,
        params: rows.flatMap((r) => cols.map((c) => (r[c] instanceof Date ? this.t(r[c] as Date) : r[c]))),
      },
    ];
    for (const [token, list] of delivered) {
      const ids = list.map((a) => a.d.id).sort();
      stmts.push({
        // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
        sql: `UPDATE webhook_event SET status = 'delivered', attempts = attempts + 1, delivered_at = ?,
             last_error = NULL, claim_token = NULL, lease_until = NULL
           WHERE claim_token = ? AND id IN (${marks(ids)}) AND status = 'pending'`,
        params: [this.t(now), token, ...ids],
        fenced: ids.length,
      });
    }
    for (const { a, delay } of others) {
      const error = a.outcome.error?.slice(0, 500) ?? null;
      stmts.push(
        delay === null
          ? {
              // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
              sql: `UPDATE webhook_event SET status = 'failed', attempts = attempts + 1, last_error = ?,
                   claim_token = NULL, lease_until = NULL
                 WHERE id = ? AND claim_token = ? AND status = 'pending'`,
              params: [error, a.d.id, a.d.claimToken],
              fenced: 1,
            }
          : {
              // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
              sql: `UPDATE webhook_event SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?,
                   claim_token = NULL, lease_until = NULL
                 WHERE id = ? AND claim_token = ? AND status = 'pending'`,
              params: [error, this.t(new Date(now.getTime() + delay)), a.d.id, a.d.claimToken],
              fenced: 1,
            },
      );
    }
    const releasedByToken = new Map<string, string[]>();
    for (const d of released)
      releasedByToken.set(d.claimToken, [...(releasedByToken.get(d.claimToken) ?? []), d.id]);
    for (const [token, list] of releasedByToken) {
      const ids = [...list].sort();
      stmts.push({
        // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
        sql: `UPDATE webhook_event SET claim_token = NULL, lease_until = NULL, next_attempt_at = ?
           WHERE claim_token = ? AND id IN (${marks(ids)}) AND status = 'pending'`,
        params: [this.t(now), token, ...ids],
      });
    }
    // Wake each delivered event's successor (sequences of a session are 0, 1, 2, ...), parked behind it: not
    // a successor claimed with it (sent or released in this batch), nor one of a terminal event (there is
    // none, TERMINAL_EVENTS). A successor another relay claimed once the delivered update committed keeps its
    // lease (the guard). Written as two IN lists so the (session_id, sequence) index is used as a range; a
    // cross-product match (another session's later event) is only made due early, and the claim parks it again.
    const inBatch = new Set(
      [...batch.map((a) => a.d), ...released].map((d) => `${d.sessionId}:${d.sequence}`),
    );
    const heads = [...delivered.values()]
      .flat()
      .map((a) => a.d)
      .filter((d) => !TERMINAL_EVENTS.has(d.event) && !inBatch.has(`${d.sessionId}:${d.sequence + 1}`));
    if (heads.length > 0) {
      const sessions = [...new Set(heads.map((d) => d.sessionId))].sort();
      const next = [...new Set(heads.map((d) => d.sequence + 1))];
      stmts.push({
        // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
        sql: `UPDATE webhook_event SET next_attempt_at = ?
           WHERE session_id IN (${marks(sessions)}) AND sequence IN (${marks(next)}) AND status = 'pending'
             AND (lease_until IS NULL OR lease_until < ?)`,
        params: [this.t(now), ...sessions, ...next, this.t(now)],
        wake: true,
      });
    }
    let lost = 0;
    let woke = false;
    if (pool) {
      const out = await recordInOneRoundTrip(pool, stmts);
      lost = out.lost;
      woke = out.woke;
    } else {
      await this.tx(async (m) => {
        lost = 0;
        woke = false;
        for (const st of stmts) {
          if (st.wake) woke = (await update(m, st.sql, st.params)) > 0;
          else if (st.fenced === undefined) await m.query(st.sql, st.params);
          else lost += st.fenced - (await update(m, st.sql, st.params));
        }
      });
    }
    // woken or released events are not in the candidates read with the last claim (forgotten once written)
    if (woke || released.length > 0) this.invalidatePrefetch();
    if (lost > 0) this.deps.logger.warn('webhook lease lost; outcome kept as attempt only', { count: lost });
    const results = [
      ...[...delivered.values()].flat().map((a) => ({ a, result: 'delivered' as RecordedResult })),
      ...others.map(({ a, delay }) => ({
        a,
        result: (delay === null ? 'failed' : 'retry') as RecordedResult,
      })),
    ];
    return { results, madeDue: woke || released.length > 0 };
  }
}
