// Owns the support views of sessions for dashboard users: a filtered, paginated session list and the timeline
// of one session (session_event entries merged with its webhook deliveries and their attempts). Read-only.
// Listed statuses are as persisted: an overdue session shows `expired` once the expiry sweep or any access
// has noticed it (spec: expiry is noticed at the next state access).
import type { DataSource } from 'typeorm';
import { In } from 'typeorm';
import type { Ctx } from '../../common/context';
import { tenantOf } from '../../common/context';
import { decodeCursor, type Page, pageSize, toPage } from '../../common/cursor';
import { AppError } from '../../common/errors';
import type { Environment } from '../../config/config';
import { SessionEntity } from '../session/session.entity';
import { SESSION_STATUSES, type SessionStatus } from '../session/session.machine';
import type { FailureReason } from '../session/session.state';
import { SessionEventEntity } from '../timeline/session-event.entity';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { keyset } from '../webhook/webhook.service';
import { WebhookAttemptEntity } from '../webhook/webhook-attempt.entity';
import { WebhookEventEntity } from '../webhook/webhook-event.entity';

export interface SessionListFilter {
  status?: SessionStatus | null;
  workflowId?: string | null;
  environment?: Environment | null;
  /** Inclusive lower bound of created_at. */
  createdFrom?: Date | null;
  /** Exclusive upper bound of created_at. */
  createdTo?: Date | null;
  /** Text the metadata's JSON contains (the business's own reference). */
  reference?: string | null;
}

export interface SessionSummary {
  id: string;
  environment: Environment;
  workflowId: string;
  workflowRevision: number;
  status: SessionStatus;
  currentStage: number;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  failureReason: FailureReason | null;
  metadata: Record<string, unknown> | null;
}

export interface TimelineEntry {
  at: Date;
  /** A session_event kind, or webhook_queued / webhook_attempt. */
  kind: string;
  stage: number | null;
  /** Refusal or failure code; for webhook_attempt the HTTP status (or null when no answer came). */
  code: string | null;
  detail: Record<string, unknown> | null;
}

/** Within one instant: the session's own entries in write order, then queued webhooks, then attempts. */
interface Sortable extends TimelineEntry {
  rank: number;
  order: string;
}

export class SupportService {
  constructor(private readonly deps: { ds: DataSource }) {}

  /**
   * The environments the caller may read. An API-key actor (ADR 0002) reads its key's environment; a dashboard
   * user with roles may be given both when accounts land.
   */
  private environments(ctx: Ctx): Environment[] {
    return [tenantOf(ctx).environment];
  }

  async listSessions(
    ctx: Ctx,
    filter: SessionListFilter,
    first?: number | null,
    after?: string | null,
  ): Promise<Page<SessionSummary>> {
    const { businessId } = tenantOf(ctx);
    const size = pageSize(first);
    const cursor = decodeCursor(after);
    if (filter.status && !(SESSION_STATUSES as readonly string[]).includes(filter.status))
      throw new AppError('validation_failed', 'Unknown status.', { param: 'filter.status' });
    for (const [k, d] of [
      ['createdFrom', filter.createdFrom],
      ['createdTo', filter.createdTo],
    ] as const)
      if (d && Number.isNaN(d.getTime()))
        throw new AppError('validation_failed', `${k} is not a valid time.`, { param: `filter.${k}` });
    if (filter.createdFrom && filter.createdTo && filter.createdFrom > filter.createdTo)
      throw new AppError('validation_failed', 'createdFrom must not be after createdTo.', {
        param: 'filter.createdFrom',
      });
    const reference = filter.reference?.trim() ?? '';
    if (filter.reference != null && (reference.length === 0 || reference.length > 200))
      throw new AppError('validation_failed', 'reference must be 1-200 characters.', {
        param: 'filter.reference',
      });
    const allowed = this.environments(ctx);
    const envs = filter.environment ? allowed.filter((e) => e === filter.environment) : allowed;
    if (envs.length === 0) return { nodes: [], endCursor: null, hasNextPage: false };
    const qb = this.deps.ds
      .getRepository(SessionEntity)
      .createQueryBuilder('s')
      .where('s.businessId = :businessId', { businessId })
      .andWhere('s.environment IN (:...envs)', { envs });
    if (filter.status) qb.andWhere('s.status = :status', { status: filter.status });
    if (filter.workflowId) qb.andWhere('s.workflowId = :workflowId', { workflowId: filter.workflowId });
    if (filter.createdFrom) qb.andWhere('s.createdAt >= :from', { from: filter.createdFrom });
    if (filter.createdTo) qb.andWhere('s.createdAt < :to', { to: filter.createdTo });
    // a substring of the stored JSON text; LIKE's wildcards in the reference are matched literally
    if (reference)
      qb.andWhere("s.metadata LIKE :ref ESCAPE '!'", {
        ref: `%${reference.replace(/[!%_]/g, (c) => `!${c}`)}%`,
      });
    keyset(qb, 's', 'createdAt', cursor);
    const rows = await qb.take(size + 1).getMany();
    return toPage(rows, size, (r) => ({ at: r.createdAt, id: r.id }), summary);
  }

