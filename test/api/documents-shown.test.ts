// Issue 17 (ADR 0029), as an integrator and the signer's browser observe it over HTTP: the wallet request of
// a sign step is refused (409 documents_not_shown) until the bound browser has reported every document as
// shown to its end; the report is recorded once per document in the session timeline
// (document_shown_to_end, never "read") and in the step's signed audit record; and the page's session read
// carries the deadline of what the person is doing now (the step window once a step has started).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow, textPart } from '../support/sign-workflow';
import { SignerClient, startedSession } from '../support/signer';
import { multiPagePdf, publishWorkflow } from '../support/workflows';

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const TIMELINE = `query($id: ID!) { sessionTimeline(id: $id) { entries { at kind stage code detail } } }`;
const MIN = 60_000;

describe('sign documents shown to the end before the wallet is asked', () => {
  const clock = new ManualClock(Date.parse('2030-05-02T09:00:00.000Z'));
  let t: TestService;
  let api: Api;
  let signWf: string;
  let identifyWf: string;
  const contract = multiPagePdf('Loan contract', 3);
  const terms = 'General terms.\nLine two.\n';

  beforeAll(async () => {
    t = await startTestService({ label: 'documents_shown', clock, workers: false });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId: signWf } = await setUpSignWorkflow(api, {
      documents: 2,
      webhookUrl: 'http://127.0.0.1:9/hooks',
    }));
    ({ workflowId: identifyWf } = await publishWorkflow(api, [
      { primitive: 'identify', claims: ['given_name'] },
    ]));
  });
  afterAll(async () => t?.stop());

  const createSign = () =>
    createSignSession(api, signWf, [pdfPart('Loan contract.pdf', contract), textPart('Terms.txt', terms)], {
      expires_in: '3600',
    });

  it('refuses the wallet request until every document was shown, then records the fact', async () => {
    const { id, signer } = await startedSession(t.baseUrl, await createSign());

    // nothing shown yet: no wallet request of any transport
    const before = await signer.rawWalletRequest();
    expect(before.status).toBe(409);
    expect(before.body.code).toBe('documents_not_shown');
    expect((await signer.call('POST', '/wallet-request/cross_device')).body.code).toBe('documents_not_shown');

    // one of two is not enough; a repeated report changes nothing
    expect((await signer.documentShown(0)).body).toEqual({ shown_to_end: [0], all_shown: false });
    expect((await signer.documentShown(0)).body).toEqual({ shown_to_end: [0], all_shown: false });
    expect((await signer.rawWalletRequest()).body.code).toBe('documents_not_shown');
    // the page's read remembers it (a reload does not ask to scroll again, issue 29)
    const docs = (await signer.session()).body.steps[0].documents as Json[];
    expect(docs.map((d) => [d.position, d.shownToEnd])).toEqual([
      [0, true],
      [1, false],
    ]);

    // only the bound browser can report, and only documents of this step
    const other = new SignerClient(t.baseUrl, id);
    await other.open();
    expect((await other.documentShown(1)).body.code).toBe('session_bound_elsewhere');
    const unknown = await signer.documentShown(7);
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);

    clock.advance(MIN);
    expect((await signer.documentShown(1)).body).toEqual({ shown_to_end: [0, 1], all_shown: true });
    const wr = await signer.rawWalletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
    });
    const done = await signer.submit(wr.body.request_id, response);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');

    // the timeline says "shown to the end", once per document, with its hash; nothing says "read"
    const entries = (await api.gql(TIMELINE, { id })).data.sessionTimeline.entries as Json[];
    const shown = entries.filter((e) => e.kind === 'document_shown_to_end');
    expect(shown.map((e) => [e.stage, e.detail])).toEqual([
      [0, { position: 0, sha256: sha256(contract) }],
      [0, { position: 1, sha256: sha256(terms) }],
    ]);
    expect(entries.some((e) => /read/.test(e.kind))).toBe(false);
    const kinds = entries.map((e) => e.kind);
    expect(kinds.lastIndexOf('document_shown_to_end')).toBeLessThan(kinds.indexOf('wallet_request'));

    // the signed audit record of the step carries the same facts, with when each was shown
    const session = await api.rest('GET', `/v1/sessions/${id}`);
    const auditId = session.body.results[0].audit_id as string;
    const audit = await api.rest('GET', `/v1/audits/${auditId}`);
    expect(audit.status).toBe(200);
    expect(audit.body.verification.documents_shown_to_end).toEqual([
      { position: 0, sha256: sha256(contract), at: '2030-05-02T09:00:00.000Z' },
      { position: 1, sha256: sha256(terms), at: '2030-05-02T09:01:00.000Z' },
    ]);
  });

  it('refuses a report before Start and on a step without documents', async () => {
    const created = await createSign();
    const early = new SignerClient(t.baseUrl, created.body.id);
    await early.open();
    expect((await early.documentShown(0)).body.code).toBe('session_state_conflict');

    const { signer } = await startedSession(
      t.baseUrl,
      await api.rest('POST', '/v1/sessions', { workflow_id: identifyWf }),
    );
    expect((await signer.documentShown(0)).status).toBe(404);
    expect((await signer.rawWalletRequest()).status).toBe(200);
  });

  it('the projection carries the deadline of what the person is doing now', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identifyWf, expires_in: 3600 });
    const now = clock.now().getTime();
    const signer = new SignerClient(t.baseUrl, created.body.id);
    const before = (await signer.session()).body;
    expect(before).toMatchObject({
      deadline: new Date(now + 60 * MIN).toISOString(),
      deadlineKind: 'link',
      serverTime: new Date(now).toISOString(),
    });

    clock.advance(2 * MIN);
    expect((await signer.start()).body).toEqual({ status: 'in_progress', current_stage: 0 });
    const started = (await signer.session()).body;
    // the identify window (10 minutes) from Start, earlier than the link's expiry
    expect(started).toMatchObject({
      status: 'in_progress',
      deadline: new Date(now + 12 * MIN).toISOString(),
      deadlineKind: 'step',
      serverTime: new Date(now + 2 * MIN).toISOString(),
    });
    expect(started.expires).toBe(new Date(now + 60 * MIN).toISOString());

    // past the step window: expired, and no deadline to show any more
    clock.advance(11 * MIN);
    const ended = (await signer.session()).body;
    expect(ended.status).toBe('expired');
    expect(ended.deadline).toBeNull();
    expect(ended.deadlineKind).toBeNull();
  });
});
