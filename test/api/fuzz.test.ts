// The project's own fuzz suite (issue 7): seeded, bounded and deterministic. Its targets come from what the
// service declares, never from a list kept here: every route of the route registry (svc.routes.routes: /v1,
// the hosted transport /t, the wallet endpoints /oid4vp, sandbox tooling, the error reference), every Query
// and Mutation field of the GraphQL schema (introspected; JSON and multipart), plus the hosted page. A route
// or operation added later is fuzzed without anyone adding it here.
// Each request is a valid one, then mutated: bodies, content types and charsets, encodings, path parameters,
// cookies, headers, sizes, nesting depth, unicode, truncation. Asserted: zero 5xx, no error that would have
// ended the process (uncaught exceptions and unhandled rejections are recorded), the service still answers,
// and afterwards a normal create and a complete sandbox session work.
// FUZZ_SEED and FUZZ_REQUESTS reproduce or widen a run; a failure prints the seed and the request.
import {
  buildClientSchema,
  type GraphQLSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../server/src/common/http';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { setUpSignWorkflow } from '../support/sign-workflow';
import { SignerClient, shareWithReferenceWallet, startedSession } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const CONCURRENCY = 4;

import { gqlRequest } from '../support/fuzz-graphql';
import { type Fixture, type FuzzRequest, prng, restRequest } from '../support/fuzz-requests';

// ------------------------------------------------------------------------------------------ the suite

let t: TestService;
let fx: Fixture;
let schema: GraphQLSchema;
const fatal: string[] = [];
const onFatal = (e: unknown) => {
  fatal.push(e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e));
};

