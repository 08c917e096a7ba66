// Owns delivery of outbox events: claim due rows, POST them signed, record every attempt, schedule retries.
//
// Ordering: events of one session are delivered strictly in `sequence` order; an event is due only when every
// lower-sequence event of its session is delivered. A permanently failed event therefore holds back the later
// events of its session (they stay `pending`, parked) until it is redelivered from the dashboard and gets its
// 2xx; receivers never see, say, session.completed without the step.completed before it.
//
// Claiming (ADR 0014): no correctness rests on locks, so the same code is right on MySQL, MariaDB, Galera (locks
// are per member), TiDB (SKIP LOCKED parses but does not lock), Vitess and SQLite. A claim is a compare-and-set
// `UPDATE ... SET claim_token=?, lease_until=? WHERE id IN (...) AND <lease free>`, followed by reading back
// the rows that carry this claim's token (a fencing token); every later write of those deliveries is guarded by
// `claim_token = ?`, so a relay whose lease ran out (paused, partitioned) can no longer change the row. Two
// relays racing for a row: one update wins; on Galera the loser's commit fails certification (1213) and it
// simply claims nothing. A relay that dies mid-delivery leaves the lease to expire and the event is retried
// (at-least-once, same delivery id).
//
// Throughput: a continuous pipeline keeps up to `concurrency` deliveries in flight (claims top it up, no batch
// waits for its slowest member), outcomes are written in batches (one multi-row attempt insert and one update
// per claim per flush), connections are kept alive per (business, environment) with the SSRF-checked lookup on
// every new connection, and the relay may run on its own small connection pool.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { isAppError } from '../../common/errors';
import { logTag, newId } from '../../common/ids';
import type { Logger } from '../../common/logger';
import { injectTraceHeaders, inSpan } from '../../common/tracing';
import { isDeadlock, isMysql, transactionWithRetry } from '../../db/data-source';
import { RESPONSE_EXCERPT_BYTES, responseExcerpt } from './delivery-log';
import type { WebhookSecretBox } from './secret-box';
import { activeSecrets, webhookDeliveryHeaders } from './signature';
import { assertDeliverableUrl, type DeliverableOpts, guardedLookup } from './ssrf';

/** Delay after the n-th failed attempt (index n-1); after the last one the delivery is marked failed. */
export const RETRY_SCHEDULE_MS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map((s) => s * 1000);
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
const LEASE_MARGIN_MS = 30_000;
/** How long events behind a permanently failed one wait before being looked at again (redelivery wakes them). */
const PARK_MS = 24 * 3600 * 1000;
/** A URL that passed assertDeliverableUrl is not re-resolved for this long (new connections still are). */
const URL_CHECK_TTL_MS = 30_000;
/** Candidates read along with a claim are used for the next claim only within this age (endpoint changes). */
const PREFETCH_TTL_MS = 1_000;
/** Keep-alive agents kept (one per business and environment); the least recently used is closed beyond. */
const MAX_AGENTS = 500;
export const WEBHOOK_USER_AGENT = 'CredentialService-Webhooks/1.0';

/** Next retry delay after `failedAttempts` failures, with +-10% jitter; Retry-After wins when later. */
export function nextRetryDelayMs(
  failedAttempts: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const base = RETRY_SCHEDULE_MS[failedAttempts - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return retryAfterMs !== null && retryAfterMs > jittered
    ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)
    : jittered;
}

/** Retry-After as delay-seconds or an HTTP date; null when absent or unusable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

export interface WebhookRelayDeps {
  /** The relay's connection pool: ideally its own small one, so deliveries never starve the API (service.ts). */
  ds: DataSource;
  clock: Clock;
  logger: Logger;
  allowPrivateTargets: boolean;
  /** Opens the endpoints' sealed signing secrets (secret-box.ts). */
  secrets: WebhookSecretBox;
  timeoutMs?: number;
  /** ops (issue 11): counts recorded attempts by outcome for /metrics. */
  metrics?: { delivery(outcome: 'delivered' | 'retry' | 'failed'): void };
  /** True when err means the database is away: that outage is logged once elsewhere, not on every poll. */
  isOutage?: (err: unknown) => boolean;
  /** Deliveries in flight at once (default 256; at most 32 connections per tenant, the rest queue). */
  concurrency?: number;
}

