// "API-only access" (spec §1, issue 20): the published revision's flag decides who creates sessions. A dashboard
// user cannot create a session of an API-only workflow through GraphQL (403 `workflow_api_only`, nothing
// stored); an API key still can, over REST and GraphQL. A workflow without the flag gets sessions from the
// dashboard, whose answer carries the hosted link. Real MariaDB, real HTTP, the dashboard's own credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';

const CREATE = 'mutation($w: ID!) { createSession(input: { workflowId: $w }) { id url status } }';
const code = (r: { errors?: Json[] }) => r.errors?.[0]?.extensions?.code;

describe('API-only access', () => {
  let t: TestService;
  let businessId: string;
  /** The signed-in owner in the dashboard (GraphQL with the session cookie). */
  let dashboard: Api;
  /** The business's sandbox API key, for REST and for GraphQL. */
  let keyRest: Api;
  let keyGql: Api;
  let apiOnlyWf: string;
  let openWf: string;

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'api_only' });
    const biz = await createBusiness(t);
    businessId = biz.businessId;
    dashboard = new Api(t.baseUrl, undefined, biz.dashboard);
    keyRest = new Api(t.baseUrl, biz.apiKey);
    keyGql = new Api(t.baseUrl, biz.apiKey, null);
    ({ workflowId: apiOnlyWf } = await setUpIdentifyWorkflow(keyRest, 'http://127.0.0.1:9/hooks'));
    ({ workflowId: openWf } = await setUpIdentifyWorkflow(
      keyRest,
      'http://127.0.0.1:9/hooks',
      undefined,
      false,
    ));
  });
  afterAll(async () => t?.stop());

  const sessions = () => t.svc.ds.getRepository(SessionEntity).countBy({ businessId });

  it('refuses a dashboard user’s create of an API-only workflow with a stable code, and stores nothing', async () => {
    const before = await sessions();
    const r = await dashboard.gql(CREATE, { w: apiOnlyWf });
    expect(r.data).toBeNull();
    expect(code(r)).toBe('workflow_api_only');
    expect(r.errors?.[0]?.extensions?.status).toBe(403);
    expect(r.errors?.[0]?.message).toMatch(/API-only access/);
    expect(await sessions()).toBe(before);
    // the same user again (a remembered revision must not skip the check)
    expect(code(await dashboard.gql(CREATE, { w: apiOnlyWf }))).toBe('workflow_api_only');
  });

  it('an API key still creates sessions of it, over REST and over GraphQL', async () => {
    const rest = await keyRest.rest('POST', '/v1/sessions', { workflow_id: apiOnlyWf });
    expect(rest.status).toBe(201);
    const gql = await keyGql.gql(CREATE, { w: apiOnlyWf });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.createSession.status).toBe('created');
  });

  it('a workflow without API-only access gets sessions from the dashboard, with their hosted link', async () => {
    const r = await dashboard.gql(CREATE, { w: openWf });
    expect(r.errors).toBeUndefined();
    const s = r.data.createSession;
    expect(s.status).toBe('created');
    expect(s.url).toBe(`${t.baseUrl}/s/${s.id}`);
    expect((await keyRest.rest('GET', `/v1/sessions/${s.id}`)).body.status).toBe('created');
  });

  it('the published revision decides: unticking the box in the draft changes nothing until it is published', async () => {
    const steps = [{ primitive: 'identify', claims: ['given_name'] }];
    const draft = await dashboard.gql(
      'mutation($w: ID!, $s: [WorkflowStepInput!]!) { setWorkflowSteps(workflowId: $w, steps: $s, apiOnly: false) { apiOnly } }',
      { w: apiOnlyWf, s: steps },
    );
    expect(draft.data.setWorkflowSteps.apiOnly).toBe(false);
    expect(code(await dashboard.gql(CREATE, { w: apiOnlyWf }))).toBe('workflow_api_only');
    const pub = await dashboard.gql('mutation($w: ID!) { publishWorkflow(workflowId: $w) { apiOnly } }', {
      w: apiOnlyWf,
    });
    expect(pub.data.publishWorkflow.apiOnly).toBe(false);
    expect((await dashboard.gql(CREATE, { w: apiOnlyWf })).errors).toBeUndefined();
  });
});
