// The signer page's reads without the general GraphQL path (issue 27, ADR 0062), over real HTTP: the page's
// SignerSession operation on /graphql answers the very bytes and headers Apollo answers for the same
// selection (a variant Apollo alone answers: an @include on the root field), before Start, bound and running,
// to another browser, and once completed; refusals stay Apollo's. The open that carries the page's first read
// answers it (200, the GraphQL response) with the cookie it issues, records `opened` once, and refuses a read
// of another session or any other operation before writing anything; an open without a body is unchanged (204).
// Start and the wallet response that carry the page's read after them (ADR 0062 amendment) answer exactly what
// the GraphQL read answers after them, also when two Starts race and for a repeated Start; a refused answer keeps
// its error; a read body that is not the page's read of this session is refused before anything is written.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Json, TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient, signerReadBody } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

/** The page's read, and the same selection with a directive on the root field: answered by Apollo alone. */
const PAGE = signerReadBody('x').query;
const APOLLO_ONLY = PAGE.replace(
  'signerSession(sessionId: $sessionId) {',
  'signerSession(sessionId: $sessionId) @include(if: true) {',
);

/** The clock's field and the request id differ between two answers; everything else must not. */
const comparable = (text: string) =>
  text
    .replace(/"serverTime":"[^"]+"/g, '"serverTime":"T"')
    .replace(/"request_id":"[^"]+"/g, '"request_id":"R"');

