// Owns the Prometheus metrics of one service instance (prom-client, a registry per instance so several
// services in one test process do not share counters): HTTP requests by route template and status with a
// latency histogram, webhook deliveries by outcome and the outbox's backlog, verification outcomes by error
// code, expiry-sweeper passes. Other modules get a tiny hook object, never prom-client itself.
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { Counter, Gauge, type Metric, Registry } from 'prom-client';

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
  private readonly requests = new RequestCounts();
  private readonly deliveries: Counter<'outcome'>;
  private readonly verifications: Counter<'outcome'>;
  private readonly sweeps: Counter<'outcome'>;
  private readonly expired: Counter;

  constructor(opts: { outbox?: () => Promise<OutboxBacklog> } = {}) {
    const registers = [this.registry];
    this.registry.registerMetric(this.requests.counter() as unknown as Metric);
    this.registry.registerMetric(this.requests.histogram() as unknown as Metric);
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
    this.requests.add(method, route, status, seconds);
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

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RequestCount {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Requests per bucket of DURATION_BUCKETS (not cumulative); the last slot is above every bound. */
  buckets: number[];
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, counted per label set in one map and written in
 * prom-client's text at scrape (the registry takes any object with `get()`): the same series, label order and
 * values as a prom-client Counter and Histogram with these labels and buckets, without their per-request
 * label object, label validation and two label hashes (about 7 us of a GET's busy time in a profile).
 */
class RequestCounts {
  private readonly counts = new Map<string, RequestCount>();

  add(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let c = this.counts.get(key);
    if (!c) {
      c = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
      };
      this.counts.set(key, c);
    }
    c.count += 1;
    c.sum += seconds;
    let b = 0;
    while (b < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[b] as number)) b++;
    c.buckets[b] = (c.buckets[b] as number) + 1;
  }

  counter() {
    return {
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status.',
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({
        name: 'http_requests_total',
        help: 'HTTP requests answered, by route template and status.',
        type: 'counter',
        aggregator: 'sum',
        values: [...this.counts.values()].map((c) => ({ labels: c.labels, value: c.count })),
      }),
      reset: () => this.counts.clear(),
    };
  }

  histogram() {
    const name = 'http_request_duration_seconds';
    const help = 'HTTP request latency from arrival to the end of the answer, by route template and status.';
    return {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => {
        const values: {
          labels: Record<string, string | number>;
          sharedLabels?: Record<string, string>;
          value: number;
          metricName: string;
        }[] = [];
        for (const c of this.counts.values()) {
          let acc = 0;
          DURATION_BUCKETS.forEach((le, i) => {
            acc += c.buckets[i] as number;
            values.push({ labels: { le }, sharedLabels: c.labels, value: acc, metricName: `${name}_bucket` });
          });
          values.push(
            { labels: { le: '+Inf' }, sharedLabels: c.labels, value: c.count, metricName: `${name}_bucket` },
            { labels: {}, sharedLabels: c.labels, value: c.sum, metricName: `${name}_sum` },
            { labels: {}, sharedLabels: c.labels, value: c.count, metricName: `${name}_count` },
          );
        }
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
      reset: () => this.counts.clear(),
    };
  }
}
