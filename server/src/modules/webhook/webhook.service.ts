// Owns the webhook endpoint configuration of a business (one per environment) and manual redelivery.
// The signing secret is shown once, at configuration; no read path returns it.
import type { DataSource, EntityManager } from 'typeorm';
import type { Ctx } from '../../common/context';
import { tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { newId, randomToken } from '../../common/ids';
import type { Environment } from '../../config/config';
import { inTransaction, isMysql } from '../../db/data-source';
import { assertDeliverableUrl } from './ssrf';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookEventEntity } from './webhook-event.entity';

export interface WebhookServiceDeps {
  ds: DataSource;
  /** config.webhookAllowPrivateTargets; honoured for sandbox endpoints only. */
  allowPrivateTargets: boolean;
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
    const secret = `whsec_${randomToken(32)}`;
    const now = ctx.clock.now();
    return inTransaction(this.deps.ds, ctx.manager, async (m) => {
      const repo = m.getRepository(WebhookEndpointEntity);
      const qb = repo
        .createQueryBuilder('w')
        .where('w.businessId = :businessId AND w.environment = :environment', { businessId, environment });
      if (isMysql(this.deps.ds)) qb.setLock('pessimistic_write');
      const existing = await qb.getOne();
      if (existing) {
        await repo.update({ id: existing.id }, { url, secret, updatedAt: now });
        return { id: existing.id, url, secret, createdAt: existing.createdAt };
      }
      const id = newId('whep');
      await repo.insert({ id, businessId, environment, url, secret, createdAt: now, updatedAt: now });
      return { id, url, secret, createdAt: now };
    });
  }

  async getEndpoint(ctx: Ctx): Promise<{ id: string; url: string; createdAt: Date } | null> {
    const { businessId, environment } = tenantOf(ctx);
    const row = await (ctx.manager ?? this.deps.ds.manager)
      .getRepository(WebhookEndpointEntity)
      .findOne({ where: { businessId, environment }, select: { id: true, url: true, createdAt: true } });
    return row ? { id: row.id, url: row.url, createdAt: row.createdAt } : null;
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
    return rows.map((r) => ({
      id: r.id,
      event: r.event,
      deliveryId: r.deliveryId,
      status: r.status,
      attempts: r.attempts,
      lastError: r.lastError,
      createdAt: r.createdAt,
      nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt : null,
      deliveredAt: r.deliveredAt,
    }));
  }

  /**
   * Puts a permanently failed event back in the queue with a fresh retry schedule. Later events of its session
   * (held back to keep order) follow once it is delivered. Other tenants' events are not_found.
   */
  async redeliver(ctx: Ctx, eventId: string): Promise<void> {
    const { businessId, environment } = tenantOf(ctx);
    const now = ctx.clock.now();
    await inTransaction(this.deps.ds, ctx.manager, async (m) => {
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
    });
  }
}