/** A claimed delivery: the outbox row and its endpoint, read back by the claim's token. */
export interface ClaimedDelivery {
  id: string;
  businessId: string;
  environment: 'sandbox' | 'production';
  sessionId: string;
  sequence: number;
  event: string;
  deliveryId: string;
  body: string;
  /** Attempts before this one. */
  attempts: number;
  claimToken: string;
  url: string | null;
  /** The endpoint the secrets below belong to (their sealing AAD). */
  endpointId: string | null;
  /** Sealed, as stored (opened only to sign an attempt). */
  secret: string | null;
  /** The secret being rotated out, signing alongside until its overlap ends (signature.ts activeSecrets). */
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
  /** The URL the attempt went to, and the first bytes the receiver answered (delivery log). */
  url: string | null;
  excerpt: Buffer | null;
}

interface Attempted {
  d: ClaimedDelivery;
  attemptedAt: Date;
  durationMs: number;
  outcome: Outcome;
}

/**
 * The headers of one delivery attempt, built in one place: both signature schemes (X-Service-* and Standard
 * Webhooks), signed with every secret active now (two during a rotation overlap). `timestamp` is unix seconds.
 */
export function deliveryHeaders(
  d: Pick<ClaimedDelivery, 'event' | 'deliveryId' | 'body'>,
  secrets: readonly string[],
  timestamp: number,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    ...webhookDeliveryHeaders(d, secrets, timestamp),
  };
}

/** The webhook_attempt row of one attempt, built in one place (attempt-log fields grow here). */
export function attemptRow(a: Attempted): Record<string, string | number | Date | null> {
  return {
    id: newId('whatt'),
    event_id: a.d.id,
    business_id: a.d.businessId,
    attempted_at: a.attemptedAt,
    status_code: a.outcome.statusCode,
    error: a.outcome.error?.slice(0, 500) ?? null,
    duration_ms: a.durationMs,
    environment: a.d.environment,
    url: a.outcome.url,
    response_excerpt: responseExcerpt(a.outcome.excerpt),
  };
}

export class WebhookRelay {
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly sqlite: boolean;
  private pollMs = 500;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  /** The background pipeline's state. */
  private inFlight = 0;
  private claiming: Promise<void> | undefined;
  private again = false;
  private pending: Attempted[] = [];
  private readonly flushing = new Set<Promise<void>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly idle = new Set<() => void>();
  private readonly agents = new Map<string, http.Agent>();
  private readonly checkedUrls = new Map<string, number>();
  /** Candidates read in the round trip of the last compare-and-set (multi-statement pool only). */
  private prefetched: { rows: Record<string, unknown>[]; at: number } | undefined;
  /** Counters for benchmarks and metrics: claims and outcome flushes, with the time spent in each. */
  readonly stats = { claims: 0, claimed: 0, claimMs: 0, flushes: 0, flushed: 0, flushMs: 0 };

  constructor(private readonly deps: WebhookRelayDeps) {
    this.timeoutMs = deps.timeoutMs ?? 10_000;
    this.concurrency = Math.max(1, deps.concurrency ?? 256);
    this.sqlite = !isMysql(deps.ds);
  }

