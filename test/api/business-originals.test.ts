// The business's download of a session's signed originals (issue 20, dashboard), over real HTTP on MariaDB:
// a sign step completed by the reference wallet, the originals listed on the dashboard's session detail
// (sessionTimeline.originals) and downloaded with the dashboard cookie as a plain link (environment in the
// query): the exact bytes, the original filename as an attachment; another business, the other environment
// and a request without cookie get nothing.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Api,
  createBusiness,
  type DashboardCredentials,
  type Json,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerBrowser } from '../support/receipts';
import { createSignSession, pdfPart, setUpSignWorkflow, textPart } from '../support/sign-workflow';
import { shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const DETAIL = `query($id: ID!) { sessionTimeline(id: $id) {
  session { id environment } originals { position stage name mediaType size sha256 url } } }`;

describe('signed originals for the business (dashboard)', () => {
  let t: TestService;
  let api: Api;
  let owner: DashboardCredentials;
  let other: DashboardCredentials;
  let sessionId: string;
  let businessId: string;
  const receiver = new WebhookReceiver();
  const contract = minimalPdf('Kaufvertrag Nr. 12');
  const annex = 'Anlage B: Übergabeprotokoll\n';

  const download = (p: string, cookie?: string) =>
    fetch(`${t.baseUrl}${p}`, { headers: cookie ? { Cookie: cookie } : {} });

  beforeAll(async () => {
    t = await startTestService({ label: 'business-originals', workers: false });
    await receiver.start();
    const biz = await createBusiness(t, 'Originals GmbH');
    api = new Api(t.baseUrl, biz.apiKey);
    businessId = biz.businessId;
    owner = biz.dashboard;
    other = (await createBusiness(t, 'Someone Else Ltd')).dashboard;
    const { workflowId } = await setUpSignWorkflow(api, {
      documents: 2,
      webhookUrl: receiver.url,
      name: 'Sign',
    });
    const created = await createSignSession(api, workflowId, [
      pdfPart('Kaufvertrag Müller.pdf', contract),
      textPart('Anlage B.txt', annex),
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    sessionId = created.body.id;
    const b = new SignerBrowser(t.baseUrl, sessionId);
    await b.start();
    expect((await shareWithReferenceWallet(t.svc, b.client)).status).toBe(200);
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.stop();
  });

  it('lists the originals on the session detail and downloads their exact bytes as attachments', async () => {
    const got = await api.gql(DETAIL, { id: sessionId });
    expect(got.errors).toBeUndefined();
    const originals = got.data?.sessionTimeline.originals as Json[];
    expect(originals).toEqual([
      {
        position: 0,
        stage: 0,
        name: 'Kaufvertrag Müller.pdf',
        mediaType: 'application/pdf',
        size: contract.length,
        sha256: sha256Hex(contract),
        url: `/business/sessions/${sessionId}/originals/0?environment=sandbox`,
      },
      {
        position: 1,
        stage: 0,
        name: 'Anlage B.txt',
        mediaType: 'text/plain',
        size: Buffer.byteLength(annex),
        sha256: sha256Hex(annex),
        url: `/business/sessions/${sessionId}/originals/1?environment=sandbox`,
      },
    ]);
    for (const o of originals) {
      const res = await download(o.url, owner.cookie);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(sha256Hex(bytes)).toBe(o.sha256);
      expect(res.headers.get('content-type')).toContain(o.mediaType);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const cd = res.headers.get('content-disposition') ?? '';
      expect(cd.startsWith('attachment;')).toBe(true);
      expect(cd).toContain(`filename*=UTF-8''${encodeURIComponent(o.name)}`);
    }
    expect((await download(originals[0].url, owner.cookie)).headers.get('content-disposition')).toContain(
      'filename="Kaufvertrag M_ller.pdf"',
    );
  });

  it('lets any role of the business download, a viewer included', async () => {
    const viewer = await t.svc.accounts.members.createUserDirect(
      businessId,
      'viewer@originals.test',
      'viewer',
      'test',
    );
    const signedIn = await t.svc.accounts.signIn.signInDirect(viewer.id);
    const res = await download(
      `/business/sessions/${sessionId}/originals/1?environment=sandbox`,
      `svc_dashboard=${signedIn.token}`,
    );
    expect(res.status).toBe(200);
    expect(sha256Hex(Buffer.from(await res.arrayBuffer()))).toBe(sha256Hex(annex));
  });

  it('gives nothing to another business, the other environment, no cookie or a bad position', async () => {
    const url = `/business/sessions/${sessionId}/originals/0`;
    const code = async (res: Response) => ((await res.json()) as Json).code;

    const foreign = await download(`${url}?environment=sandbox`, other.cookie);
    expect(foreign.status).toBe(404);
    expect(await code(foreign)).toBe('not_found');

    const production = await download(`${url}?environment=production`, owner.cookie);
    expect(production.status).toBe(404);
    expect(await code(production)).toBe('not_found');

    const anonymous = await download(`${url}?environment=sandbox`);
    expect(anonymous.status).toBe(401);
    expect(await code(anonymous)).toBe('unauthenticated');

    // an API key is not a dashboard session
    const withKey = await fetch(`${t.baseUrl}${url}?environment=sandbox`, {
      headers: { Authorization: `Bearer ${api.apiKey}` },
    });
    expect(withKey.status).toBe(401);

    const badEnv = await download(`${url}?environment=staging`, owner.cookie);
    expect(badEnv.status).toBe(400);
    expect(await code(badEnv)).toBe('validation_failed');

    for (const p of ['2', 'abc'])
      expect((await download(`/business/sessions/${sessionId}/originals/${p}`, owner.cookie)).status).toBe(
        404,
      );

    // the list follows the same isolation: another business does not see the session
    const foreignList = await new Api(t.baseUrl, undefined, other).gql(DETAIL, { id: sessionId });
    expect(foreignList.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});
