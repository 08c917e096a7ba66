// Sessions for support, as a dashboard user and an integrator observe them (issue 9): the session list with
// its filters and cursor pagination, the per-session timeline (created, opened, started, wallet requests and
// responses with refusal codes, steps, decisions, the end, webhook deliveries), and the structured failure
// reason of failed and expired sessions in GET /v1/sessions/{id}, the session.failed/expired webhooks and the
// GraphQL mirror. Real MariaDB, real HTTP receiver; time moves by a ManualClock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { newId } from '../../server/src/common/ids';
import { SessionSchema, sessionEndedEventSchema } from '../../server/src/modules/session/session.contract';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { SessionEventEntity } from '../../server/src/modules/timeline/session-event.entity';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const MIN = 60_000;

const TIMELINE = `query($id: ID!) { sessionTimeline(id: $id) {
  session { id status environment workflowId currentStage failureReason { code stage window refusedResponses } }
  entries { at kind stage code detail } } }`;

describe('sessions for support', () => {
  const clock = new ManualClock(Date.now());
  const receiver = new WebhookReceiver();
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let gatedWorkflowId: string;

  const deliverAll = async () => {
    while ((await t.svc.relay.runOnce()) > 0) {}
  };
  const create = async (wf = workflowId) => {
    const r = await api.rest('POST', '/v1/sessions', { workflow_id: wf });
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const timeline = async (id: string, who = api) => who.gql(TIMELINE, { id });
  const kinds = (entries: Json[]) => entries.map((e) => e.kind);

  /** A refused presentation: the reference wallet answers another request's nonce. */
  async function refused(signer: SignerClient) {
    const wr = await signer.walletRequest();
    const response = await t.svc.wallet.presentWith({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
      overrides: { nonce: 'A'.repeat(43) },
    });
    return signer.submit(wr.body.request_id, response);
  }

  beforeAll(async () => {
    t = await startTestService({ clock, workers: false, label: 'support' });
    await receiver.start();
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId } = await setUpIdentifyWorkflow(api, receiver.url));
    ({ workflowId: gatedWorkflowId } = await publishWorkflow(
      api,
      [
        { primitive: 'identify', claims: ['given_name'], gateAfter: true },
        { primitive: 'identify', claims: ['family_name'] },
      ],
      undefined,
      'gated',
    ));
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  describe('timeline', () => {
    it('tells a completed session from creation to its delivered webhooks, decisions included', async () => {
      const id = await create(gatedWorkflowId);
      const signer = new SignerClient(t.baseUrl, id);
      await signer.session();
      await signer.session(); // a reload is not a second "opened"
      await signer.start();
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      expect((await api.rest('POST', `/v1/sessions/${id}/continue`)).status).toBe(200);
      clock.advance(1000);
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      receiver.script.push(502);
      await t.svc.relay.runOnce();
      clock.advance(10_000);
      await deliverAll();

      const r = await timeline(id);
      expect(r.errors).toBeUndefined();
      const { session, entries } = r.data.sessionTimeline;
      expect(session).toMatchObject({ id, status: 'completed', environment: 'sandbox', failureReason: null });
      const life = entries.filter((e: Json) => !e.kind.startsWith('webhook_'));
      expect(kinds(life)).toEqual([
        'created',
        'opened',
        'started',
        'wallet_request',
        'wallet_response_accepted',
        'step_completed',
        'awaiting_decision',
        'continued',
        'wallet_request',
        'wallet_response_accepted',
        'step_completed',
        'completed',
      ]);
      expect(life.map((e: Json) => e.stage)).toEqual([null, null, 0, 0, 0, 0, 0, 1, 1, 1, 1, null]);
      const request = life[3];
      expect(request.detail).toMatchObject({ transport: 'dc_api' });
      expect(request.detail.request_id).toMatch(/^wreq_/);
      expect(life[4].detail.audit_id).toBe(`${id}_0`);
      // oldest first
      const times = entries.map((e: Json) => Date.parse(e.at));
      expect(times).toEqual([...times].sort((a, b) => a - b));

      const hooks = entries.filter((e: Json) => e.kind.startsWith('webhook_'));
      const queued = hooks.filter((e: Json) => e.kind === 'webhook_queued').map((e: Json) => e.detail.event);
      expect(queued).toEqual(['step.completed', 'step.completed', 'session.completed']);
      const attempts = hooks.filter((e: Json) => e.kind === 'webhook_attempt');
      expect(attempts.map((e: Json) => e.code)).toEqual(['502', '200', '200', '200']);
      expect(attempts[0].detail).toMatchObject({
        event: 'step.completed',
        status_code: 502,
        error: 'HTTP 502',
      });
      // no personal data in the timeline (the claims are in the results, not here)
      expect(JSON.stringify(r.data)).not.toContain('Mustermann');
    });

    it('reads `started` and `wallet_request` from the rows Start and the request wrote, and keeps older stored entries', async () => {
      const id = await create();
      const signer = new SignerClient(t.baseUrl, id);
      await signer.session();
      await signer.start();
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      const stored = async () =>
        (await t.svc.ds.getRepository(SessionEventEntity).findBy({ sessionId: id })).map((e) => e.kind);
      // Start and the request wrote no timeline row of their own (ADR 0074): the entries are their rows
      expect(await stored()).not.toContain('started');
      expect(await stored()).not.toContain('wallet_request');
      const life = async () =>
        ((await timeline(id)).data.sessionTimeline.entries as Json[]).filter(
          (e) => !e.kind.startsWith('webhook_'),
        );
      const now = await life();
      expect(kinds(now)).toEqual([
        'created',
        'opened',
        'started',
        'wallet_request',
        'wallet_response_accepted',
        'step_completed',
        'completed',
      ]);
      const s = await t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });
      expect(Date.parse(now[2].at)).toBe(s.startedAt?.getTime());
      // a session from before: no started_at, requests without transport and order key, the entries stored
      const [request] = await t.svc.ds.getRepository(WalletRequestEntity).findBy({ sessionId: id });
      await t.svc.ds.getRepository(SessionEntity).update({ id }, { startedAt: null });
      await t.svc.ds
        .getRepository(WalletRequestEntity)
        .update({ sessionId: id }, { transport: null, orderKey: null });
      // keys of their time: after the page's open, before the answer (written a request later)
      const events = await t.svc.ds.getRepository(SessionEventEntity).findBy({ sessionId: id });
      const opened = BigInt(events.find((e) => e.kind === 'opened')?.orderKey ?? '0');
      const key = (n: bigint) => (opened + n).toString().padStart(20, '0');
      const base = { sessionId: id, businessId: s.businessId, environment: s.environment, code: null };
      await t.svc.ds.getRepository(SessionEventEntity).insert([
        {
          ...base,
          id: newId('sev'),
          orderKey: key(1n),
          at: now[2].at,
          kind: 'started',
          stage: 0,
          detail: null,
        },
        {
          ...base,
          id: newId('sev'),
          orderKey: key(2n),
          at: request?.createdAt as Date,
          kind: 'wallet_request',
          stage: 0,
          detail: JSON.stringify({ request_id: request?.id, transport: 'dc_api' }),
        },
      ]);
      const before = await life();
      expect(kinds(before)).toEqual(kinds(now));
      expect(before[3].detail).toEqual({ request_id: request?.id, transport: 'dc_api' });
      expect(before[3].detail).toEqual(now[3].detail);
    });

    it('shows refused responses with their code, and the failure with its reason everywhere', async () => {
      const id = await create();
      const signer = new SignerClient(t.baseUrl, id);
      await signer.start();
      for (let i = 0; i < 5; i++) expect((await refused(signer)).body.code).toBe('nonce_mismatch');
      await deliverAll();

      const reason = { code: 'nonce_mismatch', stage: 0, window: null, refused_responses: 5 };
      const rest = await api.rest('GET', `/v1/sessions/${id}`);
      expect(rest.body).toMatchObject({ status: 'failed', failure_reason: reason });
      expect(SessionSchema.safeParse(rest.body).success).toBe(true);
      const hook = receiver.deliveries.find(
        (d) => d.body.data.session_id === id && d.body.event === 'session.failed',
      );
      expect(hook?.body.data.failure_reason).toEqual(reason);
      expect(sessionEndedEventSchema('failed').safeParse(hook?.body).success).toBe(true);
      const mirror = await api.gql(
        'query($id: ID!) { session(id: $id) { status failureReason { code stage window refusedResponses } } }',
        { id },
      );
      expect(mirror.data.session).toEqual({
        status: 'failed',
        failureReason: { code: 'nonce_mismatch', stage: 0, window: null, refusedResponses: 5 },
      });

      const { session, entries } = (await timeline(id)).data.sessionTimeline;
      expect(session.failureReason).toEqual(mirror.data.session.failureReason);
      const life = entries.filter((e: Json) => !e.kind.startsWith('webhook_'));
      expect(kinds(life)).toEqual([
        'created',
        'started',
        ...Array(5).fill(['wallet_request', 'wallet_response_refused']).flat(),
        'failed',
      ]);
      const refusals = life.filter((e: Json) => e.kind === 'wallet_response_refused');
      expect(refusals.map((e: Json) => e.code)).toEqual(Array(5).fill('nonce_mismatch'));
      expect(life.at(-1)).toMatchObject({ kind: 'failed', stage: 0, code: 'nonce_mismatch' });
      expect(entries.find((e: Json) => e.kind === 'webhook_queued').detail.event).toBe('session.failed');
    });

    it('is not_found for another business and for an unknown id', async () => {
      const id = await create();
      const other = new Api(t.baseUrl, (await createBusiness(t, 'Other GmbH')).apiKey);
      for (const [who, sid] of [
        [other, id],
        [api, 'sess_unknown'],
      ] as const) {
        const r = await timeline(sid, who);
        expect(r.data).toBeNull();
        expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
      }
    });
  });

  describe('failure reason of expired sessions', () => {
    it('names the overall window for a session never started', async () => {
      const id = await create();
      clock.advance(61 * MIN);
      const rest = await api.rest('GET', `/v1/sessions/${id}`);
      const reason = { code: 'session_expired', stage: null, window: 'overall', refused_responses: null };
      expect(rest.body).toMatchObject({ status: 'expired', failure_reason: reason });
      await deliverAll();
      const hook = receiver.deliveries.find(
        (d) => d.body.data.session_id === id && d.body.event === 'session.expired',
      );
      expect(hook?.body.data.failure_reason).toEqual(reason);
      expect(sessionEndedEventSchema('expired').safeParse(hook?.body).success).toBe(true);
      const entries = (await timeline(id)).data.sessionTimeline.entries;
      expect(entries.find((e: Json) => e.kind === 'expired')).toMatchObject({
        code: 'session_expired',
        stage: null,
      });
    });

    it('names the step window and the step when the step ran out first', async () => {
      const id = await create();
      const signer = new SignerClient(t.baseUrl, id);
      await signer.start();
      clock.advance(11 * MIN); // identify: 10-minute step window, 60-minute session
      const rest = await api.rest('GET', `/v1/sessions/${id}`);
      expect(rest.body).toMatchObject({
        status: 'expired',
        failure_reason: { code: 'step_window_expired', stage: 0, window: 'step', refused_responses: null },
      });
      expect(SessionSchema.safeParse(rest.body).success).toBe(true);
    });

    it('has no failure reason on completed or stopped sessions', async () => {
      const id = await create();
      expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
      const rest = await api.rest('GET', `/v1/sessions/${id}`);
      expect(rest.body.status).toBe('stopped');
      expect(rest.body).not.toHaveProperty('failure_reason');
      const entries = (await timeline(id)).data.sessionTimeline.entries;
      expect(kinds(entries.filter((e: Json) => !e.kind.startsWith('webhook_')))).toEqual([
        'created',
        'stopped',
      ]);
    });
  });

  describe('session list', () => {
    const LIST = `query($f: SessionListFilter, $first: Int, $after: String) {
      sessions(filter: $f, first: $first, after: $after) {
        nodes { id status workflowId environment createdAt failureReason { code } }
        pageInfo { endCursor hasNextPage } } }`;
    let biz: Api;
    let wfA: string;
    let wfB: string;
    const made: { id: string; wf: string; at: string }[] = [];

    beforeAll(async () => {
      biz = new Api(t.baseUrl, (await createBusiness(t, 'Lister KG')).apiKey);
      wfA = (await setUpIdentifyWorkflow(biz, receiver.url)).workflowId;
      wfB = (await publishWorkflow(biz, [{ primitive: 'identify', claims: ['given_name'] }], undefined, 'B'))
        .workflowId;
      for (const wf of [wfA, wfB, wfA, wfB, wfA]) {
        clock.advance(1000);
        const r = await biz.rest('POST', '/v1/sessions', { workflow_id: wf });
        made.push({ id: r.body.id, wf, at: clock.now().toISOString() });
      }
      await biz.rest('POST', `/v1/sessions/${made[1]?.id}/stop`);
    });
    const list = async (variables: Record<string, unknown>, who?: Api) => (who ?? biz).gql(LIST, variables);

    it('lists the business sessions newest first and pages through them with cursors', async () => {
      const all = await list({});
      expect(all.errors).toBeUndefined();
      expect(all.data.sessions.nodes.map((n: Json) => n.id)).toEqual(made.map((m) => m.id).reverse());
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: Json = await list({ first: 2, after });
        seen.push(...page.data.sessions.nodes.map((n: Json) => n.id));
        if (!page.data.sessions.pageInfo.hasNextPage) break;
        after = page.data.sessions.pageInfo.endCursor;
      }
      expect(seen).toEqual(made.map((m) => m.id).reverse());
    });

    it('filters by status, workflow, environment and created range', async () => {
      const ids = async (f: Record<string, unknown>) =>
        ((await list({ f })).data.sessions.nodes as Json[]).map((n) => n.id);
      const [s0, s1, s2, s3, s4] = made.map((m) => m.id);
      expect(await ids({ status: 'stopped' })).toEqual([s1]);
      expect(await ids({ status: 'created', workflowId: wfB })).toEqual([s3]);
      expect(await ids({ workflowId: wfA })).toEqual([s4, s2, s0]);
      expect(await ids({ environment: 'sandbox', workflowId: wfA })).toEqual([s4, s2, s0]);
      expect(await ids({ createdFrom: made[1]?.at, createdTo: made[3]?.at })).toEqual([s2, s1]);
      // the sandbox key cannot read production sessions
      expect(await ids({ environment: 'production' })).toEqual([]);
    });

    it('shows nothing of another business', async () => {
      const r = await list({ first: 100 }, api);
      const theirs = new Set(made.map((m) => m.id));
      expect(r.data.sessions.nodes.filter((n: Json) => theirs.has(n.id))).toEqual([]);
    });

    it('answers bad filters and cursors with a 4xx code, never a 5xx', async () => {
      const cases: [Record<string, unknown>, string, string][] = [
        [
          { f: { createdFrom: made[3]?.at, createdTo: made[1]?.at } },
          'validation_failed',
          'filter.createdFrom',
        ],
        [{ after: 'bogus' }, 'cursor_invalid', 'after'],
        [{ first: 0 }, 'validation_failed', 'first'],
      ];
      for (const [variables, code, param] of cases) {
        const r = await list(variables);
        expect(r.errors?.[0]?.extensions).toMatchObject({ code, param });
      }
      const badEnum = await list({ f: { status: 'nope' } });
      expect(badEnum.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', status: 400 });
      const badDate = await list({ f: { createdFrom: 'yesterday' } });
      expect(badDate.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', status: 400 });
    });
  });
});
