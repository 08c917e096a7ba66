// The test side of bench-sessions.ts: the person's browser on the hosted transport (a cookie jar over fetch,
// every call bounded by the session's abort signal) and a webhook receiver that checks every signature.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../modules/webhook/signature';

/** The person's browser on the hosted transport: a cookie jar over fetch. */
export class Browser {
  private cookie = '';
  constructor(
    private readonly base: string,
    private readonly id: string,
    private readonly signal?: AbortSignal,
  ) {}
  async call(method: string, suffix: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.base}/t/sessions/${this.id}${suffix}`, {
      method,
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: this.signal,
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] as string;
    const out = (res.status === 204 ? {} : await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${suffix}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  }
  /**
   * Opening the link as the page does (ADR 0062): the open carries the page's first read and answers it, so the
   * page reads nothing more on load.
   */
  async open(): Promise<void> {
    const out = (await this.call('POST', '/open', this.readBody())) as {
      data?: { signerSession?: { status?: string } };
    };
    if (!out.data?.signerSession?.status) throw new Error(`open: ${JSON.stringify(out)}`);
  }
  /**
   * Start as the page sends it (ADR 0062 amendment): carrying the page's read, answered from the Start's own
   * round trips.
   */
  async start(): Promise<void> {
    const out = (await this.call('POST', '/start', this.readBody())) as {
      data?: { signerSession?: { status?: string } };
    };
    if (out.data?.signerSession?.status !== 'in_progress') throw new Error(`start: ${JSON.stringify(out)}`);
  }
  /** The wallet response as the page sends it, carrying the page's read (`read`, ADR 0062 amendment). */
  async respond(body: { request_id: unknown; response: unknown }): Promise<void> {
    const out = (await this.call('POST', '/wallet-response', { ...body, read: this.readBody() })) as {
      data?: { signerSession?: { status?: string } };
    };
    if (!out.data?.signerSession?.status) throw new Error(`wallet response: ${JSON.stringify(out)}`);
  }
  private readBody() {
    return { query: SIGNER_DOCUMENT, operationName: 'SignerSession', variables: { sessionId: this.id } };
  }
}

/** The page's operations document (hosted-web/src/graphql/signer.graphql): the bench reads what the page reads. */
const SIGNER_DOCUMENT = fs.readFileSync(
  new URL('../../../../hosted-web/src/graphql/signer.graphql', import.meta.url),
  'utf8',
);

/** A webhook receiver that checks every signature and resolves when a session's completion arrives. */
export class Receiver {
  private server?: http.Server;
  private readonly waiting = new Map<string, () => void>();
  secret = '';
  url = '';
  received = 0;
  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const ok =
          this.secret === '' ||
          verifyWebhookSignature({
            secret: this.secret,
            signatureHeader: req.headers['x-service-signature'] as string,
            timestamp: req.headers['x-service-timestamp'] as string,
            body,
            now: new Date(),
          });
        res.writeHead(ok ? 200 : 401);
        res.end();
        if (!ok) return;
        this.received++;
        const ev = JSON.parse(body) as { event: string; data: { session_id?: string; id?: string } };
        const sid = ev.data.session_id ?? ev.data.id;
        if (ev.event === 'session.completed' && sid) this.waiting.get(sid)?.();
      });
    });
    server.keepAliveTimeout = 60_000;
    this.server = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }
  /** Resolves when session.completed of `sessionId` arrives; rejects when `signal` aborts first. */
  completed(sessionId: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      // the round's signal is shared by every session of the round: drop the listener once this one is done
      this.waiting.set(sessionId, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
  forget(sessionId: string): void {
    this.waiting.delete(sessionId);
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
