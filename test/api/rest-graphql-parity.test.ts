// One service, two transports: the same session cases over REST (/v1) and GraphQL give the same answers.
// Success shapes map 1:1 (snake_case <-> camelCase; a step's primitive-specific fields <-> `result`), and
// every error case gives the same stable code (REST problem+json `code` == GraphQL `extensions.code`) and
// status. The clock is manual, so timestamps of sessions created over both transports are equal.
// Sign sessions with documents (GraphQL multipart uploads against REST multipart): graphql-uploads.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';

const SESSION = `id workflowId workflowRevision url status expires created metadata
  results { stage primitive auditId completedAt result } decisionDue
  failureReason { code stage window refusedResponses }`;
const CREATED = 'id workflowId workflowRevision url status expires idempotentReplayed';
const Q_SESSION = `query($id: ID!) { session(id: $id) { ${SESSION} } }`;
const M_CREATE = `mutation($input: CreateSessionInput!, $key: String) {
  createSession(input: $input, idempotencyKey: $key) { ${CREATED} } }`;
const M_STOP = `mutation($id: ID!) { stopSession(id: $id) { ${SESSION} } }`;
const M_CONTINUE = `mutation($id: ID!) { continueSession(id: $id) { ${SESSION} } }`;

/** The REST body a GraphQL Session or SessionCreated stands for. */
function asRest(g: Json): Json {
  const out: Json = {
    id: g.id,
    workflow_id: g.workflowId,
    workflow_revision: g.workflowRevision,
    url: g.url,
    status: g.status,
    expires: g.expires,
  };
  if ('created' in g) {
    out.created = g.created;
    out.metadata = g.metadata;
    out.results = g.results.map((r: Json) => ({
      stage: r.stage,
      primitive: r.primitive,
      audit_id: r.auditId,
      completed_at: r.completedAt,
      ...r.result,
    }));
    out.decision_due = g.decisionDue;
    // REST names failure_reason only on failed and expired sessions; GraphQL answers null elsewhere
    if (g.failureReason !== null) {
      const f = g.failureReason;
      out.failure_reason = {
        code: f.code,
        stage: f.stage,
        window: f.window,
        refused_responses: f.refusedResponses,
      };
    } else if (!['failed', 'expired'].includes(g.status)) {
      out.failure_reason = undefined;
    } else {
      throw new Error(`a ${g.status} session without failureReason over GraphQL`);
    }
  }
  return out;
}

/** Two sessions' answers compared with their ids (which also appear in url and audit ids) blanked. */
const withoutId = (body: Json, id: string): Json => JSON.parse(JSON.stringify(body).replaceAll(id, '<id>'));

