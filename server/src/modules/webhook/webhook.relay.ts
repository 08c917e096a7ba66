// Owns delivery of outbox events: claim due rows, POST them signed, record every attempt, schedule retries.
//
// Ordering: events of one session are delivered strictly in `sequence` order; an event is due only when every
// lower-sequence event of its session is delivered. A permanently failed event therefore holds back the later
// events of its session (they stay `pending`, parked) until it is redelivered from the dashboard and gets its
// 2xx; receivers never see, say, session.completed without the step.completed before it.
//
// Claiming: a short READ COMMITTED transaction selects due rows (`FOR UPDATE SKIP LOCKED` on MySQL/MariaDB, so
// several relays share the work; SQLite has a single writer, so one relay per SQLite database) and moves their
// next_attempt_at forward by timeout + margin (a lease). The HTTP call runs outside any transaction; the outcome
// is written only if the lease is still ours. A relay that dies mid-delivery leaves the lease to expire and the
// event is retried (at-least-once).
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { type DataSource, type EntityManager, In, MoreThan, Not } from 'typeorm';
import type { Clock } from '../../common/clock';
import { isAppError } from '../../common/errors';
import { logTag } from '../../common/ids';
import type { Logger } from '../../common/logger';
import { isMysql } from '../../db/data-source';
import { RESPONSE_EXCERPT_BYTES, recordAttempt } from './delivery-log';
import { activeSecrets, webhookDeliveryHeaders } from './signature';
import { assertDeliverableUrl, guardedLookup } from './ssrf';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEventEntity } from './webhook-event.entity';

/** Delay after the n-th failed attempt (index n-1); after the last one the delivery is marked failed. */
export const RETRY_SCHEDULE_MS = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000].map((s) => s * 1000);
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
const LEASE_MARGIN_MS = 30_000;
/** How long events behind a permanently failed one wait before being looked at again (redelivery wakes them). */
const PARK_MS = 24 * 3600 * 1000;
const BATCH = 20;
const MAX_BATCHES_PER_CLAIM = 5;
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
  ds: DataSource;
  clock: Clock;
  logger: Logger;
  allowPrivateTargets: boolean;
  timeoutMs?: number;
  /** ops (issue 11): counts recorded attempts by outcome for /metrics. */
  metrics?: { delivery(outcome: 'delivered' | 'retry' | 'failed'): void };
  /** True when err means the database is away: that outage is logged once elsewhere, not on every poll. */
  isOutage?: (err: unknown) => boolean;
}

interface Claimed {
  event: WebhookEventEntity;
  lease: Date;
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
  url: string | null;
  excerpt: Buffer | null;
}

