// Tracing, seen from outside: an OTLP/HTTP collector of the test's own receives the spans a traced service
// exports. A create that carries a W3C traceparent continues the caller's trace; database transactions, KMS
// signatures and webhook deliveries are spans; a delivery carries a traceparent naming its own span, so a
// receiver can join the trace; and no span names or carries a session id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Api,
  createBusiness,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

/** OTLP/JSON ids are hex in this exporter; accept base64 too (the protobuf-JSON mapping) to be safe. */
const hex = (id: string | undefined) =>
  id === undefined || /^[0-9a-f]*$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');

class Collector {
  readonly spans: OtlpSpan[] = [];
  readonly bodies: string[] = [];
  private server?: http.Server;
  url = '';
  async start() {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.bodies.push(text);
        if (req.url === '/v1/traces' && /json/.test(req.headers['content-type'] ?? '')) {
          const body = JSON.parse(text) as {
            resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
          };
          for (const rs of body.resourceSpans)
            for (const ss of rs.scopeSpans)
              for (const sp of ss.spans)
                this.spans.push({
                  ...sp,
                  traceId: hex(sp.traceId) as string,
                  spanId: hex(sp.spanId) as string,
                  parentSpanId: hex(sp.parentSpanId),
                });
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    this.server = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  async stop() {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

describe('tracing (OTLP/HTTP, W3C trace context)', () => {
  const collector = new Collector();
  const receiver = new WebhookReceiver();
  let t: TestService;
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpan = '00f067aa0ba902b7';
  let sessionId = '';

  beforeAll(async () => {
    await collector.start();
    await receiver.start();
    t = await startTestService({ label: 'tracing', env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
    const api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: workflowId },
      { traceparent: `00-${traceId}-${callerSpan}-01` },
    );
    expect(created.status).toBe(201);
    sessionId = created.body.id;
    const signer = new SignerClient(t.baseUrl, sessionId);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    await receiver.waitFor('session.completed');
    await t.stop(); // flushes the span batch
    t = undefined as never;
  });
  afterAll(async () => {
    await t?.stop();
    await receiver.stop();
    await collector.stop();
  });

  it('continues the caller trace: the create is a server span under the caller span, named by its route', () => {
    const create = collector.spans.find((s) => s.traceId === traceId && s.kind === 2);
    expect(create).toMatchObject({ name: 'POST /v1/sessions', parentSpanId: callerSpan });
    expect(attr(create as OtlpSpan, 'http.response.status_code')).toBe(201);
    expect(attr(create as OtlpSpan, 'http.route')).toBe('/v1/sessions');
  });

  it('has spans for database transactions and KMS signatures inside request traces', () => {
    const servers = new Map(collector.spans.filter((s) => s.kind === 2).map((s) => [s.spanId, s]));
    const tx = collector.spans.filter((s) => s.name === 'db.transaction');
    expect(tx.length).toBeGreaterThan(0);
    expect(tx.some((s) => servers.has(s.parentSpanId as string))).toBe(true);
    const sign = collector.spans.filter((s) => s.name === 'kms.signDigest');
    expect(sign.length).toBeGreaterThan(0); // the audit record of the completed step
    expect(attr(sign[0] as OtlpSpan, 'kms.provider')).toBe('local');
    // the hosted transport (Express) names its spans by route template too
    expect([...servers.values()].map((s) => s.name)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^POST \/t\/sessions\/:id\//)]),
    );
  });

  it('sends a traceparent with each webhook delivery that names the delivery span', () => {
    const posts = collector.spans.filter((s) => s.name === 'webhook POST');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const d of receiver.deliveries) {
      const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(d.headers.traceparent));
      expect(m).not.toBeNull();
      const span = posts.find((s) => s.spanId === m?.[2]);
      expect(span).toMatchObject({ traceId: m?.[1], kind: 3 });
      expect(attr(span as OtlpSpan, 'webhook.event')).toBe(d.body.event);
    }
  });

  it('exports no session id, in names or attributes', () => {
    expect(sessionId).toMatch(/^sess_/);
    expect(collector.bodies.join('\n')).not.toContain(sessionId);
    expect(collector.bodies.join('\n')).not.toContain('sess_');
  });
});
