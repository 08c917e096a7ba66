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
  GraphQLEnumType,
  type GraphQLField,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  type GraphQLSchema,
  getIntrospectionQuery,
  getNamedType,
  type IntrospectionQuery,
  isLeafType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../server/src/common/http';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { SignerClient, shareWithReferenceWallet, startedSession } from '../support/signer';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const CONCURRENCY = 4;

/** mulberry32: a small seeded PRNG, so a run is reproducible from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof prng>;

// ------------------------------------------------------------------------------------------ value pools

const UNICODE = [
  '',
  ' ',
  'ä',
  '🦄',
  '\u0000',
  '\uFEFF',
  '\u202Etxt.exe',
  '\uD800', // lone surrogate
  'Ω'.repeat(300),
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\r\n',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell-style string, sent as data
  '${jndi:ldap://x}',
  '%00',
];
const WEIRD_STRINGS = [...UNICODE, 'x'.repeat(70_000), '1e309', 'null', 'true', '__proto__', 'constructor'];
const PATH_NOISE = [
  '%ZZ',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%2F..%2F',
  '%FF%FE',
  '..',
  '%25',
  'a%20b',
  '%F0%9F%A6%84',
  'x'.repeat(3000),
  '%uD800',
  ';',
  '@',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=bogus',
  'application/json; charset=',
  'application/json;;;',
  'application/merge-patch+json',
  'application/problem+json; charset=iso-8859-1',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=latin1',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=fuzzB',
  'multipart/form-data; boundary="fuzzB"; charset=latin1',
  'text/plain',
  'text/html',
  'application/octet-stream',
  '*/*',
  'garbage',
  '',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'bogus', 'gzip, gzip'];
const AUTH_NOISE = [
  '',
  'Bearer',
  'Bearer ',
  'Bearer sk_sandbox_',
  `Bearer sk_production_aaaaaaaaaaaa_${'a'.repeat(40)}`,
  'Basic dXNlcjpwYXNz',
  'bearer x y z',
  `Bearer ${'k'.repeat(5000)}`,
];
const COOKIE_NOISE = [
  'svc_browser=%',
  'svc_browser=%E0%A4%A',
  'svc_browser="',
  'svc_browser=',
  `svc_browser=${'a'.repeat(8000)}`,
  'svc_browser=a; svc_browser=b',
  '=;=;;',
  'svc_browser=%F0%9F%A6%84'.repeat(20),
];

function deepJson(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

function randomJson(rng: Rng, depth = 0): unknown {
  const k = rng.int(depth > 3 ? 5 : 8);
  switch (k) {
    case 0:
      return null;
    case 1:
      return rng.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER]);
    case 2:
      return rng.pick(WEIRD_STRINGS.filter((s) => s.length < 1000));
    case 3:
      return rng.chance(0.5);
    case 4:
      return rng.pick(UNICODE);
    case 5:
      return Array.from({ length: rng.int(4) }, () => randomJson(rng, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--)
        o[
          rng.pick(['a', '__proto__', 'constructor', 'workflow_id', 'request_id', 'response', 'persona', ''])
        ] = randomJson(rng, depth + 1);
      return o;
    }
  }
}

// ------------------------------------------------------------------------------------------ requests