export class WebhookRelay {
  private readonly timeoutMs: number;
  private pollMs = 500;
  private stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly deps: WebhookRelayDeps) {
    this.timeoutMs = deps.timeoutMs ?? 10_000;
  }

  /** Claims due events, delivers them (in parallel across sessions), records outcomes. Returns attempts made. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    await Promise.all(claimed.map((c) => this.deliver(c)));
    return claimed.length;
  }

  start(pollMs = 500): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.pollMs = pollMs;
    this.schedule(0);
  }

  /** Stops polling and waits for an in-flight run to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Run soon (e.g. right after a transaction queued an event) instead of at the next poll. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    this.timer = undefined;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runOnce()
      .catch((err: unknown) => {
        if (!this.deps.isOutage?.(err))
          this.deps.logger.error('webhook relay run failed', { error: describeError(err) });
        return 0;
      })
      .then((n) => {
        this.running = undefined;
        const soon = n > 0 || this.again;
        this.again = false;
        this.schedule(soon ? 0 : this.pollMs);
      });
  }

  /**
   * READ COMMITTED on MySQL: no gap locks, so two relays' claims (which move rows within the due index) and
   * outcome writes do not deadlock on each other's scanned ranges; SKIP LOCKED then only skips claimed rows.
   */
  private transaction<T>(fn: (m: EntityManager) => Promise<T>): Promise<T> {
    const { ds } = this.deps;
    return isMysql(ds) ? ds.transaction('READ COMMITTED', fn) : ds.transaction(fn);
  }

  /**
   * Claims due session heads. Due events that wait behind an earlier undelivered one are parked (moved out of
   * the due set) so they cannot fill every batch and starve the heads; delivering their predecessor wakes
   * them (see record). If a batch held only parked events, the next batch is looked at.
   */
  private async claim(): Promise<Claimed[]> {
    const { ds, clock } = this.deps;
    return this.transaction(async (m) => {
      const repo = m.getRepository(WebhookEventEntity);
      const now = clock.now();
      const leaseMs = this.timeoutMs + LEASE_MARGIN_MS;
      const lease = new Date(now.getTime() + leaseMs);
      for (let batch = 0; batch < MAX_BATCHES_PER_CLAIM; batch++) {
        const qb = repo
          .createQueryBuilder('e')
          .where('e.status = :pending', { pending: 'pending' })
          .andWhere('e.nextAttemptAt <= :now', { now })
          .orderBy('e.nextAttemptAt', 'ASC')
          .limit(BATCH);
        // The due index keeps the locked set to the rows actually read (a table scan would lock every row).
        if (isMysql(ds))
          qb.useIndex('IDX_webhook_event_due').setLock('pessimistic_write').setOnLocked('skip_locked');
        const due = await qb.getMany();
        if (due.length === 0) return [];

        // The undelivered head of each session decides which candidates may go now.
        const open = await repo.find({
          select: { id: true, sessionId: true, sequence: true, status: true, nextAttemptAt: true },
          where: {
            sessionId: In([...new Set(due.map((e) => e.sessionId))]),
            status: Not('delivered' as const),
          },
        });
        const heads = new Map<string, WebhookEventEntity>();
        for (const e of open) {
          const h = heads.get(e.sessionId);
          if (!h || e.sequence < h.sequence) heads.set(e.sessionId, e);
        }

        const claimed: Claimed[] = [];
        // One primary-key update per row: an `id IN (...)` update may be planned as a scan that waits on rows
        // another relay has locked, which deadlocks against it.
        for (const e of due) {
          const head = heads.get(e.sessionId);
          if (!head || head.id === e.id) {
            claimed.push({ event: e, lease });
            await repo.update({ id: e.id }, { nextAttemptAt: lease });
            continue;
          }
          // Parked until the head's next try at the earliest; the head's delivery wakes it sooner. Behind a
          // failed head it waits for a redelivery (and is looked at again daily).
          const wakeAt =
            head.status === 'failed'
              ? now.getTime() + PARK_MS
              : Math.max(head.nextAttemptAt.getTime(), now.getTime() + leaseMs);
          await repo.update({ id: e.id }, { nextAttemptAt: new Date(wakeAt) });
        }
        if (claimed.length > 0) return claimed;
      }
      return [];
    });
  }

  private async deliver({ event: ev, lease }: Claimed): Promise<void> {
    const { ds, clock } = this.deps;
    const attemptedAt = clock.now();
    const t0 = performance.now();
    let outcome: Outcome;
    let url: string | null = null;
    try {
      const endpoint = await ds
        .getRepository(WebhookEndpointEntity)
        .findOne({ where: { businessId: ev.businessId, environment: ev.environment } });
      if (!endpoint) {
        outcome = {
          statusCode: null,
          error: 'no webhook endpoint is configured',
          retryAfterMs: null,
          url: null,
          excerpt: null,
        };
      } else {
        const opts = { environment: ev.environment, allowPrivate: this.deps.allowPrivateTargets };
        await assertDeliverableUrl(endpoint.url, opts);
        url = endpoint.url;
        const timestamp = Math.floor(clock.now().getTime() / 1000);
        const res = await this.post(endpoint.url, ev.body, guardedLookup(opts), {
          'Content-Type': 'application/json',
          'User-Agent': WEBHOOK_USER_AGENT,
          // both signature schemes, with every secret active now (two during a rotation overlap)
          ...webhookDeliveryHeaders(ev, activeSecrets(endpoint, clock.now()), timestamp),
        });
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
    const durationMs = Math.round(performance.now() - t0);
    try {
      await this.record(ev, lease, attemptedAt, durationMs, outcome);
    } catch (err) {
      // The lease expires and the event is tried again: at-least-once.
      this.deps.logger.error('webhook outcome not recorded', { event_id: ev.id, error: describeError(err) });
    }
  }

  private async record(
    ev: WebhookEventEntity,
    lease: Date,
    attemptedAt: Date,
    durationMs: number,
    o: Outcome,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const attempts = ev.attempts + 1;
    const delay = o.error === null ? null : nextRetryDelayMs(attempts, o.retryAfterMs);
    const result = o.error === null ? 'delivered' : delay === null ? 'failed' : 'retry';
    await this.transaction(async (m) => {
      await recordAttempt(m, {
        eventId: ev.id,
        businessId: ev.businessId,
        environment: ev.environment,
        url: o.url,
        attemptedAt,
        statusCode: o.statusCode,
        error: o.error,
        durationMs,
        responseExcerpt: o.excerpt,
      });
      const repo = m.getRepository(WebhookEventEntity);
      const ours = { id: ev.id, status: 'pending' as const, nextAttemptAt: lease };
      const changed =
        result === 'delivered'
          ? await repo.update(ours, { status: 'delivered', attempts, deliveredAt: now, lastError: null })
          : result === 'failed'
            ? await repo.update(ours, { status: 'failed', attempts, lastError: o.error?.slice(0, 500) })
            : await repo.update(ours, {
                attempts,
                nextAttemptAt: new Date(now.getTime() + (delay ?? 0)),
                lastError: o.error?.slice(0, 500),
              });
      if (changed.affected === 0) {
        this.deps.logger.warn('webhook lease lost; outcome kept as attempt only', { event_id: ev.id });
        return;
      }
      if (result === 'delivered') {
        // Wake the session's next event, parked behind this one. It cannot have been tried or claimed yet (its
        // predecessor was not delivered until this commit), so it is simply made due now. If a concurrent claim
        // holds it (to park it behind this event), the update waits for that claim and then overrides it. No
        // condition on next_attempt_at here: under READ COMMITTED a locked row would be judged on its old value
        // and skipped.
        const next = await repo.findOne({
          select: { id: true },
          where: { sessionId: ev.sessionId, status: 'pending', sequence: MoreThan(ev.sequence) },
          order: { sequence: 'ASC' },
        });
        if (next) await repo.update({ id: next.id, status: 'pending' }, { nextAttemptAt: now });
      }
    });
    this.deps.metrics?.delivery(result);
    const fields = {
      event_id: ev.id,
      event: ev.event,
      session: logTag(ev.sessionId),
      attempt: attempts,
      status_code: o.statusCode,
      error: o.error,
      result,
    };
    if (result === 'failed') this.deps.logger.warn('webhook delivery failed permanently', fields);
    else this.deps.logger.info('webhook attempt', fields);
  }

  private post(
    url: string,
    body: string,
    lookup: ReturnType<typeof guardedLookup>,
    headers: Record<string, string>,
  ): Promise<{ statusCode: number; retryAfter: string | undefined; excerpt: Buffer | null }> {
    return new Promise((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      const req = client.request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
          lookup,
          agent: false, // one connection per attempt; never reuse sockets across tenants
        },
        (res) => {
          // The first RESPONSE_EXCERPT_BYTES of the answer go to the delivery log; the rest is drained. The
          // outcome is settled when the body ends (or is cut off, or the timeout fires).
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
        reject(err);
      });
      req.end(body);
    });
  }
}

function describeError(err: unknown): string {
  if (isAppError(err)) return `${err.code}: ${err.message}`;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