describe('REST and GraphQL parity for sessions', () => {
  const clock = new ManualClock(Date.parse('2030-01-01T10:00:00.000Z'));
  let t: TestService;
  let a: Api;
  let b: Api;
  let workflowId: string;
  let gatedWorkflowId: string;
  let unpublishedId: string;

  beforeAll(async () => {
    t = await startTestService({ clock, workers: false, label: 'parity' });
    a = new Api(t.baseUrl, (await createBusiness(t, 'Alpha')).apiKey);
    b = new Api(t.baseUrl, (await createBusiness(t, 'Beta')).apiKey);
    // not API-only: the parity compares REST (API key) with the dashboard's GraphQL creates
    workflowId = (await setUpIdentifyWorkflow(a, 'http://127.0.0.1:9/hooks', undefined, false)).workflowId;
    await setUpIdentifyWorkflow(b, 'http://127.0.0.1:9/hooks', undefined, false);
    const gated = await a.gql(
      'mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }',
      {
        input: {
          name: 'gated',
          apiOnly: false,
          steps: [
            { primitive: 'identify', claims: ['given_name'], gateAfter: true },
            { primitive: 'identify', claims: ['family_name'] },
          ],
        },
      },
    );
    gatedWorkflowId = gated.data.createWorkflow.id;
    await a.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', {
      id: gatedWorkflowId,
    });
    const draft = await a.gql('mutation { createWorkflow(input: { name: "draft only" }) { id } }');
    unpublishedId = draft.data.createWorkflow.id;
  });
  afterAll(async () => t?.stop());

  const restCreate = async (api: Api, body: Json, headers: Record<string, string> = {}) =>
    api.rest('POST', '/v1/sessions', body, headers);
  const gqlCreate = (api: Api, input: Json, key?: string) => api.gql(M_CREATE, { input, key });

  /** A session of the gated workflow whose first step the person completed: it waits at the gate. */
  async function atGate(): Promise<string> {
    const created = await restCreate(a, { workflow_id: gatedWorkflowId });
    const id = created.body.id as string;
    const signer = new SignerClient(t.baseUrl, id);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    return id;
  }

  it('creates the same session over both transports', async () => {
    const input = { metadata: { order: 7, tags: ['a'] } };
    const rest = await restCreate(a, { workflow_id: workflowId, metadata: input.metadata, expires_in: 600 });
    const gql = await gqlCreate(a, { workflowId, metadata: input.metadata, expiresIn: 600 });
    expect(rest.status).toBe(201);
    expect(gql.errors).toBeUndefined();
    const { idempotentReplayed, ...created } = gql.data.createSession;
    expect(idempotentReplayed).toBe(false);
    const mapped = asRest(created);
    expect(Object.keys(mapped).sort()).toEqual(Object.keys(rest.body).sort());
    expect(withoutId(mapped, mapped.id)).toEqual(withoutId(rest.body, rest.body.id));
    expect(mapped.expires).toBe('2030-01-01T10:10:00.000Z');

    // and each transport reads the other's session identically
    for (const id of [rest.body.id, mapped.id]) {
      const viaRest = await a.rest('GET', `/v1/sessions/${id}`);
      const viaGql = await a.gql(Q_SESSION, { id });
      expect(viaRest.status).toBe(200);
      expect(asRest(viaGql.data.session)).toEqual(viaRest.body);
      expect(viaRest.body.metadata).toEqual(input.metadata);
    }
  });

  it('shares one Idempotency-Key reservation between the transports', async () => {
    const key = `parity-${clock.now().getTime()}`;
    const first = await restCreate(a, { workflow_id: workflowId }, { 'Idempotency-Key': key });
    const again = await gqlCreate(a, { workflowId, expiresIn: 120 }, key);
    expect(first.status).toBe(201);
    expect(again.data.createSession.idempotentReplayed).toBe(true);
    const { idempotentReplayed: _, ...created } = again.data.createSession;
    expect(asRest(created)).toEqual(first.body);
  });

  it('reads results, continues at a gate and stops with the same answers', async () => {
    const [s1, s2] = [await atGate(), await atGate()];
    const restRead = await a.rest('GET', `/v1/sessions/${s1}`);
    const gqlRead = await a.gql(Q_SESSION, { id: s1 });
    expect(restRead.body.status).toBe('awaiting_decision');
    expect(restRead.body.results).toHaveLength(1);
    expect(restRead.body.results[0].claims).toEqual({ given_name: expect.any(String) });
    expect(asRest(gqlRead.data.session)).toEqual(restRead.body);

    const restContinue = await a.rest('POST', `/v1/sessions/${s1}/continue`);
    const gqlContinue = await a.gql(M_CONTINUE, { id: s2 });
    expect(restContinue.status).toBe(200);
    expect(gqlContinue.errors).toBeUndefined();
    expect(restContinue.body.status).toBe('in_progress');
    expect(withoutId(asRest(gqlContinue.data.continueSession), s2)).toEqual(withoutId(restContinue.body, s1));

    const restStop = await a.rest('POST', `/v1/sessions/${s1}/stop`);
    const gqlStop = await a.gql(M_STOP, { id: s2 });
    expect(restStop.body.status).toBe('stopped');
    expect(withoutId(asRest(gqlStop.data.stopSession), s2)).toEqual(withoutId(restStop.body, s1));
  });

  it('reads a failed and an expired session with the same failure_reason', async () => {
    const failed = (await restCreate(a, { workflow_id: workflowId })).body.id as string;
    const signer = new SignerClient(t.baseUrl, failed);
    expect((await signer.start()).status).toBe(200);
    for (let i = 0; i < 5; i++) await shareWithReferenceWallet(t.svc, signer, 'revoked');
    const expiring = (await restCreate(a, { workflow_id: workflowId, expires_in: 60 })).body.id as string;
    clock.advance(61_000);
    const seen: Json[] = [];
    for (const id of [failed, expiring]) {
      const viaRest = await a.rest('GET', `/v1/sessions/${id}`);
      const viaGql = await a.gql(Q_SESSION, { id });
      expect(viaGql.errors).toBeUndefined();
      expect(viaRest.body.failure_reason).toBeDefined();
      expect(asRest(viaGql.data.session)).toEqual(viaRest.body);
      seen.push(viaRest.body);
    }
    expect(seen[0]).toMatchObject({
      status: 'failed',
      failure_reason: { code: 'credential_revoked', stage: 0, window: null, refused_responses: 5 },
    });
    expect(seen[1]).toMatchObject({
      status: 'expired',
      failure_reason: { code: 'session_expired', stage: null, window: 'overall', refused_responses: null },
    });
  });

  describe('error cases give the same code over both transports', () => {
    type Case = {
      name: string;
      rest: () => Promise<{ status: number; headers: Headers; body: Json }>;
      gql: () => Promise<{ data?: Json; errors?: Json[] }>;
      code: string;
      param?: [rest: string, gql: string];
    };
    let ownSession: string;
    let stoppedSession: string;
    const cases: Case[] = [
      {
        name: 'unknown workflow',
        rest: () => restCreate(a, { workflow_id: 'wf_unknown' }),
        gql: () => gqlCreate(a, { workflowId: 'wf_unknown' }),
        code: 'workflow_not_found',
      },
      {
        name: 'workflow without a published revision',
        rest: () => restCreate(a, { workflow_id: unpublishedId }),
        gql: () => gqlCreate(a, { workflowId: unpublishedId }),
        code: 'workflow_not_published',
      },
      {
        name: 'expires_in below 60 s',
        rest: () => restCreate(a, { workflow_id: workflowId, expires_in: 59 }),
        gql: () => gqlCreate(a, { workflowId, expiresIn: 59 }),
        code: 'validation_failed',
        param: ['expires_in', 'input.expiresIn'],
      },
      {
        name: 'expires_in above 24 h',
        rest: () => restCreate(a, { workflow_id: workflowId, expires_in: 86_401 }),
        gql: () => gqlCreate(a, { workflowId, expiresIn: 86_401 }),
        code: 'validation_failed',
        param: ['expires_in', 'input.expiresIn'],
      },
      {
        name: 'metadata that is not an object',
        rest: () => restCreate(a, { workflow_id: workflowId, metadata: [1, 2] }),
        gql: () => gqlCreate(a, { workflowId, metadata: [1, 2] }),
        code: 'validation_failed',
        param: ['metadata', 'input.metadata'],
      },
      {
        name: 'Idempotency-Key longer than 255 characters',
        rest: () => restCreate(a, { workflow_id: workflowId }, { 'Idempotency-Key': 'k'.repeat(256) }),
        gql: () => gqlCreate(a, { workflowId }, 'k'.repeat(256)),
        code: 'validation_failed',
        param: ['Idempotency-Key', 'idempotencyKey'],
      },
      {
        name: "another business's session (read)",
        rest: () => b.rest('GET', `/v1/sessions/${ownSession}`),
        gql: () => b.gql(Q_SESSION, { id: ownSession }),
        code: 'not_found',
      },
      {
        name: "another business's session (stop)",
        rest: () => b.rest('POST', `/v1/sessions/${ownSession}/stop`),
        gql: () => b.gql(M_STOP, { id: ownSession }),
        code: 'not_found',
      },
      {
        name: "another business's session (continue)",
        rest: () => b.rest('POST', `/v1/sessions/${ownSession}/continue`),
        gql: () => b.gql(M_CONTINUE, { id: ownSession }),
        code: 'not_found',
      },
      {
        name: "another business's workflow",
        rest: () => restCreate(b, { workflow_id: workflowId }),
        gql: () => gqlCreate(b, { workflowId }),
        code: 'workflow_not_found',
      },
      {
        name: 'continue a session that is not at a gate',
        rest: () => a.rest('POST', `/v1/sessions/${ownSession}/continue`),
        gql: () => a.gql(M_CONTINUE, { id: ownSession }),
        code: 'session_state_conflict',
      },
      {
        name: 'stop a stopped session',
        rest: () => a.rest('POST', `/v1/sessions/${stoppedSession}/stop`),
        gql: () => a.gql(M_STOP, { id: stoppedSession }),
        code: 'session_state_conflict',
      },
      {
        name: 'no API key',
        rest: () => new Api(t.baseUrl).rest('GET', `/v1/sessions/${ownSession}`),
        gql: () => new Api(t.baseUrl).gql(Q_SESSION, { id: ownSession }),
        code: 'unauthenticated',
      },
    ];

    beforeAll(async () => {
      ownSession = (await restCreate(a, { workflow_id: workflowId })).body.id;
      stoppedSession = (await restCreate(a, { workflow_id: workflowId })).body.id;
      expect((await a.rest('POST', `/v1/sessions/${stoppedSession}/stop`)).status).toBe(200);
    });

    it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const rest = await c.rest();
      const gql = await c.gql();
      expect(rest.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(rest.body.code).toBe(c.code);
      expect(gql.data ?? null).toBeNull();
      expect(gql.errors).toHaveLength(1);
      const ext = gql.errors?.[0].extensions;
      expect(ext.code).toBe(c.code);
      expect(ext.status).toBe(rest.status);
      if (c.param) {
        expect(rest.body.param).toBe(c.param[0]);
        expect(ext.param).toBe(c.param[1]);
      }
    });
  });
});
