// Owns the webhook endpoint configuration of a business (one per environment) and manual redelivery.
// The signing secret is shown once, at configuration; no read path returns it, and it is stored sealed under
// the master key (secret-box.ts, ADR 0028).
import { Brackets, type DataSource, type EntityManager, In, type SelectQueryBuilder } from 'typeorm';
import type { Ctx } from '../../common/context';
import { tenantOf } from '../../common/context';
import { decodeCursor, type Page, pageSize, toPage } from '../../common/cursor';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import { assertDeliverableUrl } from '../../common/ssrf';
import type { Environment } from '../../config/config';
import { inTransaction, isMysql } from '../../db/data-source';
import { auditActorOf, writeAccountAudit } from '../accounts/audit';
import { enqueueEvent } from './outbox';
import type { WebhookSecretBox } from './secret-box';
import { newWebhookSecret } from './signature';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEventEntity } from './webhook-event.entity';

export interface WebhookServiceDeps {
  ds: DataSource;
  /** config.webhookAllowPrivateTargets; honoured for sandbox endpoints only. */
  allowPrivateTargets: boolean;
  /** Seals the signing secrets before they are stored. */
  secrets: WebhookSecretBox;
  /** Called after a commit that made events due (wakes the relay). */
  onQueued?: () => void;
}

/** Default and maximum of the rotation overlap (the old secret keeps signing until then). */
export const ROTATION_OVERLAP_DEFAULT_MS = 24 * 3600 * 1000;
export const ROTATION_OVERLAP_MAX_MS = 7 * 24 * 3600 * 1000;
/** The event of a sandbox test delivery; not tied to a session (its stream id is a `whtest_` id). */
export const TEST_EVENT = 'webhook.test';

export interface WebhookEndpointView {
  id: string;
  url: string;
  createdAt: Date;
  /** While a rotation overlap runs: when the previous secret stops signing. */
  previousSecretExpiresAt: Date | null;
}

export interface WebhookAttemptView {
  id: string;
  /** The delivery (outbox event) this attempt belongs to. */
  deliveryEventId: string;
  event: string;
  deliveryId: string;
  attemptedAt: Date;
  url: string | null;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  /** The exact JSON body POSTed (signed as sent); the same on every attempt of a delivery. */
  requestBody: string;
}

export interface WebhookDeliveryView {
  id: string;
  event: string;
  deliveryId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** The account audit row of a webhook operation (who, what, when), in the operation's transaction. */
  private audit(
    m: EntityManager,
    ctx: Ctx,
    action: string,
    target: string | null,
    detail: Record<string, unknown>,
  ): Promise<void> {
    return writeAccountAudit(m, ctx.clock.now(), {
      businessId: tenantOf(ctx).businessId,
      actor: auditActorOf(ctx.actor),
      action,
      target,
      detail: { environment: tenantOf(ctx).environment, ...detail },
    });
  }

