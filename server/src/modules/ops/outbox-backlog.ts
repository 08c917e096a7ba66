// Owns the outbox backlog read for /metrics: pending webhook events and how long the oldest due one has
// waited. One aggregate read per scrape over the relay's own (status, next_attempt_at) index.
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { WebhookEventEntity } from '../webhook/webhook-event.entity';
import type { OutboxBacklog } from './metrics';

/** A DATETIME read raw: mysql2 gives a Date, SQLite the UTC text `YYYY-MM-DD HH:MM:SS.SSS`. */
const utc = (v: Date | string): Date =>
  v instanceof Date ? v : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v.replace(' ', 'T')}Z`);

export async function readOutboxBacklog(ds: DataSource, clock: Clock): Promise<OutboxBacklog> {
  const now = clock.now();
  // sql-lint-allow: session-scope: an operator-wide gauge over every tenant, deliberately without business_id
  const row = (await ds
    .getRepository(WebhookEventEntity)
    .createQueryBuilder('e')
    .select('COUNT(*)', 'pending')
    .addSelect('MIN(CASE WHEN e.next_attempt_at <= :now THEN e.next_attempt_at END)', 'oldest_due')
    .where('e.status = :status', { status: 'pending', now })
    .getRawOne()) as { pending: number | string; oldest_due: Date | string | null } | undefined;
  const oldest = row?.oldest_due ? utc(row.oldest_due) : null;
  return {
    pending: Number(row?.pending ?? 0),
    lagSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