interface FuzzRequest {
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

interface Fixture {
  apiKey: string;
  cookie: string;
  sessionId: string;
  auditId: string;
  requestId: string;
  workflowId: string;
  signWorkflowId: string;
}

/** A valid value for a path parameter of the route, then maybe mutated. */
function paramValue(rng: Rng, name: string, fx: Fixture): string {
  const valid: Record<string, string[]> = {
    id: [fx.sessionId, fx.auditId, 'sess_nope', '0'],
    rid: [fx.requestId, 'wr_nope'],
    position: ['0', '1', '99', '-1'],
    transport: ['cross_device', 'dc_api_signed', 'dc_api', 'x'],
    code: ['not_found', 'internal_error', '__proto__'],
  };
  const v = rng.pick(valid[name] ?? ['x']);
  if (!rng.chance(0.35)) return encodeURIComponent(v);
  const noise = rng.pick(PATH_NOISE);
  const u = rng.pick(UNICODE).replace(/[\uD800-\uDFFF]/g, ''); // encodeURIComponent refuses lone surrogates
  return rng.pick([noise, `${v}${noise}`, `${noise}${v}`, encodeURIComponent(u) || 'x']);
}

/** A plausible body for the route (what a correct client sends), as a JS value. */
function validBody(route: Pick<RouteDef, 'path'>, fx: Fixture): unknown {
  if (route.path === '/v1/sessions') return { workflow_id: fx.workflowId, metadata: { ref: 'fuzz' } };
  if (route.path.endsWith('/wallet-response'))
    return { request_id: fx.requestId, response: { vp_token: 'x' } };
  if (route.path === '/sandbox/wallet/respond') return { persona: 'adult', origin: 'http://x', request: {} };
  if (route.path === '/sandbox/wallet/cross-device') return { persona: 'adult', uri: 'openid4vp://?x=1' };
  return {};
}

function multipartBody(rng: Rng, fields: Record<string, string>, files: { name: string }[]): string {
  const B = 'fuzzB';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(`--${B}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  for (const f of files)
    parts.push(
      `--${B}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${rng.pick(['a.pdf', '', '🦄.pdf', '"q".pdf'])}"\r\nContent-Type: ${rng.pick(['application/pdf', 'text/plain', '', 'x'])}\r\n\r\n${new TextDecoder().decode(minimalPdf())}\r\n`,
    );
  if (rng.chance(0.2)) parts.push(`--${B}\r\nContent-Disposition: form-data\r\n\r\nnameless\r\n`);
  let body = `${parts.join('')}--${B}--\r\n`;
  if (rng.chance(0.3)) body = body.slice(0, rng.int(body.length));
  return body;
}

/** Applies 1–3 mutations to a valid request. */
function mutate(rng: Rng, req: FuzzRequest, valid: unknown): FuzzRequest {
  const out: FuzzRequest = { ...req, headers: { ...req.headers } };
  const json = JSON.stringify(valid);
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) {
    switch (rng.int(13)) {
      case 0: // body: random JSON value
        out.body = JSON.stringify(randomJson(rng));
        out.headers['Content-Type'] ??= 'application/json';
        break;
      case 1: // body: truncated
        out.body = (typeof out.body === 'string' ? out.body : json).slice(0, rng.int(json.length + 1));
        break;
      case 2: // content type and charset
        out.headers['Content-Type'] = rng.pick(CONTENT_TYPES);
        break;
      case 3: // content encoding the body does not have
        out.headers['Content-Encoding'] = rng.pick(ENCODINGS);
        break;
      case 4: // size: just over the JSON limit, or a big non-JSON body
        out.body = rng.chance(0.5)
          ? JSON.stringify({ a: 'x'.repeat(300 * 1024) })
          : new Uint8Array(rng.pick([1, 1024, 300 * 1024])).fill(rng.int(256));
        break;
      case 5: // nesting depth
        out.body = deepJson(rng.pick([50, 2_000, 20_000]));
        out.headers['Content-Type'] ??= 'application/json';
        break;
      case 6: // unicode in every string of the valid body
        out.body = json.replace(/"([^"\\]*)"/g, (_m, s: string) =>
          JSON.stringify(rng.chance(0.5) ? s : `${s}${rng.pick(UNICODE)}`),
        );
        break;
      case 7: // authorization
        out.headers.Authorization = rng.pick(AUTH_NOISE);
        if (out.headers.Authorization === '') delete out.headers.Authorization;
        break;
      case 8: // cookies
        out.headers.Cookie = rng.pick(COOKIE_NOISE);
        break;
      case 9: // headers the routes read
        out.headers[
          rng.pick(['Idempotency-Key', 'Accept', 'apollo-require-preflight', 'X-Request-Id', 'Origin'])
        ] = rng.pick(['', 'x'.repeat(300), 'application/json', '*/*;q=0', 'text/html;q=abc', 'null', '\t']);
        break;
      case 10: // query string noise
        out.path += `${out.path.includes('?') ? '&' : '?'}${rng.pick(['a=%ZZ', 'format=json', 'a[b][c]=1', `q=${'x'.repeat(5000)}`, '%=%', '__proto__[x]=1'])}`;
        break;
      case 11: // method the route does not have
        out.method = rng.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']);
        break;
      default: // non-JSON text
        out.body = rng.pick(['not json', '{', '[]', '""', 'null', '\u0000\u0001', '{"a":1}{"b":2}']);
    }
  }
  if ((out.method === 'GET' || out.method === 'HEAD') && out.body !== undefined) delete out.body;
  return out;
}

function restRequest(rng: Rng, route: RouteDef, fx: Fixture): FuzzRequest {
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => paramValue(rng, name, fx));
  const headers: Record<string, string> = {};
  if (route.auth === 'api_key' || rng.chance(0.2)) headers.Authorization = `Bearer ${fx.apiKey}`;
  if (route.auth === 'signer' || rng.chance(0.1)) headers.Cookie = fx.cookie;
  const method = route.method.toUpperCase();
  const valid = validBody(route, fx);
  let body: string | undefined;
  if (method !== 'GET') {
    if (route.path === '/v1/sessions' && rng.chance(0.3)) {
      headers['Content-Type'] = 'multipart/form-data; boundary=fuzzB';
      body = multipartBody(
        rng,
        {
          workflow_id: rng.pick([fx.signWorkflowId, fx.workflowId]),
          ...(rng.chance(0.3) ? { metadata: '{"a":' } : {}),
        },
        Array.from({ length: rng.int(3) }, () => ({ name: rng.pick(['file', 'file', 'other']) })),
      );
    } else if (route.path.startsWith('/oid4vp/responses/')) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = `response=${encodeURIComponent(rng.pick(['a.b.c.d.e', 'x', '']))}&state=${rng.pick(['1', '%ZZ'])}`;
    } else {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(valid);
    }
  }
  const req: FuzzRequest = {
    target: `${route.method.toUpperCase()} ${route.path}`,
    method,
    path,
    headers,
    body,
  };
  return rng.chance(0.1) ? req : mutate(rng, req, valid);
}

