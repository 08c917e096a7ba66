// The one /v1 pipeline (app/pipeline.ts, ADR 0037) answers every /v1 route on node:http. An integrator cannot
// tell how a request was framed: a body sent with a length, chunked, gzip- or deflate-encoded, and a path with
// percent-escapes, a trailing slash or another case get the same status, headers and body, errors included.
// Tenant isolation, revocation (also of a key this process remembers), scopes, rate-limit headers and
// metrics hold; nothing under /v1 reaches Express.
import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { isApiRoute } from '../../server/src/common/http';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import {
  Api,
  createBusiness,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown>;
}

/** One request over node:http, so the test controls framing (Content-Length or chunked) exactly. */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: { bytes: Buffer; chunked?: boolean },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const req = http.request(
      { host: u.hostname, port: u.port, method, path, headers: { ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (body && !body.chunked) req.setHeader('Content-Length', body.bytes.length);
    if (body?.chunked) {
      // two chunks, no Content-Length
      const mid = Math.floor(body.bytes.length / 2);
      req.write(body.bytes.subarray(0, mid));
      req.write(body.bytes.subarray(mid));
    } else if (body) req.write(body.bytes);
    req.end();
  });
}

/** What an integrator sees of an answer, with the per-request values (ids, times, budget) masked. */
function observable(a: Answer) {
  const masked = JSON.parse(
    a.text
      .replace(/(req|sess|sev)_[0-9a-z]{10,}/g, '$1_*')
      .replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"'),
  ) as unknown;
  const h = { ...a.headers };
  for (const k of ['date', 'keep-alive', 'connection', 'x-request-id', 'ratelimit', 'content-length'])
    delete h[k];
  return { status: a.status, headers: h, body: masked };
}