  /**
   * One synchronous round (tests, tools): claims due events, delivers them (in parallel across sessions),
   * records the outcomes. Returns the number of attempts made.
   */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.concurrency);
    const attempts = await Promise.all(claimed.map((d) => this.attempt(d)));
    await this.record(attempts);
    return claimed.length;
  }

  start(pollMs = 500): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.pollMs = pollMs;
    this.schedule(0);
  }

  /** Stops claiming, waits for in-flight deliveries and writes their outcomes, then closes idle connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.claiming;
    while (this.inFlight > 0) await new Promise<void>((r) => this.idle.add(r));
    await this.flush();
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  /** Run soon (e.g. right after a transaction queued an event) instead of at the next poll. */
  kick(): void {
    if (this.stopped) return;
    if (this.claiming) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), ms);
  }

  /**
   * The pipeline: claim as many as there is room for, start each delivery at once, and claim again when room
   * frees up (half the window), so the receiver always has work and no delivery waits for another.
   */
  private pump(): void {
    this.timer = undefined;
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    const room = this.concurrency - this.inFlight;
    // A claim costs about the same whatever its size: while deliveries are under way, wait until a quarter of
    // the window is free (a finishing delivery pumps again) rather than claim a handful.
    if (room <= 0 || (this.inFlight > 0 && room < this.concurrency / 4)) return;
    this.again = false;
    const t0 = performance.now();
    this.claiming = this.claim(room)
      .then((claimed) => {
        this.stats.claims++;
        this.stats.claimed += claimed.length;
        this.stats.claimMs += performance.now() - t0;
        return claimed;
      })
      .catch((err: unknown) => {
        // a database outage is logged once by DatabaseAvailability, not on every poll
        if (!this.deps.isOutage?.(err))
          this.deps.logger.error('webhook relay claim failed', { error: describeError(err) });
        return [] as ClaimedDelivery[];
      })
      .then((claimed) => {
        for (const d of claimed) this.launch(d);
        this.claiming = undefined;
        if (claimed.length >= room || this.again) this.schedule(0);
        else if (this.inFlight === 0) this.schedule(this.pollMs);
        // else: the next finished delivery pumps
      });
  }

  private launch(d: ClaimedDelivery): void {
    this.inFlight++;
    void this.attempt(d).then((a) => {
      this.inFlight--;
      this.pending.push(a);
      this.scheduleFlush();
      if (this.inFlight <= this.concurrency / 2 || this.inFlight === 0) {
        if (!this.claiming && !this.stopped) this.schedule(0);
      }
      if (this.inFlight === 0) {
        for (const r of this.idle) r();
        this.idle.clear();
      }
    });
  }

  /**
   * Outcomes are written together: at once when many are waiting, else after a millisecond so completions of
   * the same few milliseconds share a write (a write costs
   * about six round trips whatever its size). Two writes may run at once (they touch different rows).
   */
  private scheduleFlush(): void {
    // SQLite: one connection, so one transaction at a time.
    const maxWrites = this.sqlite ? 1 : 3;
    if (this.flushTimer || this.flushing.size >= maxWrites || this.pending.length === 0) return;
    const delay = this.pending.length >= 200 ? 0 : 10;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      const p: Promise<void> = this.flushBatch().finally(() => {
        this.flushing.delete(p);
        this.scheduleFlush();
      });
      this.flushing.add(p);
    }, delay);
  }

  /** Writes everything finished so far (and waits for writes under way). */
  private async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    await Promise.all([...this.flushing]);
    while (this.pending.length > 0) await this.flushBatch();
  }

  private async flushBatch(): Promise<void> {
    const batch = this.pending.splice(0, 500);
    if (batch.length === 0) return;
    const t0 = performance.now();
    try {
      await this.record(batch);
      this.stats.flushes++;
      this.stats.flushed += batch.length;
      this.stats.flushMs += performance.now() - t0;
    } catch (err) {
      // The leases expire and the events are tried again: at-least-once.
      this.deps.logger.error('webhook outcomes not recorded', {
        count: batch.length,
        error: describeError(err),
      });
    }
    // Delivered heads make their successors due: claim them now rather than at the next poll.
    if (batch.some((a) => a.outcome.error === null) && !this.stopped) this.kick();
  }

  // ---- database --------------------------------------------------------------------------------------------

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
   * The outcome transaction in one round trip: `SET TRANSACTION …; START TRANSACTION; <stmts>; COMMIT` as one
   * multi-statement query (values bound client-side by mysql2, never spliced in). The server stops at the first
   * failing statement; the transaction is then rolled back on the same connection before it goes back to the
   * pool. Deadlocks and Galera certification conflicts (1213, at COMMIT) re-run the whole query, as tx() does.
   * Returns how many fenced rows were not ours any more (lease lost).
   */
  private async recordInOneRoundTrip(
    pool: MysqlPool,
    stmts: { sql: string; params: unknown[]; fenced?: number }[],
  ): Promise<number> {
    const text = [
      'SET TRANSACTION ISOLATION LEVEL READ COMMITTED',
      'START TRANSACTION',
      ...stmts.map((st) => st.sql),
      'COMMIT',
    ].join(';\n');
    const params = stmts.flatMap((st) => st.params);
    for (let i = 1; ; i++) {
      const conn = await new Promise<MysqlConnection>((resolve, reject) =>
        pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
      );
      try {
        const results = await new Promise<{ affectedRows?: number }[]>((resolve, reject) =>
          conn.query(text, params, (err, res) =>
            err ? reject(err) : resolve(res as { affectedRows?: number }[]),
          ),
        );
        conn.release();
        let lost = 0;
        for (const [k, st] of stmts.entries())
          if (st.fenced !== undefined) lost += st.fenced - (results[k + 2]?.affectedRows ?? 0);
        return lost;
      } catch (e) {
        // whatever ran before the failing statement is undone before the connection is reused
        await new Promise<void>((resolve) => conn.query('ROLLBACK', [], () => resolve()));
        conn.release();
        if (i >= 5 || !isDeadlock(e)) throw e;
        await new Promise((r) => setTimeout(r, Math.random() * 10 * i));
      }
    }
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
    const leaseMs = this.timeoutMs + LEASE_MARGIN_MS;
    const lease = new Date(now.getTime() + leaseMs);
    const limit = Math.max(1, Math.min(max, 500));
    for (let round = 0; round < 5; round++) {
      // Candidates read right after the previous claim's compare-and-set, in the same round trip (below), when
      // still fresh; else read now.
      const pre = this.prefetched;
      this.prefetched = undefined;
      const due: Record<string, unknown>[] =
        round === 0 && pre && performance.now() - pre.at < PREFETCH_TTL_MS && pre.rows.length > 0
          ? pre.rows.slice(0, limit)
          : await ds.query(candidatesSql(limit), [this.t(now)]);
      if (due.length === 0) return [];

      const go: Record<string, unknown>[] = [];
      const behindRetry: string[] = [];
      const behindFailed: string[] = [];
      for (const e of due) {
        if (e.head_seq == null || Number(e.head_seq) >= Number(e.sequence)) go.push(e);
        else if (Number(e.failed_before) > 0) behindFailed.push(String(e.id));
        else behindRetry.push(String(e.id));
      }
      // Parked behind a head still being tried: looked at again after a lease period (the head's delivery wakes
      // it sooner; the bound covers a wake missed on a member that had not yet applied the successor's insert).
      // Behind a failed head: until a redelivery wakes it (and daily).
      await this.park(behindRetry, new Date(now.getTime() + leaseMs), now);
      await this.park(behindFailed, new Date(now.getTime() + PARK_MS), now);
      await this.unparkOvertaken(
        [...behindRetry, ...behindFailed],
        due.map((e) => ({ id: String(e.id), session_id: String(e.session_id) })),
        now,
      );
      if (go.length === 0) continue;

      const token = newId('clm');
      const ids = go.map((e) => String(e.id)).sort();
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
          const [res, next] = await multiQuery<[{ affectedRows?: number }, Record<string, unknown>[]]>(
            pool,
            `${casSql};\n${candidatesSql(limit)}`,
            [...casParams, this.t(now)],
          );
          took = changedRows(res);
          this.prefetched = { rows: next, at: performance.now() };
        } else {
          took = changedRows(await ds.query(casSql, casParams));
        }
      } catch (e) {
        // Another relay's claim of the same rows won (Galera certification, or a deadlock victim): nothing of
        // this claim committed.
        if (isDeadlock(e)) return [];
        throw e;
      }
      let mine = go;
      if (took !== ids.length) {
        // Some candidates went to another relay between our read and our update: ours are those with our token.
        // sql-lint-allow: session-scope: read back by this claim's random token (globally unique), across tenants by design
        const rows: { id: string }[] = await ds.query('SELECT id FROM webhook_event WHERE claim_token = ?', [
          token,
        ]);
        const own = new Set(rows.map((r) => String(r.id)));
        mine = go.filter((e) => own.has(String(e.id)));
      }
      if (mine.length === 0) continue;
      return mine.map((r) => ({
        id: String(r.id),
        businessId: String(r.business_id),
        environment: r.environment as 'sandbox' | 'production',
        sessionId: String(r.session_id),
        sequence: Number(r.sequence),
        event: String(r.event),
        deliveryId: String(r.delivery_id),
        body: String(r.body),
        attempts: Number(r.attempts),
        claimToken: token,
        url: r.url == null ? null : String(r.url),
        endpointId: r.endpoint_id == null ? null : String(r.endpoint_id),
        secret: r.secret == null ? null : String(r.secret),
        previousSecret: r.previous_secret == null ? null : String(r.previous_secret),
        previousSecretExpiresAt:
          r.previous_secret_expires_at == null ? null : toDate(r.previous_secret_expires_at),
      }));
    }
    return [];
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
   * Writes the outcomes of finished attempts in one transaction: every attempt row (one insert), the delivered
   * events (one update per claim, fenced by its token), retries and failures (one update each, fenced), and
   * wakes the successor of each delivered event. An outcome whose lease was taken over by another relay stays
   * an attempt row only.
   */
  private async record(batch: Attempted[]): Promise<void> {
    if (batch.length === 0) return;
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
    // The statements of the outcome transaction; `fenced`: rows a fenced update must change (else lease lost).
    const stmts: { sql: string; params: unknown[]; fenced?: number }[] = [
      {
        sql: `INSERT INTO webhook_attempt (${cols.join(', ')}) VALUES ${rows.map(() => `(${marks(cols)})`).join(', ')}`,
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
    // Wake each delivered event's successor (sequences of a session are 0, 1, 2, ...), parked behind it. It
    // cannot have been claimed yet: its predecessor was not delivered until this commit. Written as two IN
    // lists so the (session_id, sequence) index is used as a range; a cross-product match (another session's
    // later event) is only made due early, and the claim parks it again.
    const heads = [...delivered.values()].flat().map((a) => a.d);
    if (heads.length > 0) {
      const sessions = [...new Set(heads.map((d) => d.sessionId))].sort();
      const next = [...new Set(heads.map((d) => d.sequence + 1))];
      stmts.push({
        // sql-lint-allow: session-scope: by outbox ids/session ids this relay claimed (globally unique), guarded by the claim token
        sql: `UPDATE webhook_event SET next_attempt_at = ?
           WHERE session_id IN (${marks(sessions)}) AND sequence IN (${marks(next)}) AND status = 'pending'`,
        params: [this.t(now), ...sessions, ...next],
      });
    }
    let lost = 0;
    const pool = this.multiStatementPool();
    if (pool) {
      lost = await this.recordInOneRoundTrip(pool, stmts);
    } else {
      await this.tx(async (m) => {
        lost = 0;
        for (const st of stmts) {
          if (st.fenced === undefined) await m.query(st.sql, st.params);
          else lost += st.fenced - (await update(m, st.sql, st.params));
        }
      });
    }
    if (lost > 0) this.deps.logger.warn('webhook lease lost; outcome kept as attempt only', { count: lost });
    for (const { a, delay } of [
      ...[...delivered.values()].flat().map((a) => ({ a, delay: null })),
      ...others,
    ]) {
      const result = a.outcome.error === null ? 'delivered' : delay === null ? 'failed' : 'retry';
      this.deps.metrics?.delivery(result);
      const fields = {
        event_id: a.d.id,
        event: a.d.event,
        session: logTag(a.d.sessionId),
        attempt: a.d.attempts + 1,
        status_code: a.outcome.statusCode,
        error: a.outcome.error,
        result,
      };
      if (result === 'failed') this.deps.logger.warn('webhook delivery failed permanently', fields);
      else this.deps.logger.info('webhook attempt', fields);
    }
  }

  // ---- HTTP ------------------------------------------------------------------------------------------------

  private async attempt(d: ClaimedDelivery): Promise<Attempted> {
    const { clock } = this.deps;
    const attemptedAt = clock.now();
    const t0 = performance.now();
    let outcome: Outcome;
    let url: string | null = null;
    try {
      if (d.url === null || d.secret === null || d.endpointId === null) {
        outcome = {
          statusCode: null,
          error: 'no webhook endpoint is configured',
          retryAfterMs: null,
          url: null,
          excerpt: null,
        };
      } else {
        const opts = { environment: d.environment, allowPrivate: this.deps.allowPrivateTargets };
        await this.checkUrl(d.url, opts);
        url = d.url;
        const now = clock.now();
        const timestamp = Math.floor(now.getTime() / 1000);
        const endpointId = d.endpointId;
        const secrets = activeSecrets(
          {
            secret: d.secret,
            previousSecret: d.previousSecret,
            previousSecretExpiresAt: d.previousSecretExpiresAt,
          },
          now,
        ).map((sealed) => this.deps.secrets.open(endpointId, sealed));
        const res = await inSpan(
          'webhook POST',
          { 'webhook.event': d.event },
          () => this.post(d, opts, injectTraceHeaders(deliveryHeaders(d, secrets, timestamp))),
          SpanKind.CLIENT,
        );
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        outcome = {
          statusCode: res.statusCode,
          error: ok ? null : `HTTP ${res.statusCode}`,
          retryAfterMs: ok ? null : parseRetryAfter(res.retryAfter, clock.now()),
          url,
          excerpt: res.excerpt,
        };
      }
    } catch (err) {
      outcome = { statusCode: null, error: describeError(err), retryAfterMs: null, url, excerpt: null };
    }
    return { d, attemptedAt, durationMs: Math.round(performance.now() - t0), outcome };
  }

  /** assertDeliverableUrl, remembered briefly per URL: with kept-alive connections most attempts open none. */
  private async checkUrl(url: string, opts: DeliverableOpts): Promise<void> {
    const key = `${opts.environment} ${url}`;
    const now = performance.now();
    const until = this.checkedUrls.get(key);
    if (until !== undefined && until > now) return;
    await assertDeliverableUrl(url, opts);
    if (this.checkedUrls.size > 10_000) this.checkedUrls.clear();
    this.checkedUrls.set(key, now + URL_CHECK_TTL_MS);
  }

  /**
   * One keep-alive agent per (business, environment): a connection is only ever reused for the tenant that
   * opened it, and every new connection resolves through guardedLookup (the address checked is the address
   * connected to).
   */
  private agentFor(d: ClaimedDelivery, secure: boolean): http.Agent {
    const key = `${d.businessId} ${d.environment} ${secure ? 's' : ''}`;
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key); // re-insert: Map order is the LRU order
      this.agents.set(key, agent);
      return agent;
    }
    const options: http.AgentOptions = {
      keepAlive: true,
      maxSockets: 32,
      maxFreeSockets: 32,
      scheduling: 'lifo',
    };
    // No lookup here: each request passes guardedLookup, which the agent hands to every connection it opens.
    agent = secure ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(key, agent);
    if (this.agents.size > MAX_AGENTS) {
      const [oldest, a] = this.agents.entries().next().value as [string, http.Agent];
      this.agents.delete(oldest);
      a.destroy();
    }
    return agent;
  }

  private post(d: ClaimedDelivery, opts: DeliverableOpts, headers: Record<string, string>): Promise<Answer> {
    const target = new URL(d.url as string);
    const secure = target.protocol === 'https:';
    const agent = this.agentFor(d, secure);
    const once = () =>
      new Promise<Answer>((resolve, reject) => {
        const client = secure ? https : http;
        const req = client.request(
          target,
          {
            method: 'POST',
            headers: { ...headers, 'Content-Length': String(Buffer.byteLength(d.body)) },
            lookup: guardedLookup(opts),
            agent,
          },
          (res) => {
            // The first RESPONSE_EXCERPT_BYTES of the answer go to the delivery log; the rest is drained
            // (which also frees the socket for reuse). Settled when the body ends or is cut off.
            const chunks: Buffer[] = [];
            let kept = 0;
            const settle = () => {
              clearTimeout(timer);
              resolve({
                statusCode: res.statusCode ?? 0,
                retryAfter: res.headers['retry-after'],
                excerpt: kept > 0 ? Buffer.concat(chunks) : null,
              });
            };
            res.on('data', (c: Buffer) => {
              if (kept >= RESPONSE_EXCERPT_BYTES) return;
              const part = c.subarray(0, RESPONSE_EXCERPT_BYTES - kept);
              chunks.push(part);
              kept += part.length;
            });
            res.on('end', settle);
            res.on('close', settle); // a body cut off after the status line changes nothing
            res.on('error', () => {});
          },
        );
        const timer = setTimeout(
          () => req.destroy(new Error(`timeout after ${this.timeoutMs} ms`)),
          this.timeoutMs,
        );
        req.on('error', (err) => {
          clearTimeout(timer);
          (err as { reusedSocket?: boolean }).reusedSocket = req.reusedSocket;
          reject(err);
        });
        req.end(d.body);
      });
    return once().catch((err: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
      // A kept-alive socket the receiver closed as we reused it: the request never reached it, try once on a
      // fresh connection (Node's documented pattern) instead of waiting for the retry schedule.
      if (err.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) return once();
      throw err;
    });
  }
}

