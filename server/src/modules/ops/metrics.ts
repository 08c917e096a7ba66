// Owns the Prometheus metrics of one service instance (prom-client, a registry per instance so several
// services in one test process do not share counters): HTTP requests by route template and status with a
// latency histogram, webhook deliveries by outcome and the outbox's backlog, verification outcomes by error
// code, expiry-sweeper passes. Other modules get a tiny hook object, never prom-client itself.
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The one call the webhook relay makes per recorded attempt. */
export interface DeliveryMetrics {
  delivery(outcome: 'delivered' | 'retry' | 'failed'): void;
}

/** Backlog of the outbox at scrape time. */
export interface OutboxBacklog {
  /** Pending events (due or waiting for a retry). */
  pending: number;
  /** Seconds since the oldest due pending event became due (0 when none is due). */
  lagSeconds: number;
}

/** Paths mounted outside the route registry (no route template): labelled by their mount point. */
const MOUNTS = ['/graphql', '/assets'];

export class ServiceMetrics implements DeliveryMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly verifications: Counter<'outcome'>;
  private readonly sweeps: Counter<'outcome'>;
  private readonly expired: Counter;

  constructor(opts: { outbox?: () => Promise<OutboxBacklog> } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency from arrival to the end of the answer, by route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry scheduled, failed for good).',
      labelNames: ['outcome'],
      registers,
    });
    this.verifications = new Counter({
      name: 'verification_outcomes_total',
      help: 'Presentation verifications by outcome: "verified" or the refusal error code.',
      labelNames: ['outcome'],
      registers,
    });
    this.sweeps = new Counter({
      name: 'expiry_sweeper_passes_total',
      help: 'Expiry sweeper passes by outcome (ok, error).',
      labelNames: ['outcome'],
      registers,
    });
    this.expired = new Counter({
      name: 'expiry_sweeper_expired_sessions_total',
      help: 'Sessions expired by the sweeper.',
      registers,
    });
    const outbox = opts.outbox;
    if (outbox) {
      // Both gauges read one query per scrape; the second reuses the first's answer.
      let last: Promise<OutboxBacklog> | undefined;
      const read = () => {
        last ??= outbox().finally(() => setImmediate(() => (last = undefined)));
        return last;
      };
      new Gauge({
        name: 'webhook_outbox_pending',
        help: 'Webhook events not yet delivered or failed for good.',
        registers,
        async collect() {
          this.set((await read()).pending);
        },
      });
      new Gauge({
        name: 'webhook_outbox_lag_seconds',
        help: 'How long the oldest due webhook event has been waiting for the relay.',
        registers,
        async collect() {
          this.set((await read()).lagSeconds);
        },
      });
    }
  }

  /**
   * Times every request. The route label is the matched route template (`/v1/sessions/:id`), never the raw
   * path, so ids and capability URLs neither leak into metrics nor explode cardinality.
   */
  http(): RequestHandler {
    return (req, res, next) => {
      const t0 = process.hrtime.bigint();
      res.on('finish', () => {
        const route = routeTemplateOf(req);
        this.request(req.method, route, res.statusCode, Number(process.hrtime.bigint() - t0) / 1e9);
      });
      next();
    };
  }

  /** One answered request (the Express middleware above, and the /v1 pipeline). */
  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  delivery(outcome: 'delivered' | 'retry' | 'failed'): void {
    this.deliveries.inc({ outcome });
  }

  verification(outcome: string): void {
    this.verifications.inc({ outcome });
  }

  sweep(outcome: 'ok' | 'error', expired = 0): void {
    this.sweeps.inc({ outcome });
    if (expired > 0) this.expired.inc(expired);
  }

  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** An Express request's route template (never its raw path, which may hold a capability), or its mount. */
export function routeTemplateOf(req: IncomingMessage): string {
  const r = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string; originalUrl?: string };
  if (r.route?.path) return `${r.baseUrl ?? ''}${String(r.route.path)}`;
  const url = r.originalUrl ?? req.url ?? '';
  return MOUNTS.find((m) => url === m || url.startsWith(`${m}/`) || url.startsWith(`${m}?`)) ?? 'unmatched';
}
