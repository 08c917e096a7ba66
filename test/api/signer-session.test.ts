// The signer page's GraphQL read (issue 21 item 6, ADR 0041), as a browser without a browser: a cookie jar and
// fetch. The read is authorised by the binding cookie the page gets on opening its link (POST
// /t/sessions/{id}/open), exactly as the /t routes decide "this browser": without that cookie, with a forged
// one, or for a link that does not exist it answers not_found like /t; another browser sees the session but
// gets nothing to act with; and field for field it is what GET /t/sessions/{id} answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient } from '../support/signer';

const SESSION_FIELDS = `id status environment business { name accentColor logoUrl } workflowName
  steps { stage primitive claims threshold terms termsSha256 documents { position label sha256 size contentType } }
  currentStage completedStages expires deadline deadlineKind serverTime binding returnUrl triesLeft
  walletRequests { transport protocol path } sandboxPersonas { id label description }`;

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
  async read(sessionId = this.sessionId): Promise<{ data?: Json; errors?: Json[] }> {
    const res = await fetch(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(this.cookie ? { Cookie: this.cookie } : {}) },
      body: JSON.stringify({
        query: `query($id: ID!) { signerSession(sessionId: $id) { ${SESSION_FIELDS} } }`,
        variables: { id: sessionId },
      }),
    });
    return (await res.json()) as { data?: Json; errors?: Json[] };
  }
  /** The same browser on the /t routes (its cookie jar shared). */
  transport(): SignerClient {
    const c = new SignerClient(this.baseUrl, this.sessionId);
    (c as unknown as { cookie: string }).cookie = this.cookie;
    return c;
  }
}

/** GET /t/sessions/{id}'s projection in the schema's words, as the page used to map it. */
const asSchema = (p: Json) => ({
  id: p.id,
  status: p.status,
  environment: p.environment,
  business: {
    name: p.business.name,
    accentColor: p.business.accent_color ?? null,
    logoUrl: p.business.logo_url ?? null,
  },
  workflowName: p.workflow.name,
  steps: p.steps.map((s: Json) => ({
    stage: s.stage,
    primitive: s.primitive,
    claims: s.claims ?? null,
    threshold: s.threshold ?? null,
    terms: s.terms ?? null,
    termsSha256: s.terms_sha256 ?? null,
    documents: s.documents ?? null,
  })),
  currentStage: p.current_stage,
  completedStages: p.completed_stages,
  expires: p.expires,
  deadline: p.deadline ?? null,
  deadlineKind: p.deadline_kind ?? null,
  binding: p.binding,
  returnUrl: p.return_url ?? null,
  triesLeft: p.tries_left ?? null,
});

describe('the signer page reads its session over GraphQL, authorised by the binding cookie', () => {
  let t: TestService;
  let api: Api;
  let workflowId: string;
  const newSession = async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  beforeAll(async () => {
    t = await startTestService({ label: 'signer_gql', workers: false });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId } = await setUpIdentifyWorkflow(api, 'http://127.0.0.1:9/hooks'));
  });
  afterAll(async () => t?.stop());

  it('refuses a browser without the cookie, with a forged one, and a link that does not exist (not_found)', async () => {
    const id = await newSession();
    const b = new Browser(t.baseUrl, id);
    const none = await b.read();
    expect(none.data).toBeNull();
    expect(none.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });

    b.cookie = `svc_browser=${'A'.repeat(43)}.${'B'.repeat(43)}`; // the right shape, not issued by the service
    expect((await b.read()).errors?.[0]?.extensions?.code).toBe('not_found');

    b.cookie = '';
    expect(await b.open()).toBe(204);
    expect(b.cookie).toMatch(/^svc_browser=/);
    expect((await b.read()).data.signerSession.id).toBe(id);
    // an unknown link with a valid cookie: the same not_found as /t
    const unknown = await b.read('sess_doesnotexist000000000000');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('not_found');
    const viaT = new SignerClient(t.baseUrl, 'sess_doesnotexist000000000000');
    (viaT as unknown as { cookie: string }).cookie = b.cookie;
    expect((await viaT.projection()).body.code).toBe('not_found');
  });

  it('answers what GET /t/sessions/{id} answers, field for field, before and after Start', async () => {
    const id = await newSession();
    const b = new Browser(t.baseUrl, id);
    await b.open();
    const before = (await b.read()).data.signerSession;
    const tBefore = (await b.transport().projection()).body;
    expect(before).toMatchObject(asSchema(tBefore));
    expect(before).toMatchObject({
      status: 'created',
      binding: 'none',
      walletRequests: [],
      sandboxPersonas: [],
    });

    const started = await b.transport().start();
    expect(started.status).toBe(200);
    const after = (await b.read()).data.signerSession;
    expect(after).toMatchObject(asSchema((await b.transport().projection()).body));
    expect(after).toMatchObject({ status: 'in_progress', binding: 'this_browser', deadlineKind: 'step' });
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
    }
    const request = await b.transport().rawWalletRequest();
    expect(after.sandboxPersonas).toEqual(request.body.sandbox_personas);
    expect(after.sandboxPersonas.map((p: Json) => p.id)).toContain('adult');
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
    const seen = (await other.read(id)).data.signerSession;
    expect(seen).toMatchObject({ id, status: 'in_progress', binding: 'other_browser' });
    expect(seen.walletRequests).toEqual([]);
    expect(seen.sandboxPersonas).toEqual([]);
    // and the /t route it would act on refuses it as before
    const viaOther = new SignerClient(t.baseUrl, id);
    (viaOther as unknown as { cookie: string }).cookie = other.cookie;
    expect((await viaOther.rawWalletRequest()).body.code).toBe('session_bound_elsewhere');
  });
});
