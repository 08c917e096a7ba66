// The signer page's GraphQL read (issue 21 item 6, ADR 0041), as a browser without a browser: a cookie jar and
// fetch. The read is authorised by the binding cookie the page gets on opening its link (POST
// /t/sessions/{id}/open), exactly as the /t routes decide "this browser": without that cookie, with a forged
// one, or for a link that does not exist it answers not_found like /t; another browser sees the session but
// gets nothing to act with; every field is what the session holds (the /v1 read, the workflow, the stored
// step window), before and after Start, and the /t acks agree with it. It is the page's only read of its
// session (ADR 0043: GET /t/sessions/{id} is gone).
import { beforeAll, describe, expect, it } from 'vitest';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { AnyWalletRequestSchema } from '../../server/src/modules/signer/signer.contract';
import { type Api, IDENTIFY_CLAIMS, type Json, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { readSignerSession, SignerClient } from '../support/signer';

/** A browser: its cookie jar, opening the link, the GraphQL read, and the /t routes (SignerClient). */
class Browser {
  cookie = '';
  constructor(
    readonly baseUrl: string,
    readonly sessionId: string,
  ) {}
  async open(): Promise<number> {
    const res = await fetch(`${this.baseUrl}/t/sessions/${this.sessionId}/open`, {
      method: 'POST',
      headers: this.cookie ? { Cookie: this.cookie } : {},
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] as string;
    return res.status;
  }
  /** The page's GraphQL read (test/support/signer.ts) with this browser's cookie. */
  read(sessionId = this.sessionId): Promise<{ status: number; body: Json }> {
    return readSignerSession(this.baseUrl, sessionId, this.cookie);
  }
  /** The same browser on the /t routes (its cookie jar shared). */
  transport(): SignerClient {
    const c = new SignerClient(this.baseUrl, this.sessionId);
    (c as unknown as { cookie: string }).cookie = this.cookie;
    return c;
  }
}

describe('the signer page reads its session over GraphQL, authorised by the binding cookie', () => {
  const page = identifyFixture({ label: 'signer_gql', workers: false });
  const newSession = page.newSession;
  let t: TestService;
  let api: Api;
  beforeAll(() => ({ t, api } = page));

  it('refuses a browser without the cookie, with a forged one, and a link that does not exist (not_found)', async () => {
    const id = await newSession();
    const b = new Browser(t.baseUrl, id);
    const none = await b.read();
    expect(none.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
    expect(none.body.errors).toHaveLength(1);

    b.cookie = `svc_browser=${'A'.repeat(43)}.${'B'.repeat(43)}`; // the right shape, not issued by the service
    expect((await b.read()).body.code).toBe('not_found');

    b.cookie = '';
    expect(await b.open()).toBe(204);
    expect(b.cookie).toMatch(/^svc_browser=/);
    expect((await b.read()).body.id).toBe(id);
    // an unknown link with a valid cookie: the same not_found as /t
    const unknown = await b.read('sess_doesnotexist000000000000');
    expect(unknown.body.code).toBe('not_found');
    // and opening it: not_found too
    const viaT = new SignerClient(t.baseUrl, 'sess_doesnotexist000000000000');
    (viaT as unknown as { cookie: string }).cookie = b.cookie;
    expect((await viaT.open()).body.code).toBe('not_found');
    // the read the tests and the page use (test/support/signer.ts) answers the same refusal
    expect((await viaT.session()).body.code).toBe('not_found');
  });

  it('answers every field from what the session holds, before and after Start; the Start ack agrees', async () => {
    const id = await newSession();
    const v1 = (await api.rest('GET', `/v1/sessions/${id}`)).body;
    const b = new Browser(t.baseUrl, id);
    await b.open();
    const asked = Date.now();
    const before = (await b.read()).body;
    const steps = [
      {
        stage: 0,
        primitive: 'identify',
        claims: IDENTIFY_CLAIMS,
        threshold: null,
        terms: null,
        termsSha256: null,
        documents: null,
      },
    ];
    const common = {
      id,
      ended: false,
      environment: 'sandbox',
      business: { name: 'Acme GmbH', accentColor: null, logoUrl: null },
      workflowName: 'KYC identify',
      steps,
      expires: v1.expires,
      returnUrl: null,
      triesLeft: null,
      failure: null,
    };
    expect(before).toEqual({
      ...common,
      status: 'created',
      currentStage: 0,
      completedStages: [],
      deadline: v1.expires,
      deadlineKind: 'link',
      serverTime: expect.any(String),
      binding: 'none',
      walletRequests: [],
      sandboxPersonas: [],
    });
    expect(Math.abs(Date.parse(before.serverTime) - asked)).toBeLessThan(30_000);

    const started = await b.transport().start();
    expect([started.status, started.body]).toEqual([200, { status: 'in_progress', current_stage: 0 }]);
    const after = (await b.read()).body;
    const row = await t.svc.ds.getRepository(SessionEntity).findOneByOrFail({ id });
    expect(after).toEqual({
      ...common,
      status: started.body.status,
      currentStage: started.body.current_stage,
      completedStages: [],
      deadline: row.stepExpiresAt?.toISOString(),
      deadlineKind: 'step',
      serverTime: expect.any(String),
      binding: 'this_browser',
      walletRequests: expect.any(Array),
      sandboxPersonas: expect.any(Array),
    });
    expect((await api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe(after.status);
    // the running identify step: every transport the /t routes answer, Annex C included (an mdoc can answer)
    expect(after.walletRequests.map((w: Json) => w.transport)).toEqual([
      'dc_api',
      'dc_api_signed',
      'org_iso_mdoc',
      'cross_device',
    ]);
    // the offers are the page's real routes, and the persons the same that route's request lists
    for (const offer of after.walletRequests) {
      const res = await b.transport().call('POST', offer.path.replace(`/t/sessions/${id}`, ''));
      expect(res.status, offer.transport).toBe(200);
      expect(res.body.protocol ?? 'openid4vp').toBe(offer.protocol);
      // and each answer is what its contract (and so the page's generated type) says
      const parsed = AnyWalletRequestSchema.safeParse(res.body);
      expect(parsed.error, offer.transport).toBeUndefined();
    }
    const request = await b.transport().rawWalletRequest();
    expect(after.sandboxPersonas).toEqual(request.body.sandbox_personas);
    expect(after.sandboxPersonas.map((p: Json) => p.id)).toContain('adult');

    // a second session of the same workflow (the step's offers are cached per revision) gets its own paths
    const second = await newSession();
    const b2 = new Browser(t.baseUrl, second);
    await b2.open();
    expect((await b2.transport().start()).status).toBe(200);
    const offers2 = (await b2.read()).body.walletRequests as Json[];
    expect(offers2).toHaveLength(after.walletRequests.length);
    for (const offer of offers2)
      expect(offer.path).toMatch(new RegExp(`^/t/sessions/${second}/wallet-request`));
  });

  it('counts the tries a refused answer leaves on the next read (the read model counts the running step only)', async () => {
    const id = await newSession();
    const b = new Browser(t.baseUrl, id);
    await b.open();
    const c = b.transport();
    expect((await c.start()).status).toBe(200);
    expect((await b.read()).body.triesLeft).toBeNull();
    for (const left of [4, 3]) {
      const wr = await c.rawWalletRequest();
      expect(wr.status).toBe(200);
      const refused = await c.submit(wr.body.request_id as string, { vp_token: 'not a presentation' });
      expect(refused.status).toBe(422);
      const read = (await b.read()).body;
      expect([read.status, read.currentStage, read.triesLeft]).toEqual(['in_progress', 0, left]);
    }
  });

  it('another browser (bound to another session) sees the session but gets nothing to act with', async () => {
    const id = await newSession();
    const owner = new Browser(t.baseUrl, id);
    await owner.open();
    await owner.transport().start();

    const otherId = await newSession();
    const other = new Browser(t.baseUrl, otherId);
    await other.open();
    await other.transport().start(); // this cookie is bound to its own session
    const seen = (await other.read(id)).body;
    expect(seen).toMatchObject({ id, status: 'in_progress', binding: 'other_browser' });
    expect(seen.walletRequests).toEqual([]);
    expect(seen.sandboxPersonas).toEqual([]);
    // and the /t route it would act on refuses it as before
    const viaOther = new SignerClient(t.baseUrl, id);
    (viaOther as unknown as { cookie: string }).cookie = other.cookie;
    expect((await viaOther.rawWalletRequest()).body.code).toBe('session_bound_elsewhere');
  });

  it('says the session ended once the business stops it: the machine decides, no deadline is left', async () => {
    const id = await newSession();
    const b = new Browser(t.baseUrl, id);
    await b.open();
    await b.transport().start();
    expect((await b.read()).body).toMatchObject({ status: 'in_progress', ended: false });
    // the dashboard's read says the same from the same machine: running, and it can still expire
    const asBusiness = async () =>
      (await api.gql('query($id: ID!) { session(id: $id) { status ended expiring } }', { id })).data?.session;
    expect(await asBusiness()).toEqual({ status: 'in_progress', ended: false, expiring: true });
    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
    expect(await asBusiness()).toEqual({ status: 'stopped', ended: true, expiring: false });
    expect((await b.read()).body).toMatchObject({
      status: 'stopped',
      ended: true,
      deadline: null,
      deadlineKind: null,
    });
  });
});