beforeAll(async () => {
  process.on('uncaughtException', onFatal);
  process.on('unhandledRejection', onFatal);
  t = await startTestService({ label: 'fuzz', workers: false });
  const { apiKey } = await createBusiness(t, 'Fuzz GmbH');
  const api = new Api(t.baseUrl, apiKey);
  const { workflowId } = await setUpIdentifyWorkflow(api, `${t.baseUrl}/dev/webhook-receiver`, [
    'given_name',
  ]);
  const { workflowId: signWorkflowId } = await setUpSignWorkflow(api);
  const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
  const sessionId = created.body.id as string;
  const signer = new SignerClient(t.baseUrl, sessionId);
  const start = await signer.start();
  expect(start.status).toBe(200);
  // the bound browser's cookie is what the hosted transport routes are fuzzed with
  const cookie = (start.setCookie ?? '').split(';')[0] as string;
  expect(cookie).toMatch(/^svc_browser=./);
  const cross = await signer.call('POST', '/wallet-request/cross_device');
  expect(cross.status).toBe(200);
  fx = {
    apiKey,
    cookie,
    sessionId,
    auditId: `${sessionId}_0`,
    requestId: String(cross.body.request_id),
    workflowId,
    signWorkflowId,
  };
  const intro = await fetch(`${t.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  schema = buildClientSchema(((await intro.json()) as { data: IntrospectionQuery }).data);
});

afterAll(async () => {
  process.off('uncaughtException', onFatal);
  process.off('unhandledRejection', onFatal);
  await t?.stop();
});

describe('fuzz: every route of the registry and every GraphQL operation', () => {
  it(`${REQUESTS} mutated requests (seed ${SEED}): zero 5xx, the process alive, and a normal session afterwards`, {
    timeout: 180_000,
  }, async () => {
    const rng = prng(SEED);
    const routes = t.svc.routes.routes;
    const ops = [
      ...Object.values(schema.getQueryType()?.getFields() ?? {}).map((field) => ({
        kind: 'query' as const,
        field,
      })),
      ...Object.values(schema.getMutationType()?.getFields() ?? {}).map((field) => ({
        kind: 'mutation' as const,
        field,
      })),
    ];
    // the targets come from the service; a sanity floor so an empty registry cannot pass silently
    expect(routes.length).toBeGreaterThan(15);
    expect(ops.map((o) => o.field.name)).toContain('createSession');
    expect(routes.map((r) => r.path)).toContain('/oid4vp/responses/:rid');
    const pageRoutes: RouteDef[] = [
      { method: 'get', path: '/s/:id', auth: 'public', handler: () => {} },
      { method: 'get', path: '/assets/:id', auth: 'public', handler: () => {} },
      { method: 'get', path: '/graphql', auth: 'public', handler: () => {} },
      // the dashboard app's pages are served outside the registry, like /s/:id
      { method: 'get', path: '/dashboard', auth: 'public', handler: () => {} },
      { method: 'get', path: '/dashboard/:id', auth: 'public', handler: () => {} },
      { method: 'post', path: '/v1/:id', auth: 'api_key', handler: () => {} }, // unknown paths too
    ];

    // Round-robin over all targets so each one gets its share, then random ones: every target is hit.
    const targets: (() => FuzzRequest)[] = [
      ...[...routes, ...pageRoutes].map((r) => () => restRequest(rng, r, fx)),
      ...ops.map((o) => () => gqlRequest(rng, o, fx)),
    ];
    const requests: FuzzRequest[] = [];
    for (let i = 0; i < REQUESTS; i++)
      requests.push(
        (i < targets.length * 8 ? targets[i % targets.length] : rng.pick(targets))?.() as FuzzRequest,
      );

    const failures: string[] = [];
    const hit = new Set<string>();
    let index = 0;
    const worker = async () => {
      for (;;) {
        const i = index++;
        const r = requests[i];
        if (!r) return;
        hit.add(r.target);
        const began = performance.now();
        let status = 0;
        let text = '';
        // A network error is retried once: a pooled keep-alive connection can be closed
        // by the server's idle timeout just as it is reused (ECONNRESET on a loaded machine). A request that
        // really breaks the connection breaks it twice, and the liveness checks below still apply.
        for (let attempt = 0; attempt < 2 && status === 0; attempt++) {
          try {
            const res = await fetch(`${t.baseUrl}${r.path}`, {
              method: r.method,
              headers: r.headers,
              body: r.body as BodyInit | undefined,
              signal: AbortSignal.timeout(15_000),
            });
            status = res.status;
            text = await res.text();
          } catch (e) {
            status = 0;
            text = String((e as Error).cause ?? e);
          }
        }
        spent.set(r.target, (spent.get(r.target) ?? 0) + performance.now() - began);
        const gqlInternal = r.path === '/graphql' && /"code":"internal_error"/.test(text);
        if (status === 0 || status >= 500 || gqlInternal)
          failures.push(
            `#${i} ${r.target} -> ${status}: ${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers).slice(0, 400)} body=${JSON.stringify(typeof r.body === 'string' ? r.body.slice(0, 300) : r.body ? `<${r.body.length} bytes>` : null)} answer=${text.slice(0, 300)}`,
          );
      }
    };
    const spent = new Map<string, number>();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (process.env.FUZZ_PROFILE)
      console.log(
        [...spent]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 15)
          .map(([k, v]) => `${Math.round(v)}ms ${k}`)
          .join('\n'),
      );

    expect(
      failures,
      `seed ${SEED}: ${failures.length} failures\n${failures.slice(0, 15).join('\n')}`,
    ).toEqual([]);
    expect(fatal, 'errors that would have ended the process').toEqual([]);
    for (const r of routes) expect(hit).toContain(`${r.method.toUpperCase()} ${r.path}`);
    for (const o of ops) expect(hit).toContain(`graphql ${o.kind} ${o.field.name}`);

    // afterwards, the service works as before: a normal create and a complete sandbox session
    const { apiKey } = await createBusiness(t, 'After Fuzz GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      `${t.baseUrl}/dev/webhook-receiver`,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const { id, signer } = await startedSession(t.baseUrl, created);
    const shared = await shareWithReferenceWallet(t.svc, signer);
    expect(shared.status).toBe(200);
    const done: Json = await api.rest('GET', `/v1/sessions/${id}`);
    expect(done.body.status).toBe('completed');
  });
});
