// A real HTTP webhook receiver for tests: records every delivery with its raw body and headers, answers
// with a programmable status, and verifies signatures the way an integrator would.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: { event: string; delivery_id: string; data: Record<string, unknown> };
  receivedAt: number;
}

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  /** Status codes to answer, in order; afterwards 200. */
  readonly script: number[] = [];
  /** Every request, whatever was answered (deliveries keeps only the 2xx ones). */
  readonly requests: Delivery[] = [];
  /** Status to answer a given delivery with, ahead of `script` (undefined: fall through to it). */
  statusFor: ((d: Delivery) => number | undefined) | undefined;
  /** Response body to answer with (e.g. to see it in the delivery log); none by default. */
  replyBody: string | undefined;
  /** Milliseconds to wait before answering (e.g. to see the latency in the delivery log); none by default. */
  replyDelayMs = 0;
  private server?: http.Server;
  url = '';

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const delivery = { headers: req.headers, rawBody, body: JSON.parse(rawBody), receivedAt: Date.now() };
        const status = this.statusFor?.(delivery) ?? this.script.shift() ?? 200;
        this.requests.push(delivery);
        if (status >= 200 && status < 300) this.deliveries.push(delivery);
        res.statusCode = status;
        if (this.replyDelayMs > 0) setTimeout(() => res.end(this.replyBody), this.replyDelayMs);
        else res.end(this.replyBody);
      });
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  async waitFor(event: string, count = 1, timeoutMs = 20_000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.deliveries.filter((d) => d.body.event === event);
      if (got.length >= count) return got;
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${count} x ${event}; got ${this.deliveries.map((d) => d.body.event).join(',')}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** The check an integrator writes: HMAC-SHA256 over `${timestamp}.${rawBody}`, `v1=` hex, constant-time. */
export function signatureValid(d: Delivery, secret: string): boolean {
  const ts = String(d.headers['x-service-timestamp']);
  const expected = `v1=${createHmac('sha256', secret).update(`${ts}.${d.rawBody}`).digest('hex')}`;
  const got = String(d.headers['x-service-signature'] ?? '')
    .split(',')
    .map((s) => s.trim());
  return got.some(
    (g) => g.length === expected.length && timingSafeEqual(Buffer.from(g), Buffer.from(expected)),
  );
}

/**
 * What a receiver using the official `standardwebhooks` library does: verify the three webhook-* headers
 * against the raw body (signature and timestamp tolerance, as the library checks them).
 */
export function standardVerifies(d: Delivery, secret: string): boolean {
  try {
    new Webhook(secret).verify(d.rawBody, {
      'webhook-id': String(d.headers['webhook-id']),
      'webhook-timestamp': String(d.headers['webhook-timestamp']),
      'webhook-signature': String(d.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}
