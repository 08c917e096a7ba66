// Business API over real HTTP: authentication, tenant isolation, create/read contract, idempotency and the
// webhook-endpoint precondition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { identifyBusiness } from '../support/page-fixture';

describe('business API', () => {
  let t: TestService;
  let a: { api: Api; workflowId: string };
  let b: { api: Api; workflowId: string };

  beforeAll(async () => {
    t = await startTestService({ label: 'api_auth', workers: false });
    a = await identifyBusiness(t, { businessName: 'Alpha' });
    b = await identifyBusiness(t, { businessName: 'Beta' });
  });
  afterAll(async () => t?.stop());

  const expectProblem = (
    res: { status: number; headers: Headers; body: Record<string, unknown> },
    status: number,
    code: string,
  ) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
    expect(res.body.request_id).toMatch(/^req_/);
    expect(res.body.type).toContain(code);
  };

  it('refuses a missing key, a malformed key and a wrong key with 401 problem+json', async () => {
    const anon = new Api(t.baseUrl);
    expectProblem(
      await anon.rest('POST', '/v1/sessions', { workflow_id: a.workflowId }),
      401,
      'unauthenticated',
    );
    expectProblem(await anon.rest('GET', '/v1/sessions/sess_x'), 401, 'unauthenticated');
    const garbage = new Api(t.baseUrl, 'not-a-key');
    expectProblem(await garbage.rest('GET', '/v1/sessions/sess_x'), 401, 'unauthenticated');
    const forged = new Api(t.baseUrl, `sk_sandbox_${'a'.repeat(12)}_${'b'.repeat(40)}`);
    expectProblem(
      await forged.rest('POST', '/v1/sessions', { workflow_id: a.workflowId }),
      401,
      'unauthenticated',
    );
    const gql = await anon.gql('{ workflows { id } }');
    expect(gql.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    for (const api of [garbage, forged]) {
      const res = await api.gql('{ workflows { id } }');
      expect(res.errors?.[0]?.extensions?.code).toBe('unauthenticated');
      expect(res.data?.workflows ?? null).toBeNull();
    }
  });

  it("answers 404 for another business's session, workflow and audit record", async () => {
    const created = await a.api.rest('POST', '/v1/sessions', { workflow_id: a.workflowId });
    expect(created.status).toBe(201);
    expectProblem(await b.api.rest('GET', `/v1/sessions/${created.body.id}`), 404, 'not_found');
    expectProblem(await b.api.rest('POST', `/v1/sessions/${created.body.id}/stop`), 404, 'not_found');
    expectProblem(await b.api.rest('GET', `/v1/audits/${created.body.id}_0`), 404, 'not_found');
    expectProblem(
      await b.api.rest('POST', '/v1/sessions', { workflow_id: a.workflowId }),
      404,
      'workflow_not_found',
    );
    const wf = await b.api.gql('query($id: ID!) { workflow(id: $id) { id } }', { id: a.workflowId });
    expect(wf.errors?.[0]?.extensions?.code).toBe('workflow_not_found');
    // the owner still sees it
    expect((await a.api.rest('GET', `/v1/sessions/${created.body.id}`)).status).toBe(200);
  });

  it('creates a session with exactly the specified fields and reads it back', async () => {
    const res = await a.api.rest('POST', '/v1/sessions', {
      workflow_id: a.workflowId,
      expires_in: 600,
      metadata: { order: 7 },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      'expires',
      'id',
      'status',
      'url',
      'workflow_id',
      'workflow_revision',
    ]);
    const created = Date.now();
    expect(Math.abs(new Date(res.body.expires).getTime() - (created + 600_000))).toBeLessThan(30_000);
    const read = await a.api.rest('GET', `/v1/sessions/${res.body.id}`);
    expect(read.body).toMatchObject({
      id: res.body.id,
      status: 'created',
      metadata: { order: 7 },
      results: [],
    });
  });

  it('returns the original session for a repeated Idempotency-Key, without comparing bodies', async () => {
    const h = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await a.api.rest('POST', '/v1/sessions', { workflow_id: a.workflowId }, h);
    const again = await a.api.rest('POST', '/v1/sessions', { workflow_id: a.workflowId, expires_in: 120 }, h);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // the same key from another business is another reservation
    const other = await b.api.rest('POST', '/v1/sessions', { workflow_id: b.workflowId }, h);
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('refuses bad input with a stable code and the field at fault', async () => {
    expectProblem(await a.api.rest('POST', '/v1/sessions', {}), 400, 'validation_failed');
    const tooShort = await a.api.rest('POST', '/v1/sessions', { workflow_id: a.workflowId, expires_in: 59 });
    expectProblem(tooShort, 400, 'validation_failed');
    expect(tooShort.body.param).toBe('expires_in');
    const meta = await a.api.rest('POST', '/v1/sessions', { workflow_id: a.workflowId, metadata: [1] });
    expect(meta.body.param).toBe('metadata');
    const notJson = await fetch(`${t.baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.api.apiKey}`, 'Content-Type': 'application/json' },
      body: '{"workflow_id":',
    });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).code).toBe('invalid_json');
  });

  it('refuses to create sessions before a webhook endpoint is configured', async () => {
    const c = await createBusiness(t, 'Gamma');
    const api = new Api(t.baseUrl, c.apiKey);
    const wf = await api.gql(
      `mutation { createWorkflow(input: { name: "w", steps: [{ primitive: identify, claims: ["given_name"] }] }) { id } }`,
    );
    const id = wf.data.createWorkflow.id;
    expectProblem(await api.rest('POST', '/v1/sessions', { workflow_id: id }), 409, 'workflow_not_published');
    await api.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', { id });
    expectProblem(
      await api.rest('POST', '/v1/sessions', { workflow_id: id }),
      409,
      'webhook_endpoint_required',
    );
  });
});
