// The events a transition queues are claimed for the node's running relay by the transition's own commit (ADR
// 0071), on MySQL: the relay sends them with no claim of its own; events behind an undelivered one of their
// session still wait for it; a node that dies between its commit and its sends leaves them to another relay once
// their lease has run out. Real MariaDB, real HTTP receivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { SessionTransitions } from '../../server/src/modules/session/session.transition';
import { countStatements } from '../../server/src/tools/bench/statements';
import { testEngine } from '../support/config';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const claims = ['given_name', 'family_name'];
/** The relay's compare-and-set claim (webhook.outbox-store.ts), as the statement counter folds it. */
const CLAIM = 'UPDATE webhook_event SET claim_token = ?, lease_until = ?';

type Row = { status: string; attempts: number; claim_token: string | null };
const rowsOf = (t: TestService, id: string): Promise<Row[]> =>
  t.svc.ds.query(
    'SELECT status, attempts, claim_token FROM webhook_event WHERE session_id = ? ORDER BY sequence',
    [id],
  );

/** The session's webhook requests as they arrived: `event:stage`. */
const arrived = (r: WebhookReceiver, id: string) => r.requests.filter((d) => d.body.data.session_id === id);
const names = (r: WebhookReceiver, id: string) =>
  arrived(r, id).map((d) => `${d.body.event}:${d.body.data.stage ?? ''}`);

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(testEngine() === 'embedded')('webhook events claimed at their commit (MySQL)', () => {
  const receiver = new WebhookReceiver();
  let t: TestService;
  let api: Api;

  beforeAll(async () => {
    t = await startTestService({ label: 'claim_at_commit' }); // its relay runs
    await receiver.start();
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
  });
  afterAll(async () => {
    await t?.stop();
    await receiver.stop();
  });

  it('leases a claim at the commit for one chain of sends: the timeout per event, at most four, plus 30 s', () => {
    const at = (n: number) => {
      const before = Date.now();
      const claim = t.svc.relay.claimAtCommit(n);
      return (claim?.lease.getTime() ?? 0) - before;
    };
    // the service's delivery timeout is 10 s: a session's two events 50 s (as README's outbox paragraph says)
    expect(at(2)).toBeGreaterThanOrEqual(50_000);
    expect(at(2)).toBeLessThan(50_000 + 1_000);
    expect(at(9)).toBeLessThan(70_000 + 1_000);
    expect(t.svc.relay.claimAtCommit(1)?.token).not.toBe(t.svc.relay.claimAtCommit(1)?.token);
  });

  it('sends a completed step’s events with no claim of its own, in order, once each', async () => {
    const { workflowId } = await publishWorkflow(api, [{ primitive: 'identify', claims }], receiver.url);
    const counter = await countStatements(t.svc.ds);
    try {
      const before = t.svc.relay.stats.claimedAtCommit;
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      const id = created.body.id as string;
      const signer = new SignerClient(t.baseUrl, id);
      expect((await signer.start()).status).toBe(200);
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      await until('both delivered', async () => (await rowsOf(t, id)).every((r) => r.status === 'delivered'));
      expect(names(receiver, id)).toEqual(['step.completed:0', 'session.completed:']);
      expect(await rowsOf(t, id)).toEqual([
        { status: 'delivered', attempts: 1, claim_token: null },
        { status: 'delivered', attempts: 1, claim_token: null },
      ]);
      expect(t.svc.relay.stats.claimedAtCommit - before).toBe(2);
      // the relay's compare-and-set never ran: the commit's claim was the only one
      expect([...counter.byText().keys()].filter((text) => text.startsWith(CLAIM))).toEqual([]);
    } finally {
      counter.close();
    }
  });

  it('holds events behind an undelivered one of their session until it has its 2xx', async () => {
    const { workflowId } = await publishWorkflow(
      api,
      [
        { primitive: 'identify', claims },
        { primitive: 'identify', claims },
      ],
      receiver.url,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const id = created.body.id as string;
    const signer = new SignerClient(t.baseUrl, id);
    expect((await signer.start()).status).toBe(200);
    // the first step's event is answered only after 3 s: it is still in flight when the second step completes
    receiver.replyDelayMs = 3_000;
    try {
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      await until('the first step.completed', () => arrived(receiver, id).length === 1);
    } finally {
      receiver.replyDelayMs = 0;
    }
    const first = arrived(receiver, id)[0]?.receivedAt as number;
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    const secondCompleted = Date.now();
    await until('three events', () => arrived(receiver, id).length === 3);
    expect(names(receiver, id)).toEqual(['step.completed:0', 'step.completed:1', 'session.completed:']);
    // the scenario held: the second step completed while the first step's event waited for its answer
    expect(secondCompleted).toBeLessThan(first + 3_000);
    // and its events were sent only after that answer, not when their commit claimed them
    expect((arrived(receiver, id)[1]?.receivedAt as number) - first).toBeGreaterThanOrEqual(2_900);
  });

  it('leaves the events of a node dead after its commit to another relay once their lease ran out', async () => {
    const clock = new ManualClock();
    const other = await startTestService({ label: 'claim_at_commit_dead', workers: false, clock });
    const hooks = new WebhookReceiver();
    await hooks.start();
    try {
      const otherApi = new Api(other.baseUrl, (await createBusiness(other)).apiKey);
      const { workflowId } = await publishWorkflow(otherApi, [{ primitive: 'identify', claims }], hooks.url);
      const created = await otherApi.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      const id = created.body.id as string;
      const session = await other.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });
      // a node whose workers are off claims nothing at its commits: its events are queued for any relay
      expect(other.svc.relay.claimAtCommit(1)).toBeUndefined();
      // the node that stops the session claims its event for its relay, commits, and dies before sending
      const lease = new Date(clock.now().getTime() + 50_000);
      const dying = new SessionTransitions({
        ds: other.svc.ds,
        clock,
        claimAtCommit: () => ({ token: 'clm_node_gone', lease }),
        onEventsQueued: () => {},
      });
      await dying.run(session, (tx) => tx.move('stop'));
      expect(await rowsOf(other, id)).toEqual([
        { status: 'pending', attempts: 0, claim_token: 'clm_node_gone' },
      ]);
      // another relay: nothing is due while the lease holds
      expect(await other.svc.relay.runOnce()).toBe(0);
      clock.advance(50_001);
      expect(await other.svc.relay.runOnce()).toBe(1);
      expect(hooks.deliveries.map((d) => d.body.event)).toEqual(['session.stopped']);
      expect(await rowsOf(other, id)).toEqual([{ status: 'delivered', attempts: 1, claim_token: null }]);
    } finally {
      await hooks.stop();
      await other.stop();
    }
  });
});
