// The session lifecycle as a business and a person observe it, with the clock under test control: gates
// (continue, stop), stop from every non-terminal state, overall and per-step expiry on every access path and by
// the sweeper, the failure policy (five refused responses for one step), workflow pinning, Idempotency-Key
// limits, and one session.* webhook per terminal state delivered to a real receiver. Nothing sleeps.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { isTerminal } from '../../server/src/modules/session/session.machine';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import { Api, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient } from '../support/signer';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const MIN = 60_000;

describe('session lifecycle', () => {
  const clock = new ManualClock(Date.now());
  const receiver = new WebhookReceiver();
  const page = identifyFixture({ clock, workers: false, label: 'lifecycle', webhook: receiver });
  let t: TestService;
  let api: Api;
  let secret: string;
  let identifyOnce: string;
  beforeAll(() => ({ t, api, webhookSecret: secret, workflowId: identifyOnce } = page));

  type Step = { primitive: 'identify'; claims: string[]; gateAfter?: boolean };
  const step = (claims: string[], gateAfter = false): Step => ({ primitive: 'identify', claims, gateAfter });

  const publishSteps = async (steps: Step[]): Promise<string> =>
    (await publishWorkflow(api, steps, undefined, 'multi-step')).workflowId;

  async function createSession(workflowId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, ...extra });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  async function started(workflowId: string, extra: Record<string, unknown> = {}) {
    const id = await createSession(workflowId, extra);
    const signer = new SignerClient(t.baseUrl, id);
    const res = await signer.start();
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('in_progress');
    return { id, signer };
  }

  /** The person shares an honest credential for the current step. */
  async function completeStep(signer: SignerClient) {
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    return signer.submit(wr.body.request_id, response);
  }

  /** A presentation the verifier refuses (answers another request's nonce). */
  async function refusedResponse(signer: SignerClient) {
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.presentWith({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
      overrides: { nonce: 'A'.repeat(43) },
    });
    return {
      requestId: wr.body.request_id as string,
      response,
      res: await signer.submit(wr.body.request_id, response),
    };
  }

  const status = async (id: string) => (await api.rest('GET', `/v1/sessions/${id}`)).body.status as string;
  const persisted = (id: string) => t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });
  const queued = async (id: string) =>
    (
      await t.svc.ds
        .getRepository(WebhookEventEntity)
        .find({ where: { sessionId: id }, order: { sequence: 'ASC' } })
    ).map((e) => e.event);

  async function deliverAll(): Promise<void> {
    while ((await t.svc.relay.runOnce()) > 0) {}
  }
  const delivered = (id: string) =>
    receiver.deliveries.filter((d) => d.body.data.session_id === id).map((d) => d.body.event);

  describe('gates', () => {
    it('waits in awaiting_decision after a gate step; continue runs the next step to completion', async () => {
      const wf = await publishSteps([step(['given_name'], true), step(['family_name'])]);
      const { id, signer } = await started(wf);

      const first = await completeStep(signer);
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('awaiting_decision');
      const read = await api.rest('GET', `/v1/sessions/${id}`);
      expect(read.body.status).toBe('awaiting_decision');
      expect(read.body.results).toHaveLength(1);
      expect(read.body.results[0]).toMatchObject({ stage: 0, primitive: 'identify' });

      // the person cannot go on at a gate, and the gate waits for the business however long it takes
      const blocked = await signer.walletRequest();
      expect(blocked.status).toBe(409);
      expect(blocked.body.code).toBe('session_state_conflict');
      clock.advance(45 * MIN);
      expect(await status(id)).toBe('awaiting_decision');

      const cont = await api.rest('POST', `/v1/sessions/${id}/continue`);
      expect(cont.status).toBe(200);
      expect(cont.body.status).toBe('in_progress');
      expect((await signer.session()).body.currentStage).toBe(1);

      const second = await completeStep(signer);
      expect(second.body.status).toBe('completed');
      const done = await api.rest('GET', `/v1/sessions/${id}`);
      expect(done.body.results.map((r: { stage: number }) => r.stage)).toEqual([0, 1]);

      const again = await api.rest('POST', `/v1/sessions/${id}/continue`);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('session_state_conflict');

      await deliverAll();
      expect(await queued(id)).toEqual(['step.completed', 'step.completed', 'session.completed']);
      expect(delivered(id)).toEqual(['step.completed', 'step.completed', 'session.completed']);
      for (const d of receiver.deliveries.filter((x) => x.body.data.session_id === id))
        expect(signatureValid(d, secret)).toBe(true);
    });

    it('continue past a gate on the last step completes the session', async () => {
      const wf = await publishSteps([step(['given_name'], true)]);
      const { id, signer } = await started(wf);
      expect((await completeStep(signer)).body.status).toBe('awaiting_decision');
      const cont = await api.rest('POST', `/v1/sessions/${id}/continue`);
      expect(cont.status).toBe(200);
      expect(cont.body.status).toBe('completed');
      expect(await queued(id)).toEqual(['step.completed', 'session.completed']);
    });

    it('continue starts the next step with a fresh step window', async () => {
      const wf = await publishSteps([step(['given_name'], true), step(['family_name'])]);
      const { id, signer } = await started(wf);
      await completeStep(signer);
      clock.advance(20 * MIN); // longer than the first step's window: the gate does not expire
      expect((await api.rest('POST', `/v1/sessions/${id}/continue`)).body.status).toBe('in_progress');
      const wr = await signer.walletRequest();
      expect(new Date(wr.body.expires).getTime()).toBe(clock.now().getTime() + 10 * MIN);
      clock.advance(10 * MIN - 1);
      expect(await status(id)).toBe('in_progress');
      clock.advance(1);
      expect(await status(id)).toBe('expired');
      expect(await queued(id)).toEqual(['step.completed', 'session.expired']);
    });

    it('continuing after the overall expiry has passed expires the session instead of starting a step', async () => {
      const wf = await publishSteps([step(['given_name'], true), step(['family_name'])]);
      const { id, signer } = await started(wf, { expires_in: 300 });
      await completeStep(signer);
      clock.advance(6 * MIN);
      expect(await status(id)).toBe('awaiting_decision');
      const cont = await api.rest('POST', `/v1/sessions/${id}/continue`);
      expect(cont.status).toBe(200);
      expect(cont.body.status).toBe('expired');
      expect(await queued(id)).toEqual(['step.completed', 'session.expired']);
    });

    it('continue is refused unless the session waits at a gate', async () => {
      const created = await createSession(identifyOnce);
      const res = await api.rest('POST', `/v1/sessions/${created}/continue`);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('session_state_conflict');
      const { id } = await started(identifyOnce);
      expect((await api.rest('POST', `/v1/sessions/${id}/continue`)).status).toBe(409);
      expect(await status(id)).toBe('in_progress');
    });
  });

  describe('stop', () => {
    it('stops a session in created, in_progress and awaiting_decision, and answers 409 once ended', async () => {
      const wf = await publishSteps([step(['given_name'], true), step(['family_name'])]);
      const created = await createSession(wf);
      const running = await started(wf);
      const gated = await started(wf);
      await completeStep(gated.signer);
      expect(await status(gated.id)).toBe('awaiting_decision');

      for (const id of [created, running.id, gated.id]) {
        const res = await api.rest('POST', `/v1/sessions/${id}/stop`);
        expect(res.status).toBe(200);
        expect(res.body.status).toBe('stopped');
        const again = await api.rest('POST', `/v1/sessions/${id}/stop`);
        expect(again.status).toBe(409);
        expect(again.body.code).toBe('session_state_conflict');
        expect((await api.rest('POST', `/v1/sessions/${id}/continue`)).status).toBe(409);
        expect((await persisted(id)).endedAt).not.toBeNull();
      }
      // the person's page shows the end; nothing more can be shared
      expect((await running.signer.session()).body.status).toBe('stopped');
      expect((await running.signer.walletRequest()).status).toBe(409);
      expect(await queued(created)).toEqual(['session.stopped']);
      expect(await queued(running.id)).toEqual(['session.stopped']);
      expect(await queued(gated.id)).toEqual(['step.completed', 'session.stopped']);
    });

    it('refuses to stop a completed or an expired session', async () => {
      const { id, signer } = await started(identifyOnce);
      expect((await completeStep(signer)).body.status).toBe('completed');
      const expiring = await createSession(identifyOnce, { expires_in: 60 });
      clock.advance(MIN);
      for (const sid of [id, expiring]) {
        const res = await api.rest('POST', `/v1/sessions/${sid}/stop`);
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('session_state_conflict');
      }
      expect(await queued(id)).toEqual(['step.completed', 'session.completed']);
      expect(await queued(expiring)).toEqual(['session.expired']);
    });
  });

  describe('expiry', () => {
    it('enforces the overall TTL on the next read and persists it', async () => {
      const id = await createSession(identifyOnce, { expires_in: 60 });
      clock.advance(MIN - 1);
      expect(await status(id)).toBe('created');
      expect((await persisted(id)).status).toBe('created');
      clock.advance(1);
      expect(await status(id)).toBe('expired');
      const row = await persisted(id);
      expect(row.status).toBe('expired');
      expect(row.endedAt?.getTime()).toBe(clock.now().getTime());
      expect(await status(id)).toBe('expired');
      expect(await queued(id)).toEqual(['session.expired']);
    });

    it('runs a step window of 10 minutes for identify, never beyond the overall expiry', async () => {
      const long = await started(identifyOnce, { expires_in: 3600 });
      const wr = await long.signer.walletRequest();
      expect(new Date(wr.body.expires).getTime()).toBe(clock.now().getTime() + 10 * MIN);
      const short = await started(identifyOnce, { expires_in: 300 });
      const wr2 = await short.signer.walletRequest();
      expect(new Date(wr2.body.expires).getTime()).toBe(clock.now().getTime() + 5 * MIN);
      clock.advance(5 * MIN);
      expect(await status(short.id)).toBe('expired');
      expect(await status(long.id)).toBe('in_progress');
      clock.advance(5 * MIN);
      expect(await status(long.id)).toBe('expired');
    });

    it('enforces expiry on every hosted access: session read, start, wallet request and wallet response', async () => {
      // the session read and start of a created session past its TTL
      const a = await createSession(identifyOnce, { expires_in: 60 });
      const b = await createSession(identifyOnce, { expires_in: 60 });
      // wallet request and response of started sessions past their step window
      const c = await started(identifyOnce);
      const d = await started(identifyOnce);
      const dReq = await d.signer.walletRequest();
      const dResponse = await t.svc.wallet.respond({
        persona: 'adult',
        request: dReq.body.request,
        origin: t.baseUrl,
      });
      clock.advance(10 * MIN);

      const proj = await new SignerClient(t.baseUrl, a).session();
      expect(proj.status).toBe(200);
      expect(proj.body.status).toBe('expired');
      const start = await new SignerClient(t.baseUrl, b).start();
      expect(start.status).toBe(410);
      expect(start.body.code).toBe('session_expired');
      const wr = await c.signer.walletRequest();
      expect(wr.status).toBe(410);
      expect(wr.body.code).toBe('session_expired');
      const sub = await d.signer.submit(dReq.body.request_id, dResponse);
      expect(sub.status).toBe(410);
      expect(sub.body.code).toBe('session_expired');
      expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: d.id })).toBe(0);

      for (const id of [a, b, c.id, d.id]) {
        expect((await persisted(id)).status).toBe('expired');
        expect(await queued(id)).toEqual(['session.expired']);
      }
    });

    it('the sweeper expires sessions nobody reads, once', async () => {
      await t.svc.sessions.sweepOverdue(1000);
      const idle = await createSession(identifyOnce, { expires_in: 60 });
      const running = await started(identifyOnce);
      const fresh = await createSession(identifyOnce, { expires_in: 3600 });
      clock.advance(10 * MIN);
      expect(await t.svc.sessions.sweepOverdue(1000)).toBeGreaterThanOrEqual(2);
      expect(await t.svc.sessions.sweepOverdue(1000)).toBe(0);
      expect((await persisted(idle)).status).toBe('expired');
      expect((await persisted(running.id)).status).toBe('expired');
      expect((await persisted(fresh)).status).toBe('created');
      await deliverAll();
      expect(delivered(idle)).toEqual(['session.expired']);
      expect(delivered(running.id)).toEqual(['session.expired']);
      const [hook] = receiver.deliveries.filter((x) => x.body.data.session_id === idle);
      expect(hook?.body.data).toMatchObject({
        session_id: idle,
        status: 'expired',
        workflow_id: identifyOnce,
      });
    });
  });

  describe('failed', () => {
    it('fails the session on the fifth refused response for one step, counting per step', async () => {
      const wf = await publishSteps([step(['given_name']), step(['family_name'])]);
      const { id, signer } = await started(wf);
      let last = await refusedResponse(signer);
      for (let i = 1; i <= 4; i++) {
        if (i > 1) last = await refusedResponse(signer);
        expect(last.res.status).toBe(422);
        expect(last.res.body.code).toBe('nonce_mismatch');
        expect(last.res.body.session_status).toBeUndefined();
      }
      // a refused request is spent: submitting it again is request_not_found and is not another refusal
      const reused = await signer.submit(last.requestId, last.response);
      expect(reused.status).toBe(422);
      expect(reused.body.code).toBe('request_not_found');
      expect(await status(id)).toBe('in_progress');

      // refusals count per step: the first step still completes, and the second starts from zero
      expect((await completeStep(signer)).body.status).toBe('in_progress');
      for (let i = 0; i < 4; i++) expect((await refusedResponse(signer)).res.status).toBe(422);
      expect(await status(id)).toBe('in_progress');
      const fifth = await refusedResponse(signer);
      expect(fifth.res.status).toBe(422);
      expect(fifth.res.body.code).toBe('nonce_mismatch');
      expect(fifth.res.body.session_status).toBe('failed');

      const read = await api.rest('GET', `/v1/sessions/${id}`);
      expect(read.body.status).toBe('failed');
      expect(read.body.results.map((r: { stage: number }) => r.stage)).toEqual([0]);
      expect((await signer.session()).body.status).toBe('failed');
      expect((await signer.walletRequest()).status).toBe(409);
      expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(409);
      expect(await queued(id)).toEqual(['step.completed', 'session.failed']);
      await deliverAll();
      expect(delivered(id)).toEqual(['step.completed', 'session.failed']);
      const hook = receiver.deliveries.find(
        (d) => d.body.data.session_id === id && d.body.event === 'session.failed',
      );
      expect(hook?.body.data).toMatchObject({ status: 'failed', completed_steps: 1, workflow_revision: 1 });
    });
  });

  it('pins a session to its revision after a newer revision is published', async () => {
    const wf = await publishSteps([step(['given_name'])]);
    const pinned = await started(wf);
    const changed = await api.gql(
      'mutation($id: ID!, $steps: [WorkflowStepInput!]!) { setWorkflowSteps(workflowId: $id, steps: $steps) { id } }',
      { id: wf, steps: [step(['family_name'], true), step(['nationality'])] },
    );
    expect(changed.errors).toBeUndefined();
    const pub = await api.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', {
      id: wf,
    });
    expect(pub.data.publishWorkflow.revision).toBe(2);

    const proj = await pinned.signer.session();
    expect(proj.body.steps).toEqual([
      {
        stage: 0,
        primitive: 'identify',
        claims: ['given_name'],
        threshold: null,
        terms: null,
        termsSha256: null,
        documents: null,
      },
    ]);
    // the old single step runs: no gate, the session completes with the old claims
    expect((await completeStep(pinned.signer)).body.status).toBe('completed');
    const read = await api.rest('GET', `/v1/sessions/${pinned.id}`);
    expect(read.body.workflow_revision).toBe(1);
    expect(Object.keys(read.body.results[0].claims)).toEqual(['given_name']);

    const next = await api.rest('POST', '/v1/sessions', { workflow_id: wf });
    expect(next.body.workflow_revision).toBe(2);
    expect((await new SignerClient(t.baseUrl, next.body.id).session()).body.steps).toHaveLength(2);
  });

  it('accepts Idempotency-Keys of up to 255 characters, case-sensitively', async () => {
    const key = `k${'x'.repeat(254)}${Date.now()}`.slice(0, 255);
    const first = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: identifyOnce },
      { 'Idempotency-Key': key },
    );
    expect(first.status).toBe(201);
    const again = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: identifyOnce },
      { 'Idempotency-Key': key },
    );
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const upper = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: identifyOnce },
      { 'Idempotency-Key': key.toUpperCase() },
    );
    expect(upper.status).toBe(201);
    expect(upper.body.id).not.toBe(first.body.id);
    const tooLong = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: identifyOnce },
      { 'Idempotency-Key': `${key}x` },
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ code: 'validation_failed', param: 'Idempotency-Key' });
  });

  it('fired exactly one session.* webhook per terminal session, matching its state, delivered once', async () => {
    await deliverAll();
    const sessions = await t.svc.ds.getRepository(SessionEntity).find();
    const events = await t.svc.ds.getRepository(WebhookEventEntity).find();
    let terminal = 0;
    for (const s of sessions) {
      const mine = events.filter((e) => e.sessionId === s.id && e.event.startsWith('session.'));
      expect(mine.map((e) => e.event)).toEqual(isTerminal(s.status) ? [`session.${s.status}`] : []);
      if (!isTerminal(s.status)) continue;
      terminal++;
      expect(delivered(s.id).filter((e) => e.startsWith('session.'))).toEqual([`session.${s.status}`]);
    }
    const seen = new Set(sessions.filter((s) => isTerminal(s.status)).map((s) => s.status));
    expect([...seen].sort()).toEqual(['completed', 'expired', 'failed', 'stopped']);
    expect(terminal).toBeGreaterThan(10);
  });
});
