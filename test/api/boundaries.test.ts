// Trust boundaries (issue 7), observed as a business and as a person's browser would:
// - a workflow belongs to one environment: a sandbox credential can neither see, change, publish nor run a
//   production workflow, and a production key cannot run a sandbox one (404, ADR 0007);
// - browser binding: a Start whose answer was lost succeeds when the same browser retries, another browser
//   still cannot act, and a cookie value the client chose never becomes a binding;
// - an Idempotency-Key is kept 24 h (then released by the next request with it, which is a new session), and a
//   refused create does not take it;
// - a session waiting at a gate shows its decision deadline and queues session.decision_due exactly once
//   (ADR 0008).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { SessionDecisionDueEventSchema } from '../../server/src/modules/session/session.contract';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import {
  Api,
  createBusiness,
  type Json,
  sessionsHoldingAKey,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { readSignerSession, SignerClient, shareWithReferenceWallet } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

const HOUR = 3600_000;
const gqlCode = (res: { errors?: Json[] }) => res.errors?.[0]?.extensions?.code;

describe('environments: a workflow belongs to the environment that created it', () => {
  let t: TestService;
  let sandbox: Api;
  let production: Api;
  let prodWorkflowId: string;
  let sandboxWorkflowId: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'envs', workers: false });
    const biz = await createBusiness(t);
    sandbox = new Api(t.baseUrl, biz.apiKey);
    production = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(biz.businessId, 'production')).key);
    // operators accepted a route that identifies, so a production session of an identify workflow can exist
    await t.svc.catalog.setAcceptance('rte_google_us_mdl', { provider: true, issuer: true, service: true });
    ({ workflowId: prodWorkflowId } = await setUpIdentifyWorkflow(production, 'https://8.8.8.8/hooks'));
    ({ workflowId: sandboxWorkflowId } = await setUpIdentifyWorkflow(sandbox, 'http://127.0.0.1:9/hooks'));
  });
  afterAll(async () => t?.stop());

  it('each key lists only its own environment’s workflows, and each workflow says its environment', async () => {
    const prod = await production.gql('{ workflows { id environment } }');
    expect(prod.data.workflows).toEqual([{ id: prodWorkflowId, environment: 'production' }]);
    const sand = await sandbox.gql('{ workflows { id environment } }');
    expect(sand.data.workflows).toEqual([{ id: sandboxWorkflowId, environment: 'sandbox' }]);
  });

  it('a sandbox key can neither read, edit, publish nor run a production workflow, and nothing changes', async () => {
    const id = { id: prodWorkflowId };
    const before = await production.gql(
      'query($id: ID!) { workflow(id: $id) { name draftSteps { primitive } latestRevision } }',
      id,
    );
    expect(gqlCode(await sandbox.gql('query($id: ID!) { workflow(id: $id) { id } }', id))).toBe(
      'workflow_not_found',
    );
    expect(
      gqlCode(await sandbox.gql('query($id: ID!) { workflowRevisions(workflowId: $id) { revision } }', id)),
    ).toBe('workflow_not_found');
    const edit = await sandbox.gql(
      'mutation($id: ID!, $s: [WorkflowStepInput!]!) { setWorkflowSteps(workflowId: $id, steps: $s) { id } }',
      { id: prodWorkflowId, s: [{ primitive: 'age_verify', threshold: 18 }] },
    );
    expect(gqlCode(edit)).toBe('workflow_not_found');
    expect(
      gqlCode(await sandbox.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', id)),
    ).toBe('workflow_not_found');
    const run = await sandbox.rest('POST', '/v1/sessions', { workflow_id: prodWorkflowId });
    expect([run.status, run.body.code]).toEqual([404, 'workflow_not_found']);

    // production still runs exactly what production published
    const after = await production.gql(
      'query($id: ID!) { workflow(id: $id) { name draftSteps { primitive } latestRevision } }',
      id,
    );
    expect(after.data).toEqual(before.data);
    expect(after.data.workflow.latestRevision).toBe(1);
    const created = await production.rest('POST', '/v1/sessions', { workflow_id: prodWorkflowId });
    expect(created.status).toBe(201);
    expect(created.body.workflow_revision).toBe(1);
  });

  it('a production key cannot run, read or change a sandbox workflow', async () => {
    const run = await production.rest('POST', '/v1/sessions', { workflow_id: sandboxWorkflowId });
    expect([run.status, run.body.code]).toEqual([404, 'workflow_not_found']);
    const gqlRun = await production.gql(
      'mutation($i: CreateSessionInput!) { createSession(input: $i) { id } }',
      {
        i: { workflowId: sandboxWorkflowId },
      },
    );
    expect(gqlCode(gqlRun)).toBe('workflow_not_found');
    expect(
      gqlCode(
        await production.gql('query($id: ID!) { workflow(id: $id) { id } }', { id: sandboxWorkflowId }),
      ),
    ).toBe('workflow_not_found');
    expect(
      gqlCode(
        await production.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', {
          id: sandboxWorkflowId,
        }),
      ),
    ).toBe('workflow_not_found');
    expect(
      await t.svc.ds
        .getRepository(SessionEntity)
        .countBy({ workflowId: sandboxWorkflowId, environment: 'production' }),
    ).toBe(0);
    // the sandbox key still runs it
    expect((await sandbox.rest('POST', '/v1/sessions', { workflow_id: sandboxWorkflowId })).status).toBe(201);
  });
});

