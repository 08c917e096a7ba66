// The lean lane (ADR 0023) answers POST /v1/sessions and GET /v1/sessions/{id} in their plain shape without
// Express. An integrator must not be able to tell which stack answered: the same request sent in a shape only
// Express takes (a chunked body, a percent-escaped path) gets the same status, headers and body, errors included.
// Tenant isolation, revocation, scopes, rate-limit headers and metrics hold on the lane.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
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
      // two chunks, no Content-Length: a shape the lane leaves to Express
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

describe('the lean lane answers exactly as the Express stack', () => {
  const clock = new ManualClock(Date.now());
  let t: TestService;
  let key: string;
  let businessId: string;
  let workflowId: string;
  let other: { api: Api; key: string };

  beforeAll(async () => {
    t = await startTestService({ label: 'fast_lane', workers: false, clock });
    const biz = await createBusiness(t, 'Lane GmbH');
    key = biz.apiKey;
    businessId = biz.businessId;
    workflowId = (await setUpIdentifyWorkflow(new Api(t.baseUrl, key), 'http://127.0.0.1:9/hooks'))
      .workflowId;
    const b = await createBusiness(t, 'Other GmbH');
    other = { api: new Api(t.baseUrl, b.apiKey), key: b.apiKey };
  });
  afterAll(async () => t?.stop());

  const auth = () => ({ Authorization: `Bearer ${key}` });
  /** How many requests the lean lane answered so far, from /metrics (all routes). */
  const laneCount = async () => {
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith('http_lean_lane_requests_total{'))
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
  };
  /** Sends `go`, and checks whether the lane (true) or Express (false) answered it. */
  const via = async <T>(lane: boolean, go: () => Promise<T>): Promise<T> => {
    const before = await laneCount();
    const out = await go();
    expect(await laneCount(), lane ? 'answered by the lane' : 'answered by Express').toBe(
      before + (lane ? 1 : 0),
    );
    return out;
  };
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));

  it('creates a session with the same answer whether the body is sent with a length or chunked', async () => {
    const body = json({ workflow_id: workflowId, metadata: { order: 7 } });
    const headers = { ...auth(), 'Content-Type': 'application/json' };
    const lane = await via(true, () => send(t.baseUrl, 'POST', '/v1/sessions', headers, { bytes: body }));
    const express = await via(false, () =>
      send(t.baseUrl, 'POST', '/v1/sessions', headers, { bytes: body, chunked: true }),
    );
    expect(lane.status).toBe(201);
    expect(observable(lane)).toEqual(observable(express));
    for (const a of [lane, express]) {
      expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(a.headers['x-request-id']).toMatch(/^req_/);
      expect(a.headers['x-content-type-options']).toBe('nosniff');
      expect(a.headers['referrer-policy']).toBe('no-referrer');
      expect(a.headers['ratelimit-policy']).toMatch(/^\d+;w=\d+$/);
      expect(a.headers.ratelimit).toMatch(/^limit=\d+, remaining=\d+, reset=\d+$/);
      expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(a.text));
    }
    // both sessions exist and read back the same through either stack
    const id = String(lane.json.id);
    const readLane = await via(true, () => send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth()));
    const readExpress = await via(false, () =>
      send(t.baseUrl, 'GET', `/v1/sessions/${id.replace('_', '%5F')}`, auth()),
    );
    expect(readLane.status).toBe(200);
    expect(readLane.json).toMatchObject({ id, status: 'created', metadata: { order: 7 }, results: [] });
    expect(observable(readLane)).toEqual(observable(readExpress));
  });

  it('replays an Idempotency-Key with Idempotent-Replayed on the lane', async () => {
    const headers = { ...auth(), 'Content-Type': 'application/json', 'Idempotency-Key': 'lane-key-1' };
    const body = json({ workflow_id: workflowId });
    const first = await send(t.baseUrl, 'POST', '/v1/sessions', headers, { bytes: body });
    const again = await send(t.baseUrl, 'POST', '/v1/sessions', headers, { bytes: body });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(first.status);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json.id).toBe(first.json.id);
  });

  it('refuses bad bodies and keys with the same problem from both stacks', async () => {
    const h = { ...auth(), 'Content-Type': 'application/json' };
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
        name: 'an unknown workflow',
        headers: h,
        bytes: json({ workflow_id: 'wf_nope' }),
        code: 'workflow_not_found',
        status: 404,
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
      const lane = await via(true, () =>
        send(t.baseUrl, 'POST', '/v1/sessions', c.headers, { bytes: c.bytes }),
      );
      const express = await via(false, () =>
        send(t.baseUrl, 'POST', '/v1/sessions', c.headers, { bytes: c.bytes, chunked: true }),
      );
      expect(lane.status, c.name).toBe(c.status);
      expect(lane.json.code, c.name).toBe(c.code);
      expect(lane.headers['content-type'], c.name).toBe('application/problem+json; charset=utf-8');
      expect(observable(lane), c.name).toEqual(observable(express));
    }
  });

  it('accepts a body with a UTF-8 byte order mark, as the Express parser does', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json({ workflow_id: workflowId })]);
    const lane = await send(
      t.baseUrl,
      'POST',
      '/v1/sessions',
      { ...auth(), 'Content-Type': 'application/json' },
      { bytes },
    );
    expect(lane.status).toBe(201);
  });

  it("keeps tenants apart, sees a revocation at once and checks the key's scope", async () => {
    const created = await send(
      t.baseUrl,
      'POST',
      '/v1/sessions',
      { ...auth(), 'Content-Type': 'application/json' },
      { bytes: json({ workflow_id: workflowId }) },
    );
    const id = String(created.json.id);
    // another business's key: the same 404 as for an id that does not exist
    const foreign = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, {
      Authorization: `Bearer ${other.key}`,
    });
    const missing = await send(t.baseUrl, 'GET', '/v1/sessions/sess_doesnotexist', auth());
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe('not_found');
    expect(observable(foreign)).toEqual(observable(missing));
    // a key without sessions:read
    const scoped = await t.svc.tenancy.issueApiKey(businessId, 'sandbox', 'create only', {
      scopes: ['sessions:create'],
    });
    const refused = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, {
      Authorization: `Bearer ${scoped.key}`,
    });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('api_key_scope_missing');
    // revoked: the next request is refused, on every stack
    const doomed = await t.svc.tenancy.issueApiKey(businessId, 'sandbox', 'doomed');
    const before = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, {
      Authorization: `Bearer ${doomed.key}`,
    });
    expect(before.status).toBe(200);
    await t.svc.tenancy.revokeApiKey(businessId, doomed.id);
    const after = await send(t.baseUrl, 'GET', `/v1/sessions/${id}`, {
      Authorization: `Bearer ${doomed.key}`,
    });
    expect(after.status).toBe(401);
    expect(after.json.code).toBe('unauthenticated');
    expect(after.text).not.toContain(id);
  });

  it('reads results, a gate and an expiry with the same answer on both stacks', async () => {
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
    const atGate = await via(true, () => send(t.baseUrl, 'GET', `/v1/sessions/${id}`, auth()));
    const atGateExpress = await via(false, () =>
      send(t.baseUrl, 'GET', `/v1/sessions/${id.replace('_', '%5F')}`, auth()),
    );
    expect(atGate.json.status).toBe('awaiting_decision');
    expect(atGate.json.results).toHaveLength(1);
    expect(atGate.json.decision_due).toEqual(expect.any(String));
    expect(observable(atGate)).toEqual(observable(atGateExpress));

    // overdue when read: the lane's read expires it (one guarded write, one session.expired), both stacks
    // then answer the expired session with its failure reason
    const fresh = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 60 });
    const late = fresh.body.id as string;
    clock.advance(61_000);
    const expired = await via(true, () => send(t.baseUrl, 'GET', `/v1/sessions/${late}`, auth()));
    const expiredExpress = await via(false, () =>
      send(t.baseUrl, 'GET', `/v1/sessions/${late.replace('_', '%5F')}`, auth()),
    );
    expect(expired.status).toBe(200);
    expect(expired.json.status).toBe('expired');
    expect(expired.json.failure_reason).toEqual(expect.any(Object));
    expect(observable(expired)).toEqual(observable(expiredExpress));
    const events = await t.svc.ds.getRepository(WebhookEventEntity).findBy({ sessionId: late });
    expect(events.map((e) => e.event)).toEqual(['session.expired']);
  });

  it("the lane's GET finds a session's results by key lookup, not by a range planned on every call", async () => {
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

  it('counts lane requests in /metrics under their route', async () => {
    const count = async () => {
      const m = await fetch(`${t.baseUrl}/metrics`);
      const text = await m.text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('http_requests_total') &&
            l.includes('route="/v1/sessions/:id"') &&
            l.includes('status="404"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = await count();
    await send(t.baseUrl, 'GET', '/v1/sessions/sess_nothere1', auth());
    await send(t.baseUrl, 'GET', '/v1/sessions/sess_nothere2', auth());
    expect(await count()).toBe(before + 2);
  });
});