  /** One session (of the caller's tenant; otherwise not_found) and its timeline, oldest first. */
  async timeline(
    ctx: Ctx,
    sessionId: string,
  ): Promise<{ session: SessionSummary; entries: TimelineEntry[] }> {
    const { businessId } = tenantOf(ctx);
    const m = this.deps.ds.manager;
    const s = await m.getRepository(SessionEntity).findOneBy({
      id: sessionId,
      businessId,
      environment: In(this.environments(ctx)),
    });
    if (!s) throw new AppError('not_found', 'No session with this id.', { param: 'id' });
    const [events, requests, deliveries] = await Promise.all([
      m.getRepository(SessionEventEntity).find({ where: { sessionId: s.id } }),
      m.getRepository(WalletRequestEntity).find({
        select: { id: true, stage: true, createdAt: true, transport: true, orderKey: true },
        where: { sessionId: s.id, businessId },
      }),
      m.getRepository(WebhookEventEntity).find({ where: { sessionId: s.id, businessId } }),
    ]);
    const attempts = deliveries.length
      ? await m
          .getRepository(WebhookAttemptEntity)
          .find({ where: { eventId: In(deliveries.map((d) => d.id)), businessId } })
      : [];
    const byId = new Map(deliveries.map((d) => [d.id, d]));
    const entries: Sortable[] = [
      ...entriesOfRows(s, events, requests),
      ...events.map((e) => ({
        rank: 0,
        order: e.orderKey,
        at: e.at,
        kind: e.kind,
        stage: e.stage,
        code: e.code,
        detail: e.detail ? (JSON.parse(e.detail) as Record<string, unknown>) : null,
      })),
      ...deliveries.map((d) => ({
        rank: 1,
        order: String(d.sequence).padStart(10, '0'),
        at: d.createdAt,
        kind: 'webhook_queued',
        stage: null,
        code: null,
        detail: { event: d.event, delivery_id: d.deliveryId, delivery_event_id: d.id, status: d.status },
      })),
      ...attempts.map((a) => {
        const d = byId.get(a.eventId);
        return {
          rank: 2,
          order: '',
          at: a.attemptedAt,
          kind: 'webhook_attempt',
          stage: null,
          code: a.statusCode === null ? null : String(a.statusCode),
          detail: {
            event: d?.event,
            delivery_id: d?.deliveryId,
            status_code: a.statusCode,
            duration_ms: a.durationMs,
            error: a.error,
          },
        };
      }),
    ];
    entries.sort(
      (x, y) =>
        x.at.getTime() - y.at.getTime() ||
        x.rank - y.rank ||
        (x.order < y.order ? -1 : x.order > y.order ? 1 : 0),
    );
    return { session: summary(s), entries: entries.map(({ rank: _r, order: _o, ...e }) => e) };
  }
}

/**
 * The entries whose fact is a row of its own, derived so that each exists exactly when its row does: `created` is
 * the session row (ADR 0023), `started` its started_at, each `wallet_request` the request's row with its transport
 * and order key (ADR 0074). Sessions and requests from before those changes keep the entries stored for them.
 */
function entriesOfRows(
  s: SessionEntity,
  events: SessionEventEntity[],
  requests: WalletRequestEntity[],
): Sortable[] {
  const out: Sortable[] = [];
  const stored = (kind: string) => events.find((e) => e.kind === kind);
  if (!stored('created'))
    out.push({ rank: 0, order: '', at: s.createdAt, kind: 'created', stage: null, code: null, detail: null });
  if (s.startedAt && !stored('started')) {
    // at the same instant, right after the page's `opened` (whose Start it is) and before every later entry
    const order = `${stored('opened')?.orderKey ?? ''} `;
    out.push({ rank: 0, order, at: s.startedAt, kind: 'started', stage: 0, code: null, detail: null });
  }
  for (const r of requests) {
    if (r.orderKey === null) continue; // stored before ADR 0074: its session_event row is the entry
    const detail = { request_id: r.id, transport: r.transport };
    out.push({
      rank: 0,
      order: r.orderKey,
      at: r.createdAt,
      kind: 'wallet_request',
      stage: r.stage,
      code: null,
      detail,
    });
  }
  return out;
}

function summary(s: SessionEntity): SessionSummary {
  return {
    id: s.id,
    environment: s.environment,
    workflowId: s.workflowId,
    workflowRevision: s.workflowRevision,
    status: s.status,
    currentStage: s.currentStage,
    createdAt: s.createdAt,
    expiresAt: s.expiresAt,
    endedAt: s.endedAt,
    failureReason: s.failureReason ? (JSON.parse(s.failureReason) as FailureReason) : null,
    metadata: s.metadata ? (JSON.parse(s.metadata) as Record<string, unknown>) : null,
  };
}