/** A browser without Chromium: its own cookie jar, which only a received answer can change. */
class Browser {
  cookie = '';
  constructor(readonly baseUrl: string) {}
  async call(method: string, path: string, opts: { dropAnswer?: boolean; body?: unknown } = {}) {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(this.cookie ? { Cookie: this.cookie } : {}),
        ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const body = res.status === 204 ? {} : await res.json();
    // a lost answer never reaches the browser: its Set-Cookie is not stored either
    if (!opts.dropAnswer) {
      const set = res.headers.get('set-cookie');
      if (set) this.cookie = set.split(';')[0] as string;
    }
    return { status: res.status, body, setCookie: res.headers.get('set-cookie') };
  }
  /** Opening the link (the cookie), then the page's GraphQL read of the session with this jar's cookie. */
  async session(id: string, opts: { dropAnswer?: boolean } = {}) {
    const opened = await this.call('POST', `/t/sessions/${id}/open`, opts);
    expect(opened.status).toBe(204);
    return { ...(await readSignerSession(this.baseUrl, id, this.cookie)), setCookie: opened.setCookie };
  }
}

describe('browser binding', () => {
  const page = identifyFixture({ label: 'binding', workers: false });
  const newSession = page.newSession;
  let t: TestService;
  let api: Api;
  beforeAll(() => ({ t, api } = page));

  it('a Start whose answer was lost succeeds when the same browser retries; another browser still cannot act', async () => {
    const id = await newSession();
    const mine = new Browser(t.baseUrl);
    // opening the page gives this browser its server-issued cookie (HttpOnly, Secure, SameSite=Strict)
    const opened = await mine.session(id);
    expect(opened.status).toBe(200);
    expect(opened.body.binding).toBe('none');
    expect(opened.setCookie).toMatch(/^svc_browser=[^;]+; Path=\/; .*HttpOnly; Secure; SameSite=Strict/);
    // Start commits, but its answer never arrives
    const lost = await mine.call('POST', `/t/sessions/${id}/start`, { dropAnswer: true });
    expect(lost.status).toBe(200);
    expect(lost.body).toEqual({ status: 'in_progress', current_stage: 0 });
    expect((await t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id })).status).toBe('in_progress');

    const retry = await mine.call('POST', `/t/sessions/${id}/start`);
    expect(retry.status).toBe(200);
    expect((await mine.session(id)).body.binding).toBe('this_browser');

    const other = new Browser(t.baseUrl);
    expect((await other.session(id)).body.binding).toBe('other_browser');
    const steal = await other.call('POST', `/t/sessions/${id}/start`);
    expect([steal.status, steal.body.code]).toEqual([403, 'session_bound_elsewhere']);
    expect((await other.call('POST', `/t/sessions/${id}/wallet-request`)).body.code).toBe(
      'session_bound_elsewhere',
    );

    // and the retried browser completes the step
    const wr = await mine.call('POST', `/t/sessions/${id}/wallet-request`);
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    const done = await mine.call('POST', `/t/sessions/${id}/wallet-response`, {
      body: { request_id: wr.body.request_id, response },
    });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
  });

  it('a Start retried from the same browser without ever opening the page first still cannot be taken over', async () => {
    const id = await newSession();
    const mine = new Browser(t.baseUrl);
    const started = await mine.call('POST', `/t/sessions/${id}/start`);
    expect(started.status).toBe(200);
    expect(started.setCookie).toMatch(/HttpOnly; Secure; SameSite=Strict/);
    expect((await mine.call('POST', `/t/sessions/${id}/start`)).status).toBe(200);
    expect((await mine.session(id)).body.binding).toBe('this_browser');
    const other = new Browser(t.baseUrl);
    expect((await other.call('POST', `/t/sessions/${id}/start`)).status).toBe(403);
  });

  it('never lets a cookie value the client chose become a binding', async () => {
    const id = await newSession();
    const chosen = `svc_browser=${'A'.repeat(43)}`;
    const attacker = new Browser(t.baseUrl);
    attacker.cookie = chosen;
    const opened = await attacker.call('POST', `/t/sessions/${id}/open`, { dropAnswer: true });
    expect(opened.setCookie).not.toContain('A'.repeat(43)); // replaced by a server-issued value
    const victim = new Browser(t.baseUrl);
    victim.cookie = chosen; // e.g. planted in the victim's browser
    const started = await victim.call('POST', `/t/sessions/${id}/start`);
    expect(started.status).toBe(200);
    expect(started.setCookie).not.toContain('A'.repeat(43));
    expect(victim.cookie).not.toBe(chosen);
    expect((await victim.session(id)).body.binding).toBe('this_browser');
    // whoever holds the chosen value is not the bound browser: the read refuses a value the service did not
    // issue (as an unknown link), and with the value it issues instead the session is another browser's
    expect((await attacker.session(id, { dropAnswer: true })).body.code).toBe('not_found');
    const steal = await attacker.call('POST', `/t/sessions/${id}/wallet-request`, { dropAnswer: true });
    expect([steal.status, steal.body.code]).toEqual([403, 'session_bound_elsewhere']);
    expect((await attacker.session(id)).body.binding).toBe('other_browser');

    // a forged value of the issued shape (wrong MAC) is no binding either
    const forger = new Browser(t.baseUrl);
    forger.cookie = `svc_browser=${'B'.repeat(43)}.${'C'.repeat(43)}`;
    const id2 = await newSession();
    const forged = await forger.call('POST', `/t/sessions/${id2}/start`, { dropAnswer: true });
    expect(forged.status).toBe(200);
    expect(forged.setCookie).not.toContain('B'.repeat(43));
    expect((await forger.session(id2, { dropAnswer: true })).body.code).toBe('not_found');
    expect((await forger.session(id2)).body.binding).toBe('other_browser');
  });

  it('binds each session separately: one browser cookie, distinct stored bindings', async () => {
    const browser = new Browser(t.baseUrl);
    const a = await newSession();
    const b = await newSession();
    await browser.call('POST', `/t/sessions/${a}/open`);
    expect((await browser.call('POST', `/t/sessions/${a}/start`)).status).toBe(200);
    expect((await browser.call('POST', `/t/sessions/${b}/start`)).status).toBe(200);
    expect((await browser.session(a)).body.binding).toBe('this_browser');
    expect((await browser.session(b)).body.binding).toBe('this_browser');
    const rows = await t.svc.ds.getRepository(SessionEntity).findBy([{ id: a }, { id: b }]);
    expect(new Set(rows.map((r) => r.bindingHash)).size).toBe(2);
    expect(
      t.svc.transport.binding.isBoundBrowser(rows[0] as SessionEntity, browser.cookie.split('=')[1]),
    ).toBe(true);
  });
});