  /**
   * Sets (or replaces) the endpoint of the caller's business and environment with a fresh secret, which is
   * returned only here. Replacing keeps the endpoint id and rotates the secret: the relay always signs with the
   * current one, so pending retries are signed with the new secret.
   */
  async configureEndpoint(
    ctx: Ctx,
    url: string,
  ): Promise<{ id: string; url: string; secret: string; createdAt: Date }> {
    const { businessId, environment } = tenantOf(ctx);
    await assertDeliverableUrl(url, { environment, allowPrivate: this.deps.allowPrivateTargets });
    const secret = newWebhookSecret();
    const now = ctx.clock.now();
    return inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const repo = m.getRepository(WebhookEndpointEntity);
      const qb = repo
        .createQueryBuilder('w')
        .where('w.businessId = :businessId AND w.environment = :environment', { businessId, environment });
      if (isMysql(this.deps.ds)) qb.setLock('pessimistic_write');
      const existing = await qb.getOne();
      if (existing) {
        // a new URL is a new trust relationship: the old secret stops at once (no overlap)
        await repo.update(
          { id: existing.id },
          {
            url,
            secret: this.deps.secrets.seal(existing.id, secret),
            previousSecret: null,
            previousSecretExpiresAt: null,
            updatedAt: now,
          },
        );
        await this.audit(m, ctx, 'webhook.endpoint.update', existing.id, {
          url: auditUrl(url),
          previous_url: auditUrl(existing.url),
        });
        return { id: existing.id, url, secret, createdAt: existing.createdAt };
      }
      const id = newId('whep');
      await repo.insert({
        id,
        businessId,
        environment,
        url,
        secret: this.deps.secrets.seal(id, secret),
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      });
      await this.audit(m, ctx, 'webhook.endpoint.create', id, { url: auditUrl(url) });
      return { id, url, secret, createdAt: now };
    });
  }

  async getEndpoint(ctx: Ctx): Promise<WebhookEndpointView | null> {
    const { businessId, environment } = tenantOf(ctx);
    const row = await (ctx.manager ?? this.deps.ds.manager).getRepository(WebhookEndpointEntity).findOne({
      where: { businessId, environment },
      select: { id: true, url: true, createdAt: true, previousSecretExpiresAt: true },
    });
    if (!row) return null;
    const overlap = row.previousSecretExpiresAt;
    return {
      id: row.id,
      url: row.url,
      createdAt: row.createdAt,
      previousSecretExpiresAt: overlap && overlap > ctx.clock.now() ? overlap : null,
    };
  }

  /**
   * Issues a new signing secret (returned only here) and keeps the current one signing next to it until
   * `oldSecretExpiresAt` (default now + 24 h, at most 7 days; now ends it at once). During the overlap every
   * attempt, retries included, carries both signatures. A rotation during an overlap drops the oldest secret:
   * at most two secrets sign at any time.
   */
  async rotateSecret(
    ctx: Ctx,
    oldSecretExpiresAt?: Date | null,
  ): Promise<WebhookEndpointView & { secret: string }> {
    const { businessId, environment } = tenantOf(ctx);
    const now = ctx.clock.now();
    const ends = oldSecretExpiresAt ?? new Date(now.getTime() + ROTATION_OVERLAP_DEFAULT_MS);
    if (
      Number.isNaN(ends.getTime()) ||
      ends < now ||
      ends.getTime() - now.getTime() > ROTATION_OVERLAP_MAX_MS
    )
      throw new AppError(
        'validation_failed',
        'old_secret_expires_at must be between now and 7 days from now.',
        { param: 'old_secret_expires_at' },
      );
    const secret = newWebhookSecret();
    return inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const repo = m.getRepository(WebhookEndpointEntity);
      const qb = repo
        .createQueryBuilder('w')
        .where('w.businessId = :businessId AND w.environment = :environment', { businessId, environment });
      if (isMysql(this.deps.ds)) qb.setLock('pessimistic_write');
      const existing = await qb.getOne();
      if (!existing)
        throw new AppError(
          'webhook_endpoint_required',
          'Configure a webhook endpoint before rotating its secret.',
        );
      // guarded on the secret read: two concurrent rotations cannot both keep the same "previous" secret
      const changed = await repo.update(
        { id: existing.id, secret: existing.secret },
        {
          secret: this.deps.secrets.seal(existing.id, secret),
          // already sealed for this endpoint (the AAD names the endpoint, not the column)
          previousSecret: existing.secret,
          previousSecretExpiresAt: ends,
          updatedAt: now,
        },
      );
      if (changed.affected !== 1)
        throw new AppError('validation_failed', 'The secret was rotated concurrently; try again.');
      await this.audit(m, ctx, 'webhook.secret.rotate', existing.id, {
        old_secret_expires_at: ends.toISOString(),
      });
      return {
        id: existing.id,
        url: existing.url,
        createdAt: existing.createdAt,
        secret,
        previousSecretExpiresAt: ends > now ? ends : null,
      };
    });
  }

  /** Session creation requires a configured endpoint (spec). Runs in the caller's transaction. */
  async hasEndpoint(manager: EntityManager, businessId: string, environment: Environment): Promise<boolean> {
    return (
      (await manager.getRepository(WebhookEndpointEntity).count({ where: { businessId, environment } })) > 0
    );
  }

  /** Recent outbox events of the caller's tenant, newest first (dashboard: deliveries and their state). */
  async listDeliveries(
    ctx: Ctx,
    opts: { sessionId?: string; status?: WebhookDeliveryView['status']; limit?: number } = {},
  ): Promise<WebhookDeliveryView[]> {
    const { businessId, environment } = tenantOf(ctx);
    const rows = await (ctx.manager ?? this.deps.ds.manager).getRepository(WebhookEventEntity).find({
      where: {
        businessId,
        environment,
        ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
        ...(opts.status ? { status: opts.status } : {}),
      },
      order: { createdAt: 'DESC', sequence: 'DESC' },
      take: Math.min(Math.max(opts.limit ?? 50, 1), 200),
    });
    return rows.map(deliveryView);
  }

  /**
   * Puts a permanently failed event back in the queue with a fresh retry schedule. Later events of its session
   * (held back to keep order) follow once it is delivered. Other tenants' events are not_found.
   */
  async redeliver(ctx: Ctx, eventId: string): Promise<WebhookDeliveryView> {
    const { businessId, environment } = tenantOf(ctx);
    const now = ctx.clock.now();
    const view = await inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const repo = m.getRepository(WebhookEventEntity);
      const ev = await repo.findOne({ where: { id: eventId, businessId, environment } });
      if (!ev) throw new AppError('not_found', 'No such webhook event.', { param: 'event_id' });
      if (ev.status !== 'failed') {
        throw new AppError('validation_failed', 'Only failed deliveries can be redelivered.', {
          param: 'event_id',
        });
      }
      await repo.update(
        { id: ev.id, status: 'failed' },
        { status: 'pending', attempts: 0, nextAttemptAt: now },
      );
      await this.audit(m, ctx, 'webhook.redeliver', ev.id, { delivery_id: ev.deliveryId, event: ev.event });
      return deliveryView({ ...ev, status: 'pending', attempts: 0, nextAttemptAt: now });
    });
    this.deps.onQueued?.();
    return view;
  }

  /**
   * Redelivers every failed delivery of the caller's tenant (same delivery ids, fresh schedules). Only the head
   * of a session's stream can be failed (later events wait behind it), so per-session order holds: each
   * session's later events follow once its head is delivered. Returns how many were queued.
   */
  async redeliverAllFailed(ctx: Ctx): Promise<number> {
    const { businessId, environment } = tenantOf(ctx);
    const now = ctx.clock.now();
    const n = await inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const repo = m.getRepository(WebhookEventEntity);
      const failed = await repo.find({
        select: { id: true },
        where: { businessId, environment, status: 'failed' },
      });
      let queued = 0;
      for (const { id } of failed) {
        const r = await repo.update(
          { id, status: 'failed' },
          { status: 'pending', attempts: 0, nextAttemptAt: now },
        );
        queued += r.affected ?? 0;
      }
      await this.audit(m, ctx, 'webhook.redeliver_all', null, { queued });
      return queued;
    });
    if (n > 0) this.deps.onQueued?.();
    return n;
  }

  /**
   * Sandbox only: queues a `webhook.test` event to the configured endpoint, signed and retried like any other.
   * It belongs to no session: its stream id is a fresh `whtest_` id, so it waits behind nothing.
   */
  async sendTestEvent(ctx: Ctx): Promise<WebhookDeliveryView> {
    const { businessId, environment } = tenantOf(ctx);
    if (environment !== 'sandbox')
      throw new AppError('sandbox_only', 'Test events can be sent from the sandbox environment only.');
    const now = ctx.clock.now();
    const view = await inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const endpoint = await m
        .getRepository(WebhookEndpointEntity)
        .findOne({ where: { businessId, environment } });
      if (!endpoint)
        throw new AppError(
          'webhook_endpoint_required',
          'Configure a webhook endpoint before sending a test event.',
        );
      const streamId = newId('whtest');
      const { deliveryId } = await enqueueEvent(m, {
        businessId,
        environment,
        sessionId: streamId,
        event: TEST_EVENT,
        data: { test: true, endpoint_id: endpoint.id, environment, sent_at: now.toISOString() },
        now,
      });
      const row = await m.getRepository(WebhookEventEntity).findOneByOrFail({ deliveryId, businessId });
      await this.audit(m, ctx, 'webhook.test_event', row.id, {
        delivery_id: deliveryId,
        endpoint_id: endpoint.id,
      });
      return deliveryView(row);
    });
    this.deps.onQueued?.();
    return view;
  }

  /** Deliveries of the caller's tenant, newest first, with keyset pagination. */
  async deliveryPage(
    ctx: Ctx,
    opts: {
      first?: number | null;
      after?: string | null;
      status?: WebhookDeliveryView['status'] | null;
      sessionId?: string | null;
    },
  ): Promise<Page<WebhookDeliveryView>> {
    const { businessId, environment } = tenantOf(ctx);
    const size = pageSize(opts.first);
    const cursor = decodeCursor(opts.after);
    const qb = (ctx.manager ?? this.deps.ds.manager)
      .getRepository(WebhookEventEntity)
      .createQueryBuilder('e')
      .where('e.businessId = :businessId AND e.environment = :environment', { businessId, environment });
    if (opts.status) qb.andWhere('e.status = :status', { status: opts.status });
    if (opts.sessionId) qb.andWhere('e.sessionId = :sessionId', { sessionId: opts.sessionId });
    keyset(qb, 'e', 'createdAt', cursor);
    const rows = await qb.take(size + 1).getMany();
    return toPage(rows, size, (r) => ({ at: r.createdAt, id: r.id }), deliveryView);
  }

  /**
   * The delivery log: every attempt to the caller's endpoint, newest first, with keyset pagination; one
   * delivery's attempts with `deliveryEventId`. Another tenant's delivery is simply not there (empty page).
   */
  async attemptPage(
    ctx: Ctx,
    opts: { first?: number | null; after?: string | null; deliveryEventId?: string | null },
  ): Promise<Page<WebhookAttemptView>> {
    const { businessId, environment } = tenantOf(ctx);
    const size = pageSize(opts.first);
    const cursor = decodeCursor(opts.after);
    const m = ctx.manager ?? this.deps.ds.manager;
    const qb = m
      .getRepository(WebhookAttemptEntity)
      .createQueryBuilder('a')
      .where('a.businessId = :businessId AND a.environment = :environment', { businessId, environment });
    if (opts.deliveryEventId) qb.andWhere('a.eventId = :eventId', { eventId: opts.deliveryEventId });
    keyset(qb, 'a', 'attemptedAt', cursor);
    const rows = await qb.take(size + 1).getMany();
    const events = new Map(
      (rows.length
        ? await m.getRepository(WebhookEventEntity).find({
            select: { id: true, event: true, deliveryId: true, body: true },
            where: { id: In([...new Set(rows.map((r) => r.eventId))]), businessId },
          })
        : []
      ).map((e) => [e.id, e]),
    );
    return toPage(
      rows,
      size,
      (r) => ({ at: r.attemptedAt, id: r.id }),
      (r) => ({
        id: r.id,
        deliveryEventId: r.eventId,
        event: events.get(r.eventId)?.event ?? '',
        deliveryId: events.get(r.eventId)?.deliveryId ?? '',
        attemptedAt: r.attemptedAt,
        url: r.url,
        statusCode: r.statusCode,
        durationMs: r.durationMs,
        responseExcerpt: r.responseExcerpt,
        error: r.error,
        requestBody: events.get(r.eventId)?.body ?? '',
      }),
    );
  }
}

/** Newest first by (time, id), starting after `cursor`. */
export function keyset<T extends object>(
  qb: SelectQueryBuilder<T>,
  alias: string,
  timeField: string,
  cursor: { at: Date; id: string } | null,
): void {
  if (cursor)
    qb.andWhere(
      new Brackets((w) =>
        w
          .where(`${alias}.${timeField} < :cAt`, { cAt: cursor.at })
          .orWhere(`${alias}.${timeField} = :cAt AND ${alias}.id < :cId`, { cId: cursor.id }),
      ),
    );
  qb.orderBy(`${alias}.${timeField}`, 'DESC').addOrderBy(`${alias}.id`, 'DESC');
}

function deliveryView(r: WebhookEventEntity): WebhookDeliveryView {
  return {
    id: r.id,
    event: r.event,
    deliveryId: r.deliveryId,
    status: r.status,
    attempts: r.attempts,
    lastError: r.lastError,
    createdAt: r.createdAt,
    nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt : null,
    deliveredAt: r.deliveredAt,
  };
}

/**
 * An endpoint URL as the audit trail keeps it: scheme, host and path. User info, query and fragment are left
 * out, since integrators sometimes put a token there and the audit must never hold a secret.
 */
export function auditUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparsable)';
  }
}
