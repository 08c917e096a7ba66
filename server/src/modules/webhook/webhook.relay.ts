// Owns the delivery loop of outbox events: claim due deliveries, send each at once, write their outcomes in
// batches, and run again when room frees up or an event is queued. The parts it drives own everything else:
// webhook.outbox-store.ts the SQL (claims under a lease, parking, recorded outcomes, retry schedule) and
// webhook.sender.ts the HTTP (URL check, signed POST, keep-alive connections per tenant).
//
// Ordering: events of one session are delivered strictly in `sequence` order; an event is due only when every
// lower-sequence event of its session is delivered. A permanently failed event therefore holds back the later
// events of its session (they stay `pending`, parked) until it is redelivered from the dashboard and gets its
// 2xx; receivers never see, say, session.completed without the step.completed before it.
//
// Delivery is at least once, with the same delivery id, from any number of relays at once (ADR 0014; the
// compare-and-set lease is described in webhook.outbox-store.ts).
//
// Throughput: a continuous pipeline keeps up to `concurrency` deliveries in flight (claims top it up, no batch
// waits for its slowest member), outcomes are written in batches (one multi-row attempt insert and one update
// per claim per flush), connections are kept alive per (business, environment) with the SSRF-checked lookup on
// every new connection, and the relay may run on its own small connection pool.
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { logTag, newId } from '../../common/ids';
import type { Logger } from '../../common/logger';
import type { ClaimAtCommit } from './outbox';
import type { WebhookSecretBox } from './secret-box';
import { claimedDelivery } from './webhook.outbox-rows';
import {
  type Attempted,
  type ClaimedDelivery,
  LEASE_MARGIN_MS,
  MAX_CHAIN,
  type RecordedResult,
  WebhookOutboxStore,
} from './webhook.outbox-store';
import { describeError, WebhookSender } from './webhook.sender';

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

export class WebhookRelay {
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly store: WebhookOutboxStore;
  private readonly sender: WebhookSender;
  private pollMs = 500;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  /** A pump is queued as a microtask (kick): further kicks of the same turn join it. */
  private waking = false;
  /** The background pipeline's state. */
  private inFlight = 0;
  private claiming: Promise<void> | undefined;
  private again = false;
  /** The last claim filled its room, or none was made for want of room: more may be due. */
  private more = false;
  private pending: Attempted[] = [];
  /** Successors claimed with a head that got no 2xx, given back with the next outcome write. */
  private released: ClaimedDelivery[] = [];
  private readonly flushing = new Set<Promise<void>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly idle = new Set<() => void>();
  /**
   * Counters for benchmarks and metrics: claims and outcome flushes, with the time spent in each, and the events
   * sent under a claim made at their transition's commit (ADR 0071).
   */
  readonly stats = {
    claims: 0,
    claimed: 0,
    claimMs: 0,
    claimedAtCommit: 0,
    flushes: 0,
    flushed: 0,
    flushMs: 0,
  };

  constructor(private readonly deps: WebhookRelayDeps) {
    const timeoutMs = deps.timeoutMs ?? 10_000;
    this.timeoutMs = timeoutMs;
    this.concurrency = Math.max(1, deps.concurrency ?? 256);
    this.store = new WebhookOutboxStore({ ds: deps.ds, clock: deps.clock, logger: deps.logger, timeoutMs });
    this.sender = new WebhookSender({
      clock: deps.clock,
      allowPrivateTargets: deps.allowPrivateTargets,
      secrets: deps.secrets,
      timeoutMs,
    });
  }