describe('idempotency retention: as long as the session exists', () => {
  const clock = new ManualClock(new Date('2026-11-23T08:00:00Z'));
  const page = identifyFixture({ label: 'idemret', workers: false, clock });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let businessId: string;
  beforeAll(() => ({ t, api, workflowId, businessId } = page));

  const create = (key: string, body: Json = { workflow_id: workflowId }) =>
    api.rest('POST', '/v1/sessions', body, { 'Idempotency-Key': key });
  const holders = () => sessionsHoldingAKey(t, businessId);

  it('replays for as long as the session exists: a day later, a week later, expired: the original, never a duplicate (spec 4.1 rule 1)', async () => {
    const first = await create('order-1');
    expect(first.status).toBe(201);
    expect(first.body.status).toBe('created');
    const before = await holders();
    clock.advance(23 * HOUR);
    const within = await create('order-1');
    expect(within.status).toBe(201);
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.body.id).toBe(first.body.id);

    // 24 h and more: the session (expired since: its expires_in ended) still holds the key, and a replay
    // answers it as it is now, lazily expired like every read
    clock.advance(HOUR);
    const dayLater = await create('order-1');
    expect(dayLater.status).toBe(201);
    expect(dayLater.headers.get('idempotent-replayed')).toBe('true');
    expect(dayLater.body.id).toBe(first.body.id);
    expect(dayLater.body.status).toBe('expired');
    clock.advance(7 * 24 * HOUR);
    const weekLater = await create('order-1');
    expect(weekLater.headers.get('idempotent-replayed')).toBe('true');
    expect(weekLater.body).toEqual(dayLater.body);
    expect(await holders()).toBe(before); // no second session took the key
    const read = await api.rest('GET', `/v1/sessions/${first.body.id}`);
    expect(read.body.status).toBe('expired');
  });

  it('a refused create leaves the key free; once it created, bodies are not compared', async () => {
    const refused = await create('order-2', { workflow_id: 'wf_does_not_exist' });
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('workflow_not_found');
    const created = await create('order-2');
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    // a repeat replays the session even with a body that would be refused
    const repeat = await create('order-2', { workflow_id: 'wf_does_not_exist' });
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.id).toBe(created.body.id);
  });

  it('two concurrent creates with one key give one session', async () => {
    const before = await holders();
    const [x, y] = await Promise.all([create('order-3'), create('order-3')]);
    expect([x.status, y.status]).toEqual([201, 201]);
    expect(x.body.id).toBe(y.body.id);
    expect([x, y].filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(1);
    expect(await holders()).toBe(before + 1);
  });
});