interface Answer {
  statusCode: number;
  retryAfter: string | undefined;
  excerpt: Buffer | null;
}

interface MysqlConnection {
  query(sql: string, values: unknown[], cb: (err: Error | null, res: unknown) => void): void;
  release(): void;
}
interface MysqlPool {
  getConnection(cb: (err: Error | null, conn: MysqlConnection) => void): void;
}

/**
 * Due candidates, oldest first, each with its session's head (the lowest undelivered sequence) and whether a
 * failed event is ahead of it, and its endpoint.
 */
const candidatesSql = (limit: number): string =>
  `SELECT e.id, e.business_id, e.environment, e.session_id, e.sequence, e.event, e.delivery_id, e.body,
          e.attempts, p.id AS endpoint_id, p.url, p.secret, p.previous_secret, p.previous_secret_expires_at,
          (SELECT MIN(h.sequence) FROM webhook_event h
            WHERE h.session_id = e.session_id AND h.status <> 'delivered') AS head_seq,
          (SELECT COUNT(*) FROM webhook_event f
            WHERE f.session_id = e.session_id AND f.status = 'failed' AND f.sequence < e.sequence)
            AS failed_before
   FROM webhook_event e
   LEFT JOIN webhook_endpoint p ON p.business_id = e.business_id AND p.environment = e.environment
   WHERE e.status = 'pending' AND e.next_attempt_at <= ?
   ORDER BY e.next_attempt_at LIMIT ${limit}`;