describe('the signer page’s compiled reads', () => {
  const page = identifyFixture({ label: 'page_reads', workers: false });
  const newSession = page.newSession;
  let t: TestService;
  beforeAll(() => ({ t } = page));

  /** One /graphql POST as the page sends it, with `query`; the raw answer. */
  const post = async (query: string, id: string, cookie: string, accept?: string) => {
    const res = await fetch(`${t.baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(accept ? { accept } : {}),
        ...(cookie ? { cookie } : {}),
      },
      body: JSON.stringify({ query, operationName: 'SignerSession', variables: { sessionId: id } }),
    });
    // every header but the ones that differ per answer (when, which request, how long)
    const headers: [string, string][] = [];
    res.headers.forEach((value, name) => {
      if (!['date', 'x-request-id', 'content-length'].includes(name)) headers.push([name, value]);
    });
    headers.sort(([a], [b]) => a.localeCompare(b));
    return { status: res.status, text: await res.text(), headers };
  };

  /** The page's read and Apollo's answer to the same selection: the same status, every header, the same bytes. */
  const sameAsApollo = async (id: string, cookie: string): Promise<Json> => {
    for (const accept of [undefined, 'application/json']) {
      const fast = await post(PAGE, id, cookie, accept);
      const apollo = await post(APOLLO_ONLY, id, cookie, accept);
      expect(fast.status).toBe(apollo.status);
      expect(fast.headers).toEqual(apollo.headers);
      expect(comparable(fast.text)).toBe(comparable(apollo.text));
    }
    return JSON.parse((await post(PAGE, id, cookie)).text);
  };

  const cookieOf = (b: SignerClient) => (b as unknown as { cookie: string }).cookie;

  /** The step's answer from the sandbox wallet (an adult), sent with the page's read: the raw response. */
  const answerStep = async (b: SignerClient) => {
    const wr = await b.rawWalletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    return b.submitAndRead(wr.body.request_id, response);
  };

  it('answers what Apollo answers, byte for byte, through a whole session and to another browser', async () => {
    const id = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    expect((await b.open()).status).toBe(204);
    const created = await sameAsApollo(id, cookieOf(b));
    expect(created.data.signerSession).toMatchObject({ status: 'created', binding: 'none' });

    expect((await b.start()).status).toBe(200);
    const running = await sameAsApollo(id, cookieOf(b));
    expect(running.data.signerSession).toMatchObject({ status: 'in_progress', binding: 'this_browser' });
    expect(running.data.signerSession.walletRequests.length).toBeGreaterThan(0);
    expect(running.data.signerSession.sandboxPersonas.length).toBeGreaterThan(0);

    const other = new SignerClient(t.baseUrl, id);
    await other.open();
    const seen = await sameAsApollo(id, cookieOf(other));
    expect(seen.data.signerSession).toMatchObject({ binding: 'other_browser', walletRequests: [] });

    const wr = await b.rawWalletRequest();
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    expect((await b.submit(wr.body.request_id, response)).status).toBe(200);
    const done = await sameAsApollo(id, cookieOf(b));
    expect(done.data.signerSession).toMatchObject({ status: 'completed', ended: true });
  });

  it('leaves refusals to Apollo: no cookie, a forged one, an unknown session', async () => {
    const id = await newSession();
    const noCookie = await sameAsApollo(id, '');
    expect(noCookie.errors[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
    const forged = await sameAsApollo(id, `svc_browser=${'A'.repeat(43)}.${'B'.repeat(43)}`);
    expect(forged.errors[0].extensions.code).toBe('not_found');
    const b = new SignerClient(t.baseUrl, id);
    await b.open();
    const unknown = await sameAsApollo('sess_doesnotexist000000000000', cookieOf(b));
    expect(unknown.errors[0].extensions.code).toBe('not_found');
  });

  it('an open carrying the page’s read answers it with the cookie it issues, and records `opened` once', async () => {
    const id = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    const opened = await b.openAndRead();
    expect(opened.status).toBe(200);
    expect(opened.setCookie).toMatch(
      /^svc_browser=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/,
    );
    // exactly what the GraphQL read answers for that cookie
    const read = JSON.parse((await post(PAGE, id, cookieOf(b))).text);
    expect(comparable(JSON.stringify(opened.body))).toBe(comparable(JSON.stringify(read)));
    expect(opened.body.data.signerSession).toMatchObject({ id, status: 'created', binding: 'none' });

    // a reload: the same cookie renewed, still one `opened`; after Start the open answers the bound view
    expect((await b.openAndRead()).status).toBe(200);
    expect((await b.start()).status).toBe(200);
    const again = await b.openAndRead();
    expect(again.body.data.signerSession).toMatchObject({ status: 'in_progress', binding: 'this_browser' });
    const timeline = await page.api.rest('GET', `/v1/sessions/${id}`);
    expect(timeline.status).toBe(200);
    const opens = (await t.svc.ds.query(
      "SELECT COUNT(*) AS n FROM session_event WHERE session_id = ? AND kind = 'opened'",
      [id],
    )) as { n: number | string }[];
    expect(Number(opens[0]?.n)).toBe(1);
  });

  it('an open refuses a read of another session or another operation, before writing anything', async () => {
    const id = await newSession();
    const otherId = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    const wrongSession = await b.call('POST', '/open', signerReadBody(otherId));
    expect(wrongSession.status).toBe(400);
    expect(wrongSession.body.code).toBe('validation_failed');
    const otherOperation = await b.call('POST', '/open', {
      ...signerReadBody(id),
      operationName: 'SignerReceipt',
    });
    expect(otherOperation.body.code).toBe('validation_failed');
    const notGraphql = await b.call('POST', '/open', { read: true });
    expect(notGraphql.body.code).toBe('validation_failed');
    const opens = (await t.svc.ds.query(
      "SELECT COUNT(*) AS n FROM session_event WHERE session_id = ? AND kind = 'opened'",
      [id],
    )) as { n: number | string }[];
    expect(Number(opens[0]?.n)).toBe(0);
    // an unknown link: not_found, as without the read
    const unknown = new SignerClient(t.baseUrl, 'sess_doesnotexist000000000000');
    const missing = await unknown.openAndRead();
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
  });

  /** A /t answer that carried the page's read, beside what /graphql answers now for the same browser. */
  const expectSameAsRead = async (answer: { status: number; body: Json }, id: string, b: SignerClient) => {
    expect(answer.status).toBe(200);
    const read = JSON.parse((await post(PAGE, id, cookieOf(b))).text);
    expect(read.data.signerSession).toBeTruthy();
    expect(comparable(JSON.stringify(answer.body))).toBe(comparable(JSON.stringify(read)));
    return answer.body.data.signerSession as Json;
  };

  it('Start and the wallet response carrying the page’s read answer what the read answers after them', async () => {
    const id = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    expect((await b.openAndRead()).status).toBe(200);
    const started = await expectSameAsRead(await b.startAndRead(), id, b);
    expect(started).toMatchObject({ status: 'in_progress', binding: 'this_browser', currentStage: 0 });
    expect(started.walletRequests.length).toBeGreaterThan(0);
    // a repeated Start (a lost answer, a second tab) moves nothing and answers the same view
    const again = await expectSameAsRead(await b.startAndRead(), id, b);
    expect(comparable(JSON.stringify(again))).toBe(comparable(JSON.stringify(started)));

    // a refused answer keeps its error (the same code as without the read), and the next read counts it
    const bad = await b.rawWalletRequest();
    const refused = await b.submitAndRead(bad.body.request_id, { vp_token: 'not a presentation' });
    expect(refused.status).toBe(422);
    const bad2 = await b.rawWalletRequest();
    const refusedPlain = await b.submit(bad2.body.request_id, { vp_token: 'not a presentation' });
    expect(refusedPlain.status).toBe(422);
    expect(refused.body.code).toBe(refusedPlain.body.code);
    expect(JSON.parse((await post(PAGE, id, cookieOf(b))).text).data.signerSession.triesLeft).toBe(3);

    const wr = await b.rawWalletRequest();
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    const done = await expectSameAsRead(await b.submitAndRead(wr.body.request_id, response), id, b);
    expect(done).toMatchObject({ status: 'completed', ended: true, walletRequests: [] });
    // the same answer again: the session has ended, refused as without the read
    const replay = await b.submitAndRead(wr.body.request_id, response);
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe('session_state_conflict');
  });

  it('a two-step session on the node that opened it: each page after a step, built from its rows, is the read', async () => {
    // Start and each completed step begin from this node's rows and build the page after them from the row they
    // wrote and the brand kept from the open (ADR 0072): the answer must be what the read answers after them
    const { workflowId } = await publishWorkflow(page.api, [
      { primitive: 'identify', claims: ['given_name'] },
      { primitive: 'age_verify', threshold: 18 },
    ]);
    const created = await page.api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const b = new SignerClient(t.baseUrl, id);
    expect((await b.openAndRead()).status).toBe(200);
    expect(await expectSameAsRead(await b.startAndRead(), id, b)).toMatchObject({ currentStage: 0 });
    const second = await expectSameAsRead(await answerStep(b), id, b);
    expect(second).toMatchObject({ status: 'in_progress', currentStage: 1 });
    expect(await expectSameAsRead(await answerStep(b), id, b)).toMatchObject({
      status: 'completed',
      ended: true,
    });
  });

  it('a branding change during a session shows at the next open of the link, not in the answers before it', async () => {
    // the brand is the open's (ADR 0072, README): a business renaming its hosted page mid-session does not
    // change the page under the person until the link is opened again
    const id = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    const opened = await b.openAndRead();
    const before = opened.body.data.signerSession.business.name as string;
    const renamed = await page.api.gql(
      'mutation($i: BrandingInput!) { setBranding(input: $i) { displayName } }',
      { i: { displayName: 'Renamed While Open' } },
    );
    expect(renamed.errors).toBeUndefined();
    try {
      const started = await b.startAndRead();
      expect(started.status).toBe(200);
      expect(started.body.data.signerSession.business.name).toBe(before);
      // the polling read and a new open read the brand now; the answers after that open carry it
      const read = JSON.parse((await post(PAGE, id, cookieOf(b))).text);
      expect(read.data.signerSession.business.name).toBe('Renamed While Open');
      expect((await b.openAndRead()).body.data.signerSession.business.name).toBe('Renamed While Open');
      const done = await expectSameAsRead(await answerStep(b), id, b);
      expect(done).toMatchObject({ status: 'completed', business: { name: 'Renamed While Open' } });
    } finally {
      await page.api.gql('mutation($i: BrandingInput!) { setBranding(input: $i) { displayName } }', {
        i: { displayName: null },
      });
    }
  });

  it('a Start carrying the read from a browser that never opened the link answers for the cookie it issues', async () => {
    const id = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    const started = await b.startAndRead();
    expect(started.setCookie).toMatch(/^svc_browser=/);
    expect(await expectSameAsRead(started, id, b)).toMatchObject({ binding: 'this_browser' });
    // another browser's Start: refused as without the read
    const other = new SignerClient(t.baseUrl, id);
    await other.open();
    const elsewhere = await other.startAndRead();
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe('session_bound_elsewhere');
  });

  it('two Starts of one browser at once: both answer the persisted state, the loser too', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await newSession();
      const b = new SignerClient(t.baseUrl, id);
      await b.open();
      const both = await Promise.all([b.startAndRead(), b.startAndRead(), b.startAndRead()]);
      const read = JSON.parse((await post(PAGE, id, cookieOf(b))).text);
      for (const r of both) {
        expect(r.status).toBe(200);
        expect(comparable(JSON.stringify(r.body))).toBe(comparable(JSON.stringify(read)));
      }
      expect(read.data.signerSession).toMatchObject({ status: 'in_progress', binding: 'this_browser' });
    }
  });

  it('Start and the wallet response refuse a read that is not the page’s read of this session, writing nothing', async () => {
    const id = await newSession();
    const otherId = await newSession();
    const b = new SignerClient(t.baseUrl, id);
    await b.open();
    for (const body of [
      signerReadBody(otherId),
      { ...signerReadBody(id), operationName: 'X' },
      { read: true },
    ]) {
      const r = await b.call('POST', '/start', body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('validation_failed');
    }
    // nothing was written: still created, no `started` on the timeline, and the browser is bound to nothing
    const before = JSON.parse((await post(PAGE, id, cookieOf(b))).text).data.signerSession;
    expect(before).toMatchObject({ status: 'created', binding: 'none' });
    const started = (await t.svc.ds.query('SELECT started_at FROM session WHERE id = ?', [id])) as {
      started_at: unknown;
    }[];
    expect(started[0]?.started_at).toBeNull();

    expect((await b.start()).status).toBe(200);
    const wr = await b.rawWalletRequest();
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    for (const read of [signerReadBody(otherId), { ...signerReadBody(id), query: '{ __typename }' }, 'x']) {
      const r = await b.call('POST', '/wallet-response', { request_id: wr.body.request_id, response, read });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'validation_failed', param: 'read' });
    }
    // the request is still open and the session still running: the same answer, without a read, completes it
    const after = JSON.parse((await post(PAGE, id, cookieOf(b))).text).data.signerSession;
    expect(after).toMatchObject({ status: 'in_progress', triesLeft: null });
    const plain = await b.submit(wr.body.request_id, response);
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ status: 'completed', current_stage: 1 });
  });
});
