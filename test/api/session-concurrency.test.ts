// Races on real MariaDB over real HTTP: parallel creates with one Idempotency-Key, many readers at the moment of
// expiry, continue vs stop vs expiry at a gate, step completion vs stop vs expiry, and concurrent refusals.
// Each race is judged by what a business and a person observe: exactly one winner, exactly one terminal
// webhook (delivered once to a real receiver), losers get a clean 409/410, and no step result is half-written.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { SessionEventEntity } from '../../server/src/modules/timeline/session-event.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import { Api, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const MIN = 60_000;
type Res = { status: number; body: { code?: string; status?: string; id?: string; session_status?: string } };

describe('session concurrency (MariaDB)', () => {
  const clock = new ManualClock(Date.now());
  const receiver = new WebhookReceiver();
  let t: TestService;
  let api: Api;
  let businessId: string;
  let singleStep: string;
  let gated: string;

  const page = identifyFixture({
    clock,
    workers: false,
    label: 'concurrency',
    webhook: receiver,
    claims: ['given_name'],
  });
  beforeAll(async () => {
    ({ t, api, businessId, workflowId: singleStep } = page);
    gated = (
      await publishWorkflow(
        api,
        [
          { primitive: 'identify', claims: ['given_name'], gateAfter: true },
          { primitive: 'identify', claims: ['family_name'] },
        ],
        undefined,
        'gated',
      )
    ).workflowId;
  });

  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  async function createSession(workflowId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, ...extra });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function started(workflowId: string, extra: Record<string, unknown> = {}) {
    const id = await createSession(workflowId, extra);
    const signer = new SignerClient(t.baseUrl, id);
    expect((await signer.start()).status).toBe(200);
    return { id, signer };
  }

  /** A wallet request of the current step and the honest (or refused) answer to it, not yet submitted. */
  async function prepared(signer: SignerClient, refused = false) {
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.presentWith({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
      overrides: refused ? { nonce: 'A'.repeat(43) } : {},
    });
    return () => signer.submit(wr.body.request_id, response) as Promise<Res>;
  }

  async function atGate() {
    const s = await started(gated, { expires_in: 300 });
    const submit = await prepared(s.signer);
    expect((await submit()).body.status).toBe('awaiting_decision');
    return s;
  }

  const continueIt = (id: string) => api.rest('POST', `/v1/sessions/${id}/continue`) as Promise<Res>;
  const stopIt = (id: string) => api.rest('POST', `/v1/sessions/${id}/stop`) as Promise<Res>;
  const readIt = (id: string) => api.rest('GET', `/v1/sessions/${id}`) as Promise<Res>;

  const events = async (id: string) =>
    (
      await t.svc.ds
        .getRepository(WebhookEventEntity)
        .find({ where: { sessionId: id }, order: { sequence: 'ASC' } })
    ).map((e) => e.event);
  const terminalEvents = async (id: string) => (await events(id)).filter((e) => e.startsWith('session.'));
  const persisted = (id: string) => t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });

  async function deliverAll(): Promise<void> {
    while ((await t.svc.relay.runOnce()) > 0) {}
  }
  const delivered = (id: string) =>
    receiver.deliveries.filter((d) => d.body.data.session_id === id).map((d) => d.body.event);

  const ok = (rs: Res[]) => rs.filter((r) => r.status === 200).length;
  /** Every loser answers with a clean conflict (or the ended state), never a 5xx. */
  function expectCleanLosers(rs: Res[], allowed: string[]) {
    for (const r of rs) {
      if (r.status === 200) continue;
      expect(r.status).toBeLessThan(500);
      expect(allowed).toContain(r.body.code);
    }
  }

  describe('Idempotency-Key', () => {
    const sessionsOfBusiness = () => t.svc.ds.getRepository(SessionEntity).countBy({ businessId });

    it('50 parallel creates with one key make exactly one session, and every response names it with 201', async () => {
      const before = await sessionsOfBusiness();
      const key = `order-${Date.now()}-race`;
      const rs = await Promise.all(
        range(50).map(() =>
          api.rest('POST', '/v1/sessions', { workflow_id: singleStep }, { 'Idempotency-Key': key }),
        ),
      );
      expect(rs.map((r) => r.status)).toEqual(range(50).map(() => 201));
      const ids = new Set(rs.map((r) => r.body.id));
      expect(ids.size).toBe(1);
      expect(rs.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
      for (const r of rs) expect(r.body).toEqual(rs[0]?.body);
      expect(await sessionsOfBusiness()).toBe(before + 1);
    });

    it('when the first request fails, a racing repeat takes the key over: one session, no 5xx', async () => {
      const before = await sessionsOfBusiness();
      const key = `order-${Date.now()}-mixed`;
      // every holder fails in turn: each rollback lets the waiters compete (InnoDB deadlocks some of them)
      const failing = await Promise.all(
        range(30).map(() =>
          api.rest(
            'POST',
            '/v1/sessions',
            { workflow_id: singleStep, expires_in: 5 },
            { 'Idempotency-Key': key },
          ),
        ),
      );
      expect(failing.map((r) => r.body.code)).toEqual(range(30).map(() => 'validation_failed'));
      // bodies are not compared: invalid and valid requests share the key; whichever reserves it first decides
      const rs = await Promise.all(
        range(30).map((i) =>
          api.rest(
            'POST',
            '/v1/sessions',
            { workflow_id: singleStep, ...(i % 2 === 0 ? { expires_in: 5 } : {}) },
            { 'Idempotency-Key': key },
          ),
        ),
      );
      for (const r of rs) expect([201, 400]).toContain(r.status);
      const created = rs.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThan(0);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      expect(await sessionsOfBusiness()).toBe(before + 1);
    });
  });

  it('20 concurrent readers at the moment of expiry queue exactly one session.expired, delivered once', async () => {
    const created = await Promise.all(range(3).map(() => createSession(singleStep, { expires_in: 60 })));
    const running = await Promise.all(range(2).map(() => started(singleStep)));
    clock.advance(10 * MIN);
    const ids = [...created, ...running.map((r) => r.id)];
    for (const id of ids) {
      const signer = new SignerClient(t.baseUrl, id);
      const reads = await Promise.all([
        ...range(20).map(() => readIt(id)),
        ...range(3).map(() => signer.session() as Promise<Res>),
        t.svc.sessions.sweepOverdue(1000),
      ]);
      for (const r of reads.slice(0, 23) as Res[]) {
        expect(r.status).toBe(200);
        expect(r.body.status).toBe('expired');
      }
      expect((await persisted(id)).status).toBe('expired');
      expect(await events(id)).toEqual(['session.expired']);
    }
    await deliverAll();
    for (const id of ids) expect(delivered(id)).toEqual(['session.expired']);
  });

  it('continue vs stop at a gate: at most one of each wins, and a terminal state fires once', async () => {
    const sessions = await Promise.all(range(4).map(() => atGate()));
    await Promise.all(
      sessions.map(async ({ id }) => {
        const rs = await Promise.all(range(10).map((i) => (i % 2 === 0 ? continueIt(id) : stopIt(id))));
        expectCleanLosers(rs, ['session_state_conflict']);
        const conts = ok(rs.filter((_, i) => i % 2 === 0));
        const stops = ok(rs.filter((_, i) => i % 2 === 1));
        expect(conts).toBeLessThanOrEqual(1);
        expect(stops).toBeLessThanOrEqual(1);
        expect(conts + stops).toBeGreaterThanOrEqual(1);
        const s = await persisted(id);
        expect(s.status).toBe(stops === 1 ? 'stopped' : 'in_progress');
        expect(await terminalEvents(id)).toEqual(stops === 1 ? ['session.stopped'] : []);
      }),
    );
  });

  it('continue vs stop past the overall expiry at a gate: exactly one terminal winner', async () => {
    const sessions = await Promise.all(range(4).map(() => atGate()));
    clock.advance(6 * MIN); // past the 5-minute overall expiry: continuing can only expire the session
    await Promise.all(
      sessions.map(async ({ id }) => {
        const rs = await Promise.all(
          range(12).map((i) => [continueIt, stopIt, readIt][i % 3]?.(id) as Promise<Res>),
        );
        const writes = rs.filter((_, i) => i % 3 !== 2);
        expectCleanLosers(writes, ['session_state_conflict']);
        expect(ok(writes)).toBe(1);
        const s = await persisted(id);
        expect(['stopped', 'expired']).toContain(s.status);
        expect(await terminalEvents(id)).toEqual([`session.${s.status}`]);
      }),
    );
  });

  describe('step completion vs stop vs expiry', () => {
    /** Checks one raced single-step session: one terminal state, one terminal event, the step all or nothing. */
    async function judge(id: string, submits: Res[], stops: Res[]) {
      const s = await persisted(id);
      expect(['completed', 'stopped', 'expired']).toContain(s.status);
      expect(await terminalEvents(id)).toEqual([`session.${s.status}`]);
      const results = await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id });
      const audits = await t.svc.ds.getRepository(AuditRecordEntity).countBy({ sessionId: id });
      const stepEvents = (await events(id)).filter((e) => e === 'step.completed').length;
      const completed = s.status === 'completed' ? 1 : 0;
      expect({ results, audits, stepEvents }).toEqual({
        results: completed,
        audits: completed,
        stepEvents: completed,
      });
      expect(ok(submits)).toBe(completed);
      expect(ok(stops)).toBe(s.status === 'stopped' ? 1 : 0);
      expectCleanLosers(submits, ['session_state_conflict', 'session_expired', 'request_not_found']);
      expectCleanLosers(stops, ['session_state_conflict']);
      return s.status;
    }

    it('inside the step window: completion and stop race, one wins', async () => {
      const sessions = await Promise.all(range(5).map(() => started(singleStep)));
      const submitters = await Promise.all(sessions.map((s) => prepared(s.signer)));
      const outcomes = await Promise.all(
        sessions.map(async ({ id }, k) => {
          const submit = submitters[k] as () => Promise<Res>;
          const rs = await Promise.all([
            submit(),
            stopIt(id),
            readIt(id),
            submit(), // the same answer twice: consumed once at most
            stopIt(id),
            readIt(id),
          ]);
          return judge(id, [rs[0], rs[3]] as Res[], [rs[1], rs[4]] as Res[]);
        }),
      );
      expect(outcomes.every((o) => o === 'completed' || o === 'stopped')).toBe(true);
    });

    it('the step window passes while completion and stop are in flight: one wins', async () => {
      const sessions = await Promise.all(range(5).map(() => started(singleStep)));
      const submitters = await Promise.all(sessions.map((s) => prepared(s.signer)));
      const racing = sessions.map(({ id }, k) =>
        Promise.all([(submitters[k] as () => Promise<Res>)(), stopIt(id), readIt(id), stopIt(id)]),
      );
      // move time past the 10-minute identify window while the requests are being served (no waiting)
      await new Promise((r) => setImmediate(r));
      clock.advance(10 * MIN);
      const all = await Promise.all(racing);
      for (const [k, rs] of all.entries())
        await judge((sessions[k] as { id: string }).id, [rs[0]], [rs[1], rs[3]] as Res[]);
    });

    it('at the moment of expiry, expiry wins over completion and stop on every access path', async () => {
      const sessions = await Promise.all(range(4).map(() => started(singleStep)));
      const submitters = await Promise.all(sessions.map((s) => prepared(s.signer)));
      clock.advance(10 * MIN);
      await Promise.all(
        sessions.map(async ({ id, signer }, k) => {
          const rs = await Promise.all([
            (submitters[k] as () => Promise<Res>)(),
            stopIt(id),
            readIt(id),
            signer.walletRequest() as Promise<Res>,
            signer.session() as Promise<Res>,
          ]);
          expect(await judge(id, [rs[0]] as Res[], [rs[1]] as Res[])).toBe('expired');
          expect(rs[0]?.status).toBe(410);
          expect(rs[3]?.body.code).toBe('session_expired');
        }),
      );
    });
  });

  it('the same answer submitted 8 times at once completes the step once; every other submission is "already used"', async () => {
    const sessions = await Promise.all(range(3).map(() => started(singleStep)));
    const submitters = await Promise.all(sessions.map((s) => prepared(s.signer)));
    await Promise.all(
      sessions.map(async ({ id }, k) => {
        const rs = await Promise.all(range(8).map(() => (submitters[k] as () => Promise<Res>)()));
        expect(ok(rs)).toBe(1);
        // a replay is request_not_found whether it lost at the read or inside the transaction (ADR 0058
        // amendment 3: a consume kept with its guard stops its batch, and the recheck finds the request used)
        for (const r of rs.filter((x) => x.status !== 200)) {
          expect(r.status).toBe(422);
          expect(r.body.code).toBe('request_not_found');
        }
        expect((await persisted(id)).status).toBe('completed');
        expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(1);
        expect(await t.svc.ds.getRepository(AuditRecordEntity).countBy({ sessionId: id })).toBe(1);
        expect(await events(id)).toEqual(['step.completed', 'session.completed']);
        // the support timeline: the losers' rows were never written (their INSERT carried the lost guard's
        // check, ADR 0073), so the completion shows once
        const timeline = await t.svc.ds.getRepository(SessionEventEntity).findBy({ sessionId: id });
        const completion = ['wallet_response_accepted', 'step_completed', 'completed'];
        const kinds = timeline.filter((e) => completion.includes(e.kind)).map((e) => e.kind);
        expect(kinds.sort()).toEqual([...completion].sort());
      }),
    );
  });

  it('concurrent refused responses fail the session exactly once', async () => {
    const { id, signer } = await started(singleStep);
    const refused = [];
    for (const _ of range(7)) refused.push(await prepared(signer, true));
    const rs = await Promise.all(refused.map((submit) => submit()));
    for (const r of rs) {
      expect([409, 422]).toContain(r.status);
      if (r.status === 422) expect(r.body.code).toBe('nonce_mismatch');
      else expect(r.body.code).toBe('session_state_conflict');
    }
    expect(rs.filter((r) => r.body.session_status === 'failed')).toHaveLength(1);
    expect((await persisted(id)).status).toBe('failed');
    expect(await events(id)).toEqual(['session.failed']);
    await deliverAll();
    expect(delivered(id)).toEqual(['session.failed']);
  });

  it('every session raced here has exactly one session.* event per terminal state, each delivered once', async () => {
    await deliverAll();
    const sessions = await t.svc.ds.getRepository(SessionEntity).findBy({ businessId });
    const terminal = new Set(['completed', 'stopped', 'failed', 'expired']);
    for (const s of sessions) {
      const expected = terminal.has(s.status) ? [`session.${s.status}`] : [];
      expect(await terminalEvents(s.id)).toEqual(expected);
      expect(delivered(s.id).filter((e) => e.startsWith('session.'))).toEqual(expected);
    }
    // deliveries are unique per delivery id: the receiver saw no duplicate
    const ids = receiver.deliveries.map((d) => d.body.delivery_id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
