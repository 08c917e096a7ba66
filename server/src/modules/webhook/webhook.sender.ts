// Owns the HTTP side of a webhook delivery: the SSRF check of the target URL (remembered briefly), keep-alive
// connections per (business, environment) with the checked lookup on every new connection, the signed headers
// (with the tracing context), the POST with its timeout, and the first bytes of the answer for the delivery
// log. No SQL (webhook.outbox-store.ts) and no loop (webhook.relay.ts).
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { SpanKind } from '@opentelemetry/api';
import type { Clock } from '../../common/clock';
import { isAppError } from '../../common/errors';
import { assertDeliverableUrl, type DeliverableOpts, guardedLookup } from '../../common/ssrf';
import { injectTraceHeaders, inSpan } from '../../common/tracing';
import { RESPONSE_EXCERPT_BYTES } from './delivery-log';
import type { WebhookSecretBox } from './secret-box';
import { activeSecrets, webhookDeliveryHeaders } from './signature';

/** A URL that passed assertDeliverableUrl is not re-resolved for this long (new connections still are). */
const URL_CHECK_TTL_MS = 30_000;
/** Keep-alive agents kept (one per business and environment); the least recently used is closed beyond. */
const MAX_AGENTS = 500;
export const WEBHOOK_USER_AGENT = 'CredentialService-Webhooks/1.0';

/** Retry-After as delay-seconds or an HTTP date; null when absent or unusable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,9}$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}

/** What the sender needs of a delivery (a claimed outbox row with its endpoint, webhook.outbox-store.ts). */
export interface SendableDelivery {
  businessId: string;
  environment: 'sandbox' | 'production';
  event: string;
  deliveryId: string;
  body: string;
  url: string | null;
  /** The endpoint the secrets below belong to (their sealing AAD). */
  endpointId: string | null;
  /** Sealed, as stored (opened only to sign this attempt). */
  secret: string | null;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The outcome of one attempt: error null means a 2xx. */
export interface DeliveryOutcome {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
  /** The URL the attempt went to, and the first bytes the receiver answered (delivery log). */
  url: string | null;
  excerpt: Buffer | null;
}

/**
 * The headers of one delivery attempt, built in one place: both signature schemes (X-Service-* and Standard
 * Webhooks), signed with every secret active now (two during a rotation overlap). `timestamp` is unix seconds.
 */
export function deliveryHeaders(
  d: Pick<SendableDelivery, 'event' | 'deliveryId' | 'body'>,
  secrets: readonly string[],
  timestamp: number,
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    ...webhookDeliveryHeaders(d, secrets, timestamp),
  };
}

/** One finished attempt of `d`. */
export interface SentAttempt<D> {
  d: D;
  attemptedAt: Date;
  durationMs: number;
  outcome: DeliveryOutcome;
}

export interface WebhookSenderDeps {
  clock: Clock;
  allowPrivateTargets: boolean;
  /** Opens the endpoints' sealed signing secrets (secret-box.ts). */
  secrets: WebhookSecretBox;
  timeoutMs: number;
}

export class WebhookSender {
  private readonly agents = new Map<string, http.Agent>();
  private readonly checkedUrls = new Map<string, number>();

  constructor(private readonly deps: WebhookSenderDeps) {}

  /** Closes the kept-alive connections (the relay calls this once its deliveries are done). */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  /** One attempt: never throws; whatever went wrong is the outcome's error. */
  async attempt<D extends SendableDelivery>(d: D): Promise<SentAttempt<D>> {
    const { clock } = this.deps;
    const attemptedAt = clock.now();
    const t0 = performance.now();
    let outcome: DeliveryOutcome;
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
  private agentFor(d: SendableDelivery, secure: boolean): http.Agent {
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

  private post(d: SendableDelivery, opts: DeliverableOpts, headers: Record<string, string>): Promise<Answer> {
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
          () => req.destroy(new Error(`timeout after ${this.deps.timeoutMs} ms`)),
          this.deps.timeoutMs,
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

export function describeError(err: unknown): string {
  if (isAppError(err)) return `${err.code}: ${err.message}`;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
