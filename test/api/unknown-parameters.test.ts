// The API's manners (issue 29, ADR 0051): a parameter an operation does not have is refused with 400
// validation_failed naming it (`param`), as Stripe does, never silently dropped: on the JSON create
// (`recipient_email`, which the specification does not have; a misspelt `expires_in`), the multipart create,
// the routes without a body (continue, stop), and the GraphQL twin. Nothing is created by a refused request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { setUpSignWorkflow } from '../support/sign-workflow';
import { createMultipart, minimalPdf, publishWorkflow } from '../support/workflows';

describe('unknown parameters', () => {
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let signWorkflowId: string;

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'unknown_params' });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      'http://127.0.0.1:9/hooks',
    ));
    ({ workflowId: signWorkflowId } = await setUpSignWorkflow(api));
  });
  afterAll(async () => t?.stop());

  const sessionCount = async () => {
    const [row] = await t.svc.ds.query('SELECT COUNT(*) AS n FROM session');
    return Number(row.n);
  };

  it.each([
    ['recipient_email', { recipient_email: 'ana@example.com' }],
    ['expires_inn', { expires_inn: 600 }],
    ['workflowId', { workflowId: 'wf_x' }],
  ])('POST /v1/sessions (JSON) refuses %s, naming it', async (name, extra) => {
    const before = await sessionCount();
    const res = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, ...extra });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.param).toBe(name);
    expect(res.body.detail).toContain(`unknown parameter: ${name}`);
    expect(await sessionCount()).toBe(before);
  });

  it('the same create without the unknown field succeeds (the refusal is about the field)', async () => {
    const res = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 600 });
    expect(res.status).toBe(201);
  });

  it('the multipart create refuses an unknown form field, naming it', async () => {
    const res = await createMultipart(api, { workflow_id: signWorkflowId, expires_inn: '600' }, [
      { filename: 'contract.pdf', type: 'application/pdf', bytes: minimalPdf() },
    ]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'expires_inn' });
  });

  it.each(['continue', 'stop'])('POST /v1/sessions/{id}/%s refuses any body field', async (action) => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const res = await api.rest('POST', `/v1/sessions/${created.body.id}/${action}`, { reason: 'done' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', param: 'reason' });
    // nothing happened: stop without a body still works
    if (action === 'stop') {
      expect((await api.rest('GET', `/v1/sessions/${created.body.id}`)).body.status).toBe('created');
      expect((await api.rest('POST', `/v1/sessions/${created.body.id}/stop`)).status).toBe(200);
    }
  });

  it('the key is checked before the parameters (no key: 401, not 400)', async () => {
    const anon = new Api(t.baseUrl, '');
    const res = await anon.rest('POST', '/v1/sessions/sess_x/stop', { reason: 'x' });
    expect(res.status).toBe(401);
  });

  it('the GraphQL twin refuses an unknown input field', async () => {
    const out = await api.gql('mutation($i: CreateSessionInput!) { createSession(input: $i) { id } }', {
      i: { workflowId, recipientEmail: 'ana@example.com' },
    });
    expect(out.data ?? null).toBeNull();
    expect(JSON.stringify(out.errors)).toContain('recipientEmail');
  });

  it('the error reference documents the rule', async () => {
    const res = await fetch(`${t.baseUrl}/errors/validation_failed`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/unknown parameter \(a misspelt <code>expires_in<\/code>/);
  });
});
