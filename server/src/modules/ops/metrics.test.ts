// The request series are counted outside prom-client (RequestCounts, ADR 0064): their scrape text must stay
// what a prom-client Counter and Histogram with the same names, labels and buckets write for the same requests.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ServiceMetrics } from './metrics';

const REQUESTS: [string, string, number, number][] = [
  ['GET', '/v1/sessions/:id', 200, 0.003],
  ['GET', '/v1/sessions/:id', 200, 0.05],
  ['POST', '/v1/sessions', 201, 0.2],
  ['GET', '/v1/sessions/:id', 404, 20],
  ['GET', '/v1/sessions/:id', 200, 0.005],
  ['GET', '/graphql', 200, 0.0101],
  ['POST', '/v1/sessions', 429, 0.00001],
];

async function promClientText(): Promise<string> {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route template and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency from arrival to the end of the answer, by route template and status.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  for (const [method, route, status, seconds] of REQUESTS) {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    duration.observe(labels, seconds);
  }
  return registry.metrics();
}

describe('request metrics', () => {
  it('scrape as prom-client Counter and Histogram series would, byte for byte', async () => {
    const m = new ServiceMetrics();
    for (const r of REQUESTS) m.request(...r);
    const ours = (await m.text()).body;
    const theirs = await promClientText();
    // the service's registry holds other metrics after these two: compare the two series' blocks
    const blocks = (text: string) =>
      text
        .split('\n\n')
        .filter((b) => /# HELP http_request(s_total|_duration_seconds) /.test(b))
        .join('\n\n')
        .trim();
    expect(blocks(ours)).toBe(theirs.trim());
    expect(blocks(ours)).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/v1/sessions/:id",status="200"} 2',
    );
  });
});