  /**
   * One synchronous round (tests, tools): claims due events, delivers them (in parallel across sessions),
   * records the outcomes. Returns the number of attempts made.
   */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.concurrency);
    const sent = await Promise.all(claimed.map((d) => this.send(d)));
    await this.record(
      sent.flatMap((x) => x.attempted),
      sent.flatMap((x) => x.released),
    );
    return claimed.length;
  }

  /**
   * Sends a claimed delivery, then its successors claimed with it (a session's next events), each only after
   * the one before it got its 2xx; the successors not sent are released when the outcomes are written.
   */
  private async send(d: ClaimedDelivery): Promise<{ attempted: Attempted[]; released: ClaimedDelivery[] }> {
    const attempted: Attempted[] = [await this.sender.attempt(d)];
    const rest = d.successors ?? [];
    let i = 0;
    while (i < rest.length && attempted[attempted.length - 1]?.outcome.error === null)
      attempted.push(await this.sender.attempt(rest[i++] as ClaimedDelivery));
    return { attempted, released: rest.slice(i) };
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
    this.sender.close();
  }

  /**
   * Claims up to `max` due deliveries (tests and tools; the loop claims through here too). See
   * WebhookOutboxStore.claim.
   */
  claim(max: number): Promise<ClaimedDelivery[]> {
    return this.store.claim(max);
  }

  /**
   * Run now (right after a transaction queued an event) instead of at the next poll. Events the transaction
   * claimed for this relay (`claimToken`, ADR 0071) are sent in `setImmediate`, once the committing request has
   * answered. Otherwise the claim starts in a microtask of the committing request rather than behind a timer: on
   * a busy node a timer waits for every callback already queued (ADR 0061 measured 7 ms at the median, 35 ms at
   * p90, at 8 sessions in flight), and a claim started now only queues its query.
   */
  kick(offered?: Record<string, unknown>[], claimToken?: string): void {
    // Queued under this relay's claim (claimAtCommit): sent with no claim of its own, once the committing
    // request's own continuation has run (its answer to the person goes first; ADR 0071 measured both orders).
    if (claimToken !== undefined && offered && offered.length > 0) {
      const rows = offered;
      setImmediate(() => this.sendClaimed(rows, claimToken));
      return;
    }
    // something was queued here: the candidates read with the last claim do not show it. A transition that
    // read its session's candidates in its commit's round trip offers them: the claim takes them without a
    // read of its own (ADR 0058 amendment 3)
    if (offered && offered.length > 0) this.store.offer(offered);
    else this.store.invalidatePrefetch();
    this.wake();
  }

  /**
   * A claim for the `events` a transition is about to queue, when this relay is running here (ADR 0071): the
   * rows are written with its token and lease, read back in the commit's round trip, and handed to kick. Its
   * lease covers the sends of one chain, as a compare-and-set's does. Undefined when the relay is stopped (or
   * never started: a node whose workers are off), or on the embedded engine: the events are queued unclaimed
   * and a claim takes them, as before.
   */
  claimAtCommit(events: number): ClaimAtCommit | undefined {
    if (this.stopped || this.store.sqlite) return undefined;
    const chain = Math.min(Math.max(1, events), MAX_CHAIN);
    const lease = new Date(this.deps.clock.now().getTime() + this.timeoutMs * chain + LEASE_MARGIN_MS);
    return { token: newId('clm'), lease };
  }

  /**
   * Sends a session's events queued under this relay's claim, read back with the commit: the head and its
   * successors in sequence, as a claim would have chained them. Events behind an undelivered one of their
   * session (their head is elsewhere: in flight, waiting for a retry, failed), or past a chain's length, are
   * given back at once, for a claim to take or park like any other; a relay stopped meanwhile gives back all.
   */
  private sendClaimed(rows: Record<string, unknown>[], token: string): void {
    const sorted = [...rows].sort((a, b) => Number(a.sequence) - Number(b.sequence));
    const chain: Record<string, unknown>[] = [];
    const head = sorted[0];
    const atHead =
      head !== undefined &&
      (head.head_seq == null || Number(head.head_seq) >= Number(head.sequence)) &&
      Number(head.failed_before) === 0;
    if (atHead && !this.stopped)
      for (const r of sorted) {
        const last = chain[chain.length - 1];
        if (last && (chain.length >= MAX_CHAIN || Number(r.sequence) !== Number(last.sequence) + 1)) break;
        chain.push(r);
      }
    const [first, ...successors] = chain.map((r) => claimedDelivery(r, token));
    if (first) {
      this.stats.claimedAtCommit += chain.length;
      this.launch(successors.length > 0 ? { ...first, successors } : first);
    }
    const back = sorted.slice(chain.length).map((r) => String(r.id));
    if (back.length > 0)
      void this.store.releaseClaimed(token, back).then(
        () => this.wake(),
        // the lease runs out and a claim takes them then: at least once, later
        (err: unknown) =>
          this.deps.logger.error('webhook claim not given back', {
            count: back.length,
            error: describeError(err),
          }),
      );
  }

  /** Claims as soon as the one under way (if any) is done. */
  private wake(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waking) return;
    this.waking = true;
    queueMicrotask(() => {
      this.waking = false;
      this.pump();
    });
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
    if (room <= 0 || (this.inFlight > 0 && room < this.concurrency / 4)) {
      this.more = true;
      return;
    }
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
        // A full claim may have left more due: claim again (now, or as deliveries finish). Otherwise nothing
        // is due until a kick, a wake-up of an outcome write, or the poll (a claim as each delivery finished
        // found nothing and held up the next kick's claim behind it, ADR 0061).
        this.more = claimed.length >= room || this.store.moreDue;
        this.schedule(this.more || this.again ? 0 : this.pollMs);
      });
  }

  private launch(d: ClaimedDelivery): void {
    this.inFlight++;
    void this.send(d).then(({ attempted, released }) => {
      this.inFlight--;
      this.pending.push(...attempted);
      this.released.push(...released);
      this.scheduleFlush();
      if ((this.more || this.again) && (this.inFlight <= this.concurrency / 2 || this.inFlight === 0)) {
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
   * the same few milliseconds share a write (one round trip on MySQL whatever its size). Two writes may run at
   * once (they touch different rows).
   */
  private scheduleFlush(): void {
    // SQLite: one connection, so one transaction at a time.
    const maxWrites = this.store.sqlite ? 1 : 3;
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
    const released = this.released.splice(0);
    const t0 = performance.now();
    try {
      await this.record(batch, released);
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
  }

  /**
   * Writes outcomes (one round trip of statements that each commit alone on MySQL, one transaction on SQLite;
   * ADR 0074), then counts and logs each once written. When the write made events
   * due (a delivered head woke its parked successor, released successors) they are claimed now rather than at
   * the next poll; otherwise no claim follows: a session's events claimed together as a chain are all sent by
   * now, and a claim after every write found nothing and held up the next kick's claim behind it (ADR 0061).
   */
  private async record(batch: Attempted[], released: ClaimedDelivery[] = []): Promise<void> {
    const { results, madeDue } = await this.store.record(batch, released);
    for (const { a, result } of results) this.report(a, result);
    if (madeDue) this.wake();
  }

  private report(a: Attempted, result: RecordedResult): void {
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
