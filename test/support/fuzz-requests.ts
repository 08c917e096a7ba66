import type { RouteDef } from '../../server/src/common/http';
import { minimalPdf } from './workflows';

/** mulberry32: a small seeded PRNG, so a run is reproducible from its seed. */
export function prng(seed: number) {
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
export type Rng = ReturnType<typeof prng>;

// ------------------------------------------------------------------------------------------ value pools

export const UNICODE = [
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
export const WEIRD_STRINGS = [
  ...UNICODE,
  'x'.repeat(70_000),
  '1e309',
  'null',
  'true',
  '__proto__',
  'constructor',
];
export const PATH_NOISE = [
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
export const CONTENT_TYPES = [
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
export const ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'bogus', 'gzip, gzip'];
export const AUTH_NOISE = [
  '',
  'Bearer',
  'Bearer ',
  'Bearer sk_sandbox_',
  `Bearer sk_production_aaaaaaaaaaaa_${'a'.repeat(40)}`,
  'Basic dXNlcjpwYXNz',
  'bearer x y z',
  `Bearer ${'k'.repeat(5000)}`,
];
export const COOKIE_NOISE = [
  'svc_browser=%',
  'svc_browser=%E0%A4%A',
  'svc_browser="',
  'svc_browser=',
  `svc_browser=${'a'.repeat(8000)}`,
  'svc_browser=a; svc_browser=b',
  '=;=;;',
  'svc_browser=%F0%9F%A6%84'.repeat(20),
];

export function deepJson(depth: number): string {
  return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
}

export function randomJson(rng: Rng, depth = 0): unknown {
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

export interface FuzzRequest {
  target: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Fixture {
  apiKey: string;
  cookie: string;
  sessionId: string;
  auditId: string;
  requestId: string;
  workflowId: string;
  signWorkflowId: string;
}

/** A valid value for a path parameter of the route, then maybe mutated. */
export function paramValue(rng: Rng, name: string, fx: Fixture): string {
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
export function validBody(route: Pick<RouteDef, 'path'>, fx: Fixture): unknown {
  if (route.path === '/v1/sessions') return { workflow_id: fx.workflowId, metadata: { ref: 'fuzz' } };
  if (route.path.endsWith('/wallet-response'))
    return { request_id: fx.requestId, response: { vp_token: 'x' } };
  if (route.path === '/sandbox/wallet/respond') return { persona: 'adult', origin: 'http://x', request: {} };
  if (route.path === '/sandbox/wallet/cross-device') return { persona: 'adult', uri: 'openid4vp://?x=1' };
  return {};
}

export function multipartBody(rng: Rng, fields: Record<string, string>, files: { name: string }[]): string {
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
export function mutate(rng: Rng, req: FuzzRequest, valid: unknown): FuzzRequest {
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

export function restRequest(rng: Rng, route: RouteDef, fx: Fixture): FuzzRequest {
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