/** One multi-statement query on a connection of `pool` (values bound by mysql2): one result per statement. */
function multiQuery<T>(pool: MysqlPool, text: string, params: unknown[]): Promise<T> {
  return new Promise<T>((resolve, reject) =>
    pool.getConnection((err, conn) => {
      if (err) return reject(err);
      conn.query(text, params, (qerr, res) => {
        conn.release();
        if (qerr) reject(qerr);
        else resolve(res as T);
      });
    }),
  );
}

const marks = (xs: readonly unknown[]): string => xs.map(() => '?').join(', ');

/** A DATETIME as read by a raw query: mysql2 gives a Date, SQLite TypeORM's UTC text. */
const toDate = (v: unknown): Date => (v instanceof Date ? v : new Date(`${String(v).replace(' ', 'T')}Z`));

/**
 * Rows an autocommit UPDATE changed. mysql2 reports matched rows (FOUND_ROWS), equal to changed rows here since
 * every claim writes a fresh token; better-sqlite3 through DataSource.query returns no count, so NaN forces the
 * read-back there (SQLite has one writer, so the read-back is exact and cheap).
 */
function changedRows(res: unknown): number {
  const r = res as { affectedRows?: number } | undefined;
  return typeof r?.affectedRows === 'number' ? r.affectedRows : Number.NaN;
}

/** Runs an UPDATE in the transaction of `m` and returns the rows it changed (mysql2 and better-sqlite3 alike). */
async function update(m: EntityManager, sql: string, params: unknown[]): Promise<number> {
  const runner = m.queryRunner;
  if (!runner) throw new Error('update outside a transaction');
  const res = await runner.query(sql, params, true);
  return res.affected ?? 0;
}

function describeError(err: unknown): string {
  if (isAppError(err)) return `${err.code}: ${err.message}`;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