// ------------------------------------------------------------------------------------------ GraphQL

/** A GraphQL literal-free variable value of the given input type (valid-ish, sometimes wrong). */
function gqlValue(rng: Rng, type: GraphQLInputType, fx: Fixture, depth = 0): unknown {
  if (type instanceof GraphQLNonNull) return gqlValue(rng, type.ofType, fx, depth);
  if (rng.chance(0.05)) return randomJson(rng, 3);
  if (type instanceof GraphQLList)
    return depth > 3
      ? []
      : Array.from({ length: rng.int(3) }, () => gqlValue(rng, type.ofType, fx, depth + 1));
  if (type instanceof GraphQLEnumType) return rng.pick(type.getValues()).name;
  if (type instanceof GraphQLInputObjectType) {
    const o: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields()))
      if (f.type instanceof GraphQLNonNull || rng.chance(0.6))
        o[f.name] = gqlValue(rng, f.type, fx, depth + 1);
    return o;
  }
  if (type instanceof GraphQLScalarType) {
    switch (type.name) {
      case 'ID':
        return rng.pick([fx.sessionId, fx.workflowId, fx.signWorkflowId, 'wf_nope', 'sess_nope', '', '%ZZ']);
      case 'Int':
        return rng.pick([0, 1, 3, -1, 2 ** 31, 600, 86_400]);
      case 'Float':
        return rng.pick([0, 1.5, -1, 1e308]);
      case 'Boolean':
        return rng.chance(0.5);
      case 'String':
        return rng.pick(['identify', 'http://127.0.0.1:1/hook', 'given_name', ...UNICODE.slice(0, 8)]);
      case 'Upload':
        return null; // filled by the multipart map
      default:
        return rng.pick(['2030-01-01T00:00:00.000Z', '{}', 'x', 1]);
    }
  }
  return null;
}

/** A selection set of the scalar fields of the type, two levels deep. */
function selection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!(named instanceof GraphQLObjectType) || depth > 2) return '{ __typename }';
  const fields = Object.values(named.getFields())
    .filter((f) => f.args.every((a) => !(a.type instanceof GraphQLNonNull)))
    .map((f) => `${f.name} ${selection(f.type, depth + 1)}`);
  return `{ __typename ${fields.join(' ')} }`;
}

function gqlRequest(
  rng: Rng,
  op: { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> },
  fx: Fixture,
): FuzzRequest {
  const { field } = op;
  const varDefs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const query = `${op.kind} Fuzz${varDefs ? `(${varDefs})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selection(field.type)} }`;
  const variables: Record<string, unknown> = {};
  for (const a of field.args) variables[a.name] = gqlValue(rng, a.type, fx);
  const uploadArgs = field.args.filter((a) => getNamedType(a.type).name === 'Upload');
  const headers: Record<string, string> = { Authorization: `Bearer ${fx.apiKey}` };
  let body: string;
  let valid: unknown = { query, variables };
  if (uploadArgs.length > 0 && rng.chance(0.6)) {
    // GraphQL multipart request: operations, map, files
    const files = 1 + rng.int(2);
    for (const a of uploadArgs) variables[a.name] = Array.from({ length: files }, () => null);
    const map: Record<string, string[]> = {};
    for (let i = 0; i < files; i++) map[String(i)] = [`variables.${uploadArgs[0]?.name}.${i}`];
    valid = { query, variables };
    headers['Content-Type'] = 'multipart/form-data; boundary=fuzzB';
    headers['apollo-require-preflight'] = 'true';
    const ops = rng.chance(0.15) ? '{"query":' : JSON.stringify(valid);
    body = multipartBody(
      rng,
      { operations: ops, map: rng.chance(0.1) ? '[1]' : JSON.stringify(map) },
      Array.from({ length: files }, (_, i) => ({ name: String(i) })),
    );
  } else {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(valid);
  }
  const req: FuzzRequest = {
    target: `graphql ${op.kind} ${field.name}`,
    method: 'POST',
    path: '/graphql',
    headers,
    body,
  };
  if (rng.chance(0.15)) return req;
  // GraphQL-specific mutations besides the generic ones
  if (rng.chance(0.3)) {
    const q = rng.pick([
      `${query} ${query}`,
      `{ ${'a: __typename '.repeat(2000)} }`,
      `query { ${'session(id: "x") { '.repeat(50)}${'}'.repeat(50)} }`,
      `${op.kind} { ${field.name} }`,
      `fragment A on Query { ...A } query { ...A }`,
      query.slice(0, rng.int(query.length)),
    ]);
    return {
      ...req,
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: q, variables: rng.chance(0.5) ? variables : randomJson(rng) }),
    };
  }
  return mutate(rng, req, valid);
}

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
  const { workflowId } = await publishWorkflow(
    api,
    [{ primitive: 'identify', claims: ['given_name'] }],
    `${t.baseUrl}/dev/webhook-receiver`,
  );
  const { workflowId: signWorkflowId } = await publishWorkflow(api, [{ primitive: 'sign', documents: 1 }]);
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