describe('the /v1 pipeline', () => {
  const clock = new ManualClock(Date.now());
  let t: TestService;
  let key: string;
  let businessId: string;
  let workflowId: string;
  let other: { api: Api; key: string };

  beforeAll(async () => {
    t = await startTestService({ label: 'v1_pipeline', workers: false, clock });
    const biz = await createBusiness(t, 'Pipeline GmbH');
    key = biz.apiKey;
    businessId = biz.businessId;
    workflowId = (await setUpIdentifyWorkflow(new Api(t.baseUrl, key), 'http://127.0.0.1:9/hooks'))
      .workflowId;
    const b = await createBusiness(t, 'Other GmbH');
    other = { api: new Api(t.baseUrl, b.apiKey), key: b.apiKey };
  });
  afterAll(async () => t?.stop());

  const auth = (k = key) => ({ Authorization: `Bearer ${k}` });
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  const jsonHeaders = (k = key) => ({ ...auth(k), 'Content-Type': 'application/json' });
  /** The same body in every framing the pipeline reads: length, chunked, gzip, deflate. */
  const framings = (
    bytes: Buffer,
    headers: Record<string, string>,
  ): [string, Record<string, string>, { bytes: Buffer; chunked?: boolean }][] => [
    ['length', headers, { bytes }],
    ['chunked', headers, { bytes, chunked: true }],
    ['gzip', { ...headers, 'Content-Encoding': 'gzip' }, { bytes: zlib.gzipSync(bytes) }],
    [
      'deflate',
      { ...headers, 'Content-Encoding': 'deflate' },
      { bytes: zlib.deflateSync(bytes), chunked: true },
    ],
  ];

  it('creates a session with the same answer whatever the framing, and reads it back by any spelling of the path', async () => {
    const body = json({ workflow_id: workflowId, metadata: { order: 7 } });
    const answers: Answer[] = [];
    for (const [name, headers, b] of framings(body, jsonHeaders())) {
      const a = await send(t.baseUrl, 'POST', '/v1/sessions', headers, b);
      expect(a.status, name).toBe(201);
      answers.push(a);
    }
    for (const a of answers) {
      expect(observable(a)).toEqual(observable(answers[0] as Answer));
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(a.headers['x-request-id']).toMatch(/^req_/);
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['referrer-policy']).toBe('no-referrer');
      expect(a.headers['ratelimit-policy']).toMatch(/^\d+;w=\d+$/);
      expect(a.headers.ratelimit).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
      expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(a.text));
    }
    const id = String(answers[0]?.json.id);
    const plain = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth());
    expect(plain.status).toBe(200);
    expect(plain.json).toMatchObject({ id, status: 'created', metadata: { order: 7 }, results: [] });
    for (const spelling of [
      `/v1/sessions/${id.replace('_', '%5F')}`,
      `/v1/sessions/${id}/`,
      `/V1/Sessions/${id}`,
    ]) {
      const again = await send(t.baseUrl, 'GET', spelling, auth());
      expect(observable(again), spelling).toEqual(observable(plain));
    }
    // HEAD: the GET's status and headers, no body
    const head = await send(t.baseUrl, 'HEAD', `/v1/sessions/${id}`, auth());
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('replays an Idempotency-Key with Idempotent-Replayed', async () => {
    const headers = { ...jsonHeaders(), 'Idempotency-Key': 'pipeline-key-1' };
    const body = json({ workflow_id: workflowId });
    const first = await send(t.baseUrl, 'POST', '/v1/sessions', headers, { bytes: body });
    const again = await send(t.baseUrl, 'POST', '/v1/sessions', headers, { bytes: body, chunked: true });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(first.status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json.id).toBe(first.json.id);
  });

  it('refuses bad bodies, media types, paths and keys with one problem whatever the framing', async () => {
    const h = jsonHeaders();
    const cases: {
      name: string;
      headers: Record<string, string>;
      bytes: Buffer;
      code: string;
      status: number;
    }[] = [
      {
        name: 'not JSON',
        headers: h,
        bytes: Buffer.from('{"workflow_id":'),
        code: 'invalid_json',
        status: 400,
      },
      { name: 'a JSON string', headers: h, bytes: Buffer.from('"x"'), code: 'invalid_json', status: 400 },
      { name: 'whitespace only', headers: h, bytes: Buffer.from('  \n'), code: 'invalid_json', status: 400 },
      { name: 'an array', headers: h, bytes: Buffer.from('[1]'), code: 'validation_failed', status: 400 },
      { name: 'an empty body', headers: h, bytes: Buffer.alloc(0), code: 'validation_failed', status: 400 },
      {
        name: 'metadata over 16 KiB (the spec limit, from the one create schema)',
        headers: h,
        bytes: json({ workflow_id: workflowId, metadata: { x: 'a'.repeat(17 * 1024) } }),
        code: 'validation_failed',
        status: 400,
      },
      {
        name: 'expires_in under the spec range',
        headers: h,
        bytes: json({ workflow_id: workflowId, expires_in: 59 }),
        code: 'validation_failed',
        status: 400,
      },
      {
        name: 'an unknown workflow',
        headers: h,
        bytes: json({ workflow_id: 'wf_nope' }),
        code: 'workflow_not_found',
        status: 404,
      },
      {
        name: 'a JSON body in latin1',
        headers: { ...h, 'Content-Type': 'application/json; charset=latin1' },
        bytes: json({ workflow_id: workflowId }),
        code: 'unsupported_media_type',
        status: 415,
      },
      {
        name: 'a text body',
        headers: { ...h, 'Content-Type': 'text/plain' },
        bytes: json({ workflow_id: workflowId }),
        code: 'unsupported_media_type',
        status: 415,
      },
      {
        name: 'a wrong key',
        headers: { ...h, Authorization: `Bearer sk_sandbox_${'a'.repeat(12)}_${'b'.repeat(40)}` },
        bytes: json({ workflow_id: workflowId }),
        code: 'unauthenticated',
        status: 401,
      },
      {
        name: 'bad JSON and no key (the body is judged first)',
        headers: { 'Content-Type': 'application/json' },
        bytes: Buffer.from('nope'),
        code: 'invalid_json',
        status: 400,
      },
    ];
    for (const c of cases) {
      const seen: Answer[] = [];
      for (const [framing, headers, b] of framings(c.bytes, c.headers)) {
        const a = await send(t.baseUrl, 'POST', '/v1/sessions', headers, b);
        expect([c.name, framing, a.status, a.json.code]).toEqual([c.name, framing, c.status, c.code]);
        expect(a.headers['content-type'], c.name).toBe('application/problem+json; charset=utf-8');
        expect(a.json.request_id, c.name).toBe(a.headers['x-request-id']);
        seen.push(a);
      }
      for (const a of seen) expect(observable(a), c.name).toEqual(observable(seen[0] as Answer));
    }
    const tooLarge = await send(t.baseUrl, 'POST', '/v1/sessions', h, {
      bytes: Buffer.alloc(300 * 1024, 32),
    });
    expect([tooLarge.status, tooLarge.json.code]).toEqual([413, 'payload_too_large']);
    const unknownEncoding = await send(
      t.baseUrl,
      'POST',
      '/v1/sessions',
      { ...h, 'Content-Encoding': 'bogus' },
      { bytes: json({ workflow_id: workflowId }) },
    );
    expect([unknownEncoding.status, unknownEncoding.json.code]).toEqual([415, 'unsupported_media_type']);
    for (const [method, path] of [
      ['GET', '/v1/nope'],
      ['DELETE', '/v1/sessions/sess_x'],
      ['GET', '/v1/sessions/a/b/c'],
    ] as const) {
      const a = await send(t.baseUrl, method, path, auth());
      expect([method, path, a.status, a.json.code]).toEqual([method, path, 404, 'not_found']);
    }
    const badEscape = await send(t.baseUrl, 'GET', '/v1/sessions/%E0%A4%A', auth());
    expect([badEscape.status, badEscape.json.code, badEscape.json.param]).toEqual([
      400,
      'validation_failed',
      'path',
    ]);
  });

  it('accepts a body with a UTF-8 byte order mark, as the JSON parser does', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json({ workflow_id: workflowId })]);
    expect((await send(t.baseUrl, 'POST', '/v1/sessions', jsonHeaders(), { bytes })).status).toBe(201);
  });

  it("keeps tenants apart, sees a revocation at once and checks the route's scope", async () => {
    const created = await send(t.baseUrl, 'POST', '/v1/sessions', jsonHeaders(), {
      bytes: json({ workflow_id: workflowId }),
    });
    const id = String(created.json.id);
    // another business's key: the same 404 as for an id that does not exist
    const foreign = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth(other.key));
    const missing = await send(t.baseUrl, 'GET', '/v1/sessions/sess_doesnotexist', auth());
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe('not_found');
    expect(observable(foreign)).toEqual(observable(missing));
    expect((await other.api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(404);
    // a key without sessions:read, and one without audits:read
    const scoped = await t.svc.tenancy.issueApiKey(businessId, 'sandbox', 'create only', {
      scopes: ['sessions:create'],
    });
    for (const [method, path] of [
      ['GET', `/v1/sessions/${id}`],
      ['POST', `/v1/sessions/${id}/stop`],
      ['GET', `/v1/audits/${id}_0`],
    ]) {
      const refused = await send(t.baseUrl, method as string, path as string, auth(scoped.key));
      expect([path, refused.status, refused.json.code]).toEqual([path, 403, 'api_key_scope_missing']);
    }
    // revoked: the next request is refused
    const doomed = await t.svc.tenancy.issueApiKey(businessId, 'sandbox', 'doomed');
    expect((await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth(doomed.key))).status).toBe(200);
    await t.svc.tenancy.revokeApiKey(businessId, doomed.id);
    const after = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth(doomed.key));
    expect([after.status, after.json.code]).toEqual([401, 'unauthenticated']);
    expect(after.text).not.toContain(id);
  });

  it('answers a revoked key that this process remembers 401 on every outcome: create, replay, refusal', async () => {
    const k = await t.svc.tenancy.issueApiKey(businessId, 'sandbox', 'remembered');
    const headers = { ...jsonHeaders(k.key), 'Idempotency-Key': 'remembered-1' };
    const first = await send(t.baseUrl, 'POST', '/v1/sessions', headers, {
      bytes: json({ workflow_id: workflowId }),
    });
    expect(first.status).toBe(201); // the key is now remembered by this process
    await t.svc.tenancy.revokeApiKey(businessId, k.id);
    const outcomes = [
      ['a new create', jsonHeaders(k.key), json({ workflow_id: workflowId })],
      ['a replay of its stored session', headers, json({ workflow_id: workflowId })],
      ['an invalid body', jsonHeaders(k.key), json({ workflow_id: '' })],
      ['an unknown workflow', jsonHeaders(k.key), json({ workflow_id: 'wf_nope' })],
    ] as const;
    for (const [name, h, bytes] of outcomes) {
      const a = await send(t.baseUrl, 'POST', '/v1/sessions', h, { bytes });
      expect([name, a.status, a.json.code]).toEqual([name, 401, 'unauthenticated']);
      expect(a.text, name).not.toContain(String(first.json.id));
    }
  });

  it('reads results, a gate and an expiry', async () => {
    // a gate after one identify step: the session waits with one result and a decision deadline
    const api = new Api(t.baseUrl, key);
    const gated = (
      await publishWorkflow(api, [{ primitive: 'identify', claims: ['given_name'], gateAfter: true }])
    ).workflowId;
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: gated, metadata: { n: 1 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const signer = new SignerClient(t.baseUrl, id);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(t.svc, signer)).body.status).toBe('awaiting_decision');
    const atGate = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth());
    expect(atGate.json.status).toBe('awaiting_decision');
    expect(atGate.json.results).toHaveLength(1);
    expect(atGate.json.decision_due).toEqual(expect.any(String));

    // overdue when read: the read expires it (one guarded write, one session.expired)
    const fresh = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 60 });
    const late = fresh.body.id as string;
    clock.advance(61_000);
    const expired = await send(t.baseUrl, 'GET', `/v1/sessions/${late}`, auth());
    expect(expired.status).toBe(200);
    expect(expired.json.status).toBe('expired');
    expect(expired.json.failure_reason).toEqual(expect.any(Object));
    expect(observable(await send(t.baseUrl, 'GET', `/v1/sessions/${late}/`, auth()))).toEqual(
      observable(expired),
    );
    const events = await t.svc.ds.getRepository(WebhookEventEntity).findBy({ sessionId: late });
    expect(events.map((e) => e.event)).toEqual(['session.expired']);
  });

  it("the GET finds a session's results by key lookup, not by a range planned on every call", async () => {
    const created = await new Api(t.baseUrl, key).rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const { join, params } = t.svc.sessions.getJoin(String(created.body.id));
    const statement = `SELECT ${join.columns} FROM api_key k ${join.from} WHERE k.lookup = ?`;
    const lookup = key.split('_')[2];
    const [row] = (await t.svc.ds.query(`EXPLAIN FORMAT=JSON ${statement}`, [...params, lookup])) as {
      EXPLAIN: string;
    }[];
    const tables: { table_name?: string; access_type?: string; key?: string }[] = [];
    const stack: unknown[] = [JSON.parse(String(row?.EXPLAIN))];
    while (stack.length) {
      const n = stack.pop();
      if (n && typeof n === 'object') {
        const o = n as Record<string, unknown>;
        if (o.table && typeof o.table === 'object') tables.push(o.table as (typeof tables)[number]);
        stack.push(...Object.values(o));
      }
    }
    expect(tables.find((x) => x.table_name === 'r')).toMatchObject({ access_type: 'ref', key: 'PRIMARY' });
  });

  it('counts requests in /metrics under their route template, and unknown paths as unmatched', async () => {
    const count = async (route: string, status: string) => {
      const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_requests_total') &&
            l.includes(`route="${route}"`) &&
            l.includes(`status="${status}"`),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count('/v1/sessions/:id', '404');
    const unmatched = await count('unmatched', '404');
    await send(t.baseUrl, 'GET', '/v1/sessions/sess_nothere1', auth());
    await send(t.baseUrl, 'GET', '/v1/sessions/sess_nothere2/', auth());
    await send(t.baseUrl, 'GET', '/v1/nothing-here', auth());
    expect(await count('/v1/sessions/:id', '404')).toBe(before + 2);
    expect(await count('unmatched', '404')).toBe(unmatched + 1);
  });

  it('declares every /v1 route once, with its contract, and each api_key route with its scope', () => {
    const v1 = t.svc.routes.routes.filter((r) => /^\/v1\//.test(r.path));
    expect(v1.length).toBeGreaterThan(6);
    for (const r of v1) {
      expect(isApiRoute(r), r.path).toBe(true);
      if (!isApiRoute(r)) continue;
      expect(r.contract?.operationId, r.path).toEqual(expect.any(String));
      expect(r.contract?.response?.schema, r.path).toBeDefined();
      if (r.auth === 'api_key') expect(r.scope, r.path).not.toBeUndefined();
    }
    const keys = v1.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