describe('sessions at a gate: decision deadline and reminder', () => {
  const clock = new ManualClock();
  let t: TestService;
  let api: Api;
  let workflowId: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'decision', workers: false, clock });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'], gateAfter: true }],
      'http://127.0.0.1:9/hooks',
    ));
  });
  afterAll(async () => t?.stop());

  const reminders = (sessionId: string) =>
    t.svc.ds.getRepository(WebhookEventEntity).findBy({ sessionId, event: 'session.decision_due' });

  it('shows decision_due while waiting, and queues session.decision_due exactly once when it passes', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const id = created.body.id as string;
    expect((await api.rest('GET', `/v1/sessions/${id}`)).body.decision_due).toBeNull();
    const signer = new SignerClient(t.baseUrl, id);
    await signer.start();
    const done = await shareWithReferenceWallet(t.svc, signer);
    expect(done.body.status).toBe('awaiting_decision');
    const gateAt = clock.now().getTime();

    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('awaiting_decision');
    expect(read.body.decision_due).toBe(new Date(gateAt + 72 * HOUR).toISOString()); // DECISION_DUE_HOURS
    const gql = await api.gql('query($id: ID!) { session(id: $id) { status decisionDue } }', { id });
    expect(gql.data.session.decisionDue).toBe(read.body.decision_due);

    clock.advance(72 * HOUR - 1000);
    expect(await t.svc.sessions.sweepDecisionsDue()).toBe(0);
    expect(await reminders(id)).toHaveLength(0);

    clock.advance(2000);
    // several sweepers (nodes) race: the reminder is queued once
    const counts = await Promise.all([1, 2, 3, 4].map(() => t.svc.sessions.sweepDecisionsDue()));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await t.svc.sessions.sweepDecisionsDue()).toBe(0);
    const rows = await reminders(id);
    expect(rows).toHaveLength(1);
    const body = JSON.parse((rows[0] as WebhookEventEntity).body);
    expect(SessionDecisionDueEventSchema.parse(body)).toEqual({
      event: 'session.decision_due',
      delivery_id: `${id}:session.decision_due:0`,
      data: {
        session_id: id,
        status: 'awaiting_decision',
        workflow_id: workflowId,
        workflow_revision: 1,
        completed_steps: 1,
        decision_due: read.body.decision_due,
      },
    });
    // the session still waits for the business (no auto-stop); deciding clears the deadline
    expect((await api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('awaiting_decision');
    const cont = await api.rest('POST', `/v1/sessions/${id}/continue`);
    expect(cont.body.status).toBe('completed');
    expect(cont.body.decision_due).toBeNull();
  });

  it('a session decided in time is never reminded', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const id = created.body.id as string;
    const signer = new SignerClient(t.baseUrl, id);
    await signer.start();
    expect((await shareWithReferenceWallet(t.svc, signer)).body.status).toBe('awaiting_decision');
    clock.advance(HOUR);
    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).body.status).toBe('stopped');
    clock.advance(100 * HOUR);
    await t.svc.sessions.sweepDecisionsDue();
    expect(await reminders(id)).toHaveLength(0);
  });
});
