// The one create path and the one transition API (ADR 0038), observed from outside the session module:
// - each service instance remembers its own create facts (two services on one database, like two nodes, each
//   start cold), and a remembered guess the guarded INSERT refuses is read again, never trusted;
// - an API key revoked after it was checked is refused by the INSERT's own key check, nothing written;
// - a transition that loses its race writes nothing of its unit (timeline, events) and is answered from the
//   state the winner left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ctx } from '../../server/src/common/context';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { SessionEventEntity } from '../../server/src/modules/timeline/session-event.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import { createService, type Service } from '../../server/src/service';
import { testConfig, testEngine } from '../support/config';
import {
  Api,
  createBusiness,
  freePort,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';

describe.skipIf(testEngine() === 'embedded')('one create path, one transition API', () => {
  let t: TestService;
  let other: Service;
  let api: Api;
  let businessId: string;
  let keyId: string;
  let workflowId: string;
  const ROUTE = 'rte_google_us_mdl';
  const ctx = (): Ctx => ({
    actor: { kind: 'api_key', apiKeyId: keyId, businessId, environment: 'production' },
    requestId: 'test',
    clock: t.svc.clock,
  });
  const stored = () => t.svc.ds.getRepository(SessionEntity).countBy({ businessId });

  beforeAll(async () => {
    t = await startTestService({ workers: false, label: 'createpath' });
    businessId = (await createBusiness(t)).businessId;
    const key = await t.svc.tenancy.issueApiKey(businessId, 'production');
    keyId = key.id;
    api = new Api(t.baseUrl, key.key);
    ({ workflowId } = await setUpIdentifyWorkflow(api, 'https://8.8.8.8/hooks', ['given_name']));
    await t.svc.catalog.setAcceptance(ROUTE, { provider: true, issuer: true, service: true });
    // a second service on the same database and data dir (shared KMS master key): another node
    other = await createService(
      testConfig({ port: await freePort(), dataDir: t.svc.config.dataDir, databaseUrl: t.db.url }),
      { workers: false },
    );
  }, 90_000);

  afterAll(async () => {
    await other?.close();
    await t?.stop();
  });

  it('each service instance starts cold, remembers its own facts, and reads again when the guard refuses', async () => {
    const here = t.svc.sessions;
    const before = { ...here.createPaths };
    for (let i = 0; i < 3; i++)
      expect((await here.create(ctx(), { workflow_id: workflowId })).session.workflow_revision).toBe(1);
    expect(here.createPaths.read - before.read).toBe(1);
    expect(here.createPaths.remembered - before.remembered).toBe(2);
    // the other node has never created a session: nothing of this one's memory is shared
    expect(other.sessions.createPaths).toMatchObject({ read: 0, remembered: 0 });
    expect((await other.sessions.create(ctx(), { workflow_id: workflowId })).session.workflow_revision).toBe(
      1,
    );
    expect(other.sessions.createPaths).toMatchObject({ read: 1, remembered: 0, stale: 0 });
    // a revision published through this node: the other node's remembered revision is now a stale guess
    const gql = async (query: string, variables: Record<string, unknown>) =>
      expect((await api.gql(query, variables)).errors).toBeUndefined();
    await gql(
      'mutation($id: ID!, $steps: [WorkflowStepInput!]!) { setWorkflowSteps(workflowId: $id, steps: $steps) { id } }',
      { id: workflowId, steps: [{ primitive: 'age_verify', threshold: 18 }] },
    );
    await gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', { id: workflowId });
    const s0 = await stored();
    const pinned = await other.sessions.create(ctx(), { workflow_id: workflowId });
    expect(pinned.session.workflow_revision).toBe(2);
    expect(other.sessions.createPaths).toMatchObject({ read: 2, remembered: 1, stale: 1 });
    expect(await stored()).toBe(s0 + 1);
  });

  it('an API key revoked after it was checked is refused by the INSERT itself, and nothing is written', async () => {
    const second = await t.svc.tenancy.issueApiKey(businessId, 'production', 'second');
    const as2 = (): Ctx => ({ ...ctx(), actor: { ...ctx().actor, apiKeyId: second.id } as Ctx['actor'] });
    expect((await other.sessions.create(as2(), { workflow_id: workflowId })).replayed).toBe(false);
    await t.svc.tenancy.revokeApiKey(businessId, second.id);
    const s0 = await stored();
    // the caller saw the key valid before (no confirmation callback): only the guarded INSERT can notice
    await expect(other.sessions.create(as2(), { workflow_id: workflowId })).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    expect(await stored()).toBe(s0);
  });

  it('a transition that lost its race writes nothing and answers from the state the winner left', async () => {
    const { session } = await t.svc.sessions.create(ctx(), { workflow_id: workflowId });
    const snapshot = await t.svc.sessions.load(ctx(), session.id); // created, version 0
    await t.svc.sessions.stop(ctx(), session.id); // the winner
    const timeline = () => t.svc.ds.getRepository(SessionEventEntity).countBy({ sessionId: session.id });
    const events = async () =>
      (await t.svc.ds.getRepository(WebhookEventEntity).findBy({ sessionId: session.id })).map(
        (e) => e.event,
      );
    const [rows0, events0] = [await timeline(), await events()];
    expect(events0).toEqual(['session.stopped']);
    // a late start from the stale snapshot, with a timeline row written before its move
    const lateStart = (recheck?: (fresh: SessionEntity) => SessionEntity | undefined) =>
      t.svc.sessions.transitions.run(
        snapshot,
        async (tx) => {
          await tx.timeline({ kind: 'opened', at: tx.now });
          return tx.move('start', { currentStage: 0 });
        },
        recheck,
      );
    await expect(lateStart()).rejects.toMatchObject({ code: 'session_state_conflict' });
    const answered = await lateStart((fresh) => fresh);
    expect(answered).toMatchObject({ id: session.id, status: 'stopped' });
    expect([await timeline(), await events()]).toEqual([rows0, events0]);
  });
});
