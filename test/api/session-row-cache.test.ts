// Start, the wallet request and the wallet response begin from what this node last read or wrote of the session
// (ADR 0067 and its amendment): the page's open, its Start (with the trust stamp its read carried) and its wallet
// request. Such a row may be stale: the business stopped the session through its API, another node completed
// the step, a refused answer came first, trust changed on another node. Each case here makes the
// node's row stale on purpose and asserts that the person and the business observe exactly what a fresh read
// gives: the same answer as another node that holds no row (or, where the request was used meanwhile, the
// "already used" every lost completion gives), nothing written twice, nothing written at all for a refusal
// that a fresh read would not have reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { SessionEventEntity } from '../../server/src/modules/timeline/session-event.entity';
import { MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { createService, type Service } from '../../server/src/service';
import { testConfig, testEngine } from '../support/config';
import { type Api, freePort, type Json, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { trustNewPidIaca } from '../support/pid-iaca';
import { SignerClient } from '../support/signer';

describe.skipIf(testEngine() === 'embedded')('a node begins from its own rows of a session', () => {
  const page = identifyFixture({ workers: false, label: 'rowcache' });
  let t: TestService;
  let api: Api;
  let other: Service;
  let otherUrl: string;

  beforeAll(async () => {
    ({ t, api } = page);
    // a second node on the same database and public URL: it holds no row of this node's sessions
    const port = await freePort();
    otherUrl = `http://127.0.0.1:${port}`;
    other = await createService(
      testConfig({ port, dataDir: t.svc.config.dataDir, databaseUrl: t.db.url, baseUrl: t.baseUrl }),
      { workers: false },
    );
    await other.listen();
  }, 90_000);
  afterAll(async () => other?.close());

  /** The same browser (its cookie) on the other node. */
  const onOther = (c: SignerClient): SignerClient => {
    const o = new SignerClient(otherUrl, c.sessionId);
    (o as unknown as { cookie: string }).cookie = (c as unknown as { cookie: string }).cookie;
    return o;
  };
  const events = async (id: string, kind: string) =>
    t.svc.ds.getRepository(SessionEventEntity).countBy({ sessionId: id, kind });
  const requestState = async (id: string) =>
    (await t.svc.ds.getRepository(WalletRequestEntity).findOneByOrFail({ id })).state;
  const results = async (id: string) => t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id });

  /** A session opened by a browser on this node; with `started`, started there and at its wallet request. */
  async function opened() {
    const id = await page.newSession();
    const c = new SignerClient(t.baseUrl, id);
    expect((await c.openAndRead()).status).toBe(200);
    return { id, c };
  }
  async function atWalletRequest() {
    const { id, c } = await opened();
    expect((await c.startAndRead()).status).toBe(200);
    const wr = await c.rawWalletRequest();
    expect(wr.status).toBe(200);
    const answer = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    return { id, c, requestId: wr.body.request_id as string, answer };
  }

  it('a Start after the business stopped the opened session answers as the other node does, and starts nothing', async () => {
    const { id, c } = await opened();
    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
    const here = await c.start();
    const there = await onOther(c).start();
    expect(here.status).toBe(409);
    expect([here.status, here.body.code]).toEqual([there.status, there.body.code]);
    expect((await t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id })).startedAt).toBeNull();
    expect((await api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('stopped');
  });

  it('a wallet request after the business stopped the started session answers as the other node does, and stores nothing', async () => {
    const { id, c } = await opened();
    expect((await c.startAndRead()).status).toBe(200);
    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
    const here = await c.rawWalletRequest();
    const there = await onOther(c).rawWalletRequest();
    expect(here.status).toBe(409);
    expect([here.status, here.body.code]).toEqual([there.status, there.body.code]);
    // a request from the stale row would have been stored (its row is its timeline entry), after the session stopped
    expect(await t.svc.ds.getRepository(WalletRequestEntity).countBy({ sessionId: id })).toBe(0);
  });

  it('a wallet request after trust changed on the other node offers the trust now, not the trust of its Start', async () => {
    await atWalletRequest(); // this node has read the routes' trust at the current stamp
    const { c } = await opened();
    const started = await c.startAndRead();
    expect(started.status).toBe(200);
    const ski = await trustNewPidIaca(other.ds, 'A later PID IACA');
    const wr = await c.rawWalletRequest();
    expect(wr.status).toBe(200);
    const pid = (wr.body.request.dcql_query.credentials as Json[]).find(
      (q) => q.meta?.doctype_value === MDOC_PID.doctype,
    );
    expect(pid?.trusted_authorities[0].values).toContain(ski);
  });

  it('an answer after the business stopped the session is refused as on the other node: the request stays unused, no result', async () => {
    const { id, c, requestId, answer } = await atWalletRequest();
    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
    const here = await c.submit(requestId, answer);
    const there = await onOther(c).submit(requestId, answer);
    expect(here.status).toBe(409);
    expect([here.status, here.body.code]).toEqual([there.status, there.body.code]);
    expect(await requestState(requestId)).toBe('open');
    expect(await results(id)).toBe(0);
    expect(await events(id, 'wallet_response_refused')).toBe(0);
  });

  it('a bad answer after the business stopped the session writes no refusal: answered as on the other node', async () => {
    const { id, c, requestId } = await atWalletRequest();
    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
    const bad = { vp_token: 'not a presentation' };
    const here = await c.submit(requestId, bad);
    const there = await onOther(c).submit(requestId, bad);
    expect(here.status).toBe(409);
    expect([here.status, here.body.code]).toEqual([there.status, there.body.code]);
    // a refusal from the stale row would have burned the request and written the timeline entry
    expect(await requestState(requestId)).toBe('open');
    expect(await events(id, 'wallet_response_refused')).toBe(0);
  });

  it('a refused answer is counted once, and the next request completes', async () => {
    const { id, c, requestId } = await atWalletRequest();
    const refused = await c.submit(requestId, { vp_token: 'not a presentation' });
    // the verification's own refusal, not "already used": the refusal was written by one attempt only
    expect([refused.status, refused.body.code]).toEqual([422, 'presentation_malformed']);
    expect(await requestState(requestId)).toBe('refused');
    expect(await events(id, 'wallet_response_refused')).toBe(1);
    expect((await c.session()).body.triesLeft).toBe(4);
    const wr = await c.rawWalletRequest();
    const answer = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    const done = await c.submit(wr.body.request_id as string, answer);
    expect([done.status, done.body.status]).toEqual([200, 'completed']);
    expect(await results(id)).toBe(1);
  });

  it('an answer completed on the other node, sent again here, is "already used", as a lost race answers; one result', async () => {
    const { id, c, requestId, answer } = await atWalletRequest();
    const done = await onOther(c).submit(requestId, answer);
    expect([done.status, done.body.status]).toEqual([200, 'completed']);
    // this node still holds the session at its wallet request, the request open: its completion loses to the
    // use of the request and answers as a concurrent duplicate does (session-concurrency.test.ts)
    const here = await c.submit(requestId, answer);
    expect([here.status, here.body.code]).toEqual([422, 'request_not_found']);
    // and the next one here, like any on the other node, reads fresh: the session has ended
    const again = await c.submit(requestId, answer);
    const there = await onOther(c).submit(requestId, answer);
    expect([again.status, again.body.code]).toEqual([there.status, there.body.code]);
    expect(there.status).toBe(409);
    expect(await results(id)).toBe(1);
    expect(await events(id, 'wallet_response_accepted')).toBe(1);
    expect(await requestState(requestId)).toBe('consumed');
  });

  it('an answer replayed on the node that completed it is refused; one result, one step.completed queued', async () => {
    const { id, c, requestId, answer } = await atWalletRequest();
    expect((await c.submit(requestId, answer)).status).toBe(200);
    const again = await c.submit(requestId, answer);
    const there = await onOther(c).submit(requestId, answer);
    expect([again.status, again.body.code]).toEqual([there.status, there.body.code]);
    expect(await results(id)).toBe(1);
    const queued = (await t.svc.ds.query(
      "SELECT COUNT(*) AS n FROM webhook_event WHERE session_id = ? AND event = 'step.completed'",
      [id],
    )) as Json[];
    expect(Number(queued[0]?.n)).toBe(1);
  });
});
