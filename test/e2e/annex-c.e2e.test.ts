// The hosted page's Digital Credentials API call in real Chromium, Annex C branch: a production session (an
// operator accepted the mdoc route and trusts the test IACA in production), a browser whose
// `navigator.credentials.get` is faked at the edge: it records the requests the page made and answers the
// org-iso-mdoc one with what the independent wallet (test/support/independent-wallet) produces for exactly that
// request, as a Safari/Apple Wallet would. The page must ask ONCE with both protocols where the browser allows
// both (Chrome-like), only Annex C where the browser allows only that (Safari-like), and submit the answer to
// the request of the protocol that answered.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { MdocTrustStore } from '../../server/src/modules/verification/mdoc/mdoc-trust';
import { MdocTrustAnchorEntity } from '../../server/src/modules/verification/mdoc/mdoc-trust-anchor.entity';
import { axeFindings } from '../support/axe';
import { startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, type Json, type TestService } from '../support/harness';
import { type AnnexCRequest, AnnexCWallet } from '../support/independent-wallet/annex-c-wallet';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

// Screenshots at 390 and 1280 px into ANNEX_C_SHOTS_DIR when set (the axe check runs always).
const SHOTS = process.env.ANNEX_C_SHOTS_DIR;
async function shoot(page: Page, name: string): Promise<void> {
  expect(await axeFindings(page), `axe on ${name}`).toEqual([]);
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
}

interface AskedRequest {
  protocol: string;
  data: Json;
}

describe('hosted page: one Digital Credentials API call with OpenID4VP and org-iso-mdoc (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let production: Api;
  let sandbox: Api;
  let wallet: AnnexCWallet;
  const workflows: Record<string, string> = {};
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_annex_c', receiver));
    const biz = await createBusiness(t);
    production = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(biz.businessId, 'production')).key);
    sandbox = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: workflows.sandbox_identify } = await publishWorkflow(
      sandbox,
      [{ primitive: 'identify', claims: ['given_name', 'family_name'] }],
      'https://8.8.8.8/hooks',
    ));
    // Operators: accept the mdoc route for production and trust the (test) IACA there for its doctypes.
    await t.svc.catalog.setAcceptance('rte_google_us_mdl', { provider: true, issuer: true, service: true });
    const anchors = await t.svc.ds.getRepository(MdocTrustAnchorEntity).findBy({ environment: 'sandbox' });
    await new MdocTrustStore(t.svc.ds).register({
      environment: 'production',
      routeId: 'rte_google_us_mdl', // trust belongs to a route (ADR 0036)
      doctypes: anchors.map((a) => a.doctype),
      name: 'Test IACA (accepted for this test)',
      certificatePem: anchors[0]?.certificatePem as string,
      now: new Date(),
    });
    ({ workflowId: workflows.identify } = await publishWorkflow(
      production,
      [{ primitive: 'identify', claims: ['given_name', 'family_name'] }],
      'https://8.8.8.8/hooks',
    ));
    ({ workflowId: workflows.age_verify } = await publishWorkflow(production, [
      { primitive: 'age_verify', threshold: 18 },
    ]));
    ({ workflowId: workflows.age_100 } = await publishWorkflow(production, [
      { primitive: 'age_verify', threshold: 100 },
    ]));
    const devicePrivateJwk = (await loadSandboxKey(t.svc.ds, 'holder', 'adult')).privateJwk as JsonWebKey;
    const rows = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findBy({ persona: 'adult', format: 'mso_mdoc' });
    wallet = new AnnexCWallet(rows.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk })));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  /** A page whose browser allows `allowed` protocols and whose device wallet answers Annex C only. */
  async function pageWithWallet(
    allowed: string[],
    locale = 'en-GB',
  ): Promise<{ page: Page; asked: AskedRequest[][] }> {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    const asked: AskedRequest[][] = [];
    await page.exposeFunction('__deviceWallet', async (requests: AskedRequest[]) => {
      asked.push(requests);
      const iso = requests.find((r) => r.protocol === 'org-iso-mdoc');
      if (!iso) return null;
      const origin = new URL(t.baseUrl).origin;
      return {
        protocol: 'org-iso-mdoc',
        data: await wallet.answer(iso.data as unknown as AnnexCRequest, origin),
      };
    });
    await page.addInitScript((allowedProtocols: string[]) => {
      const w = window as unknown as Record<string, unknown>;
      w.DigitalCredential = { userAgentAllowsProtocol: (p: string) => allowedProtocols.includes(p) };
      const call = w.__deviceWallet as (r: unknown) => Promise<{ protocol: string; data: unknown } | null>;
      navigator.credentials.get = async (options?: CredentialRequestOptions) => {
        const requests = (options as unknown as { digital: { requests: unknown } }).digital.requests;
        const answer = await call(JSON.parse(JSON.stringify(requests)));
        if (!answer) throw new DOMException('no wallet', 'NotAllowedError');
        return answer as unknown as Credential;
      };
    }, allowed);
    return { page, asked };
  }

  async function runSession(workflow: string, allowed: string[], locale = 'en-GB') {
    const created = await production.rest('POST', '/v1/sessions', { workflow_id: workflows[workflow] });
    expect(created.status).toBe(201);
    const { page, asked } = await pageWithWallet(allowed, locale);
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('share-browser-wallet').waitFor();
    await shoot(page, `annex-c-${workflow}-wallet-step-${locale}`);
    await page.getByTestId('share-browser-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    await shoot(page, `annex-c-${workflow}-done-${locale}`);
    await page.context().close();
    return { id: created.body.id as string, asked };
  }

  it('Chrome-like browser: one call with both requests; the Annex C answer completes identify', async () => {
    const { id, asked } = await runSession('identify', ['openid4vp-v1-signed', 'org-iso-mdoc']);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.map((r) => r.protocol)).toEqual(['openid4vp-v1-signed', 'org-iso-mdoc']);
    expect(Object.keys(asked[0]?.[1]?.data ?? {}).sort()).toEqual(['deviceRequest', 'encryptionInfo']);
    const read = await production.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results[0].claims).toEqual({ given_name: 'Erika', family_name: 'Mustermann' });
    const audit = await production.rest('GET', `/v1/audits/${id}_0`);
    expect(JSON.stringify(audit.body)).toContain('"protocol":"org-iso-mdoc"');
  });

  it('Safari-like browser (org-iso-mdoc only): asks with Annex C alone and completes age_verify', async () => {
    const { id, asked } = await runSession('age_verify', ['org-iso-mdoc'], 'de-DE');
    expect(asked.map((call) => call.map((r) => r.protocol))).toEqual([['org-iso-mdoc']]);
    const read = await production.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results[0]).toMatchObject({ over: true, threshold: 18 });
  });

  it('a step no mdoc can answer (age_verify 100): the page asks with OpenID4VP alone', async () => {
    const created = await production.rest('POST', '/v1/sessions', { workflow_id: workflows.age_100 });
    expect(created.status).toBe(201);
    const { page, asked } = await pageWithWallet(['openid4vp-v1-signed', 'org-iso-mdoc']);
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('share-browser-wallet').click();
    // this device wallet answers Annex C only, so the person sees the page's "cancelled" message
    await page.getByRole('alert').waitFor({ timeout: 20_000 });
    expect(asked.map((call) => call.map((r) => r.protocol))).toEqual([['openid4vp-v1-signed']]);
    await page.context().close();
  });

  it('sandbox page without the DC API: the reference wallet answers over Annex C (org-iso-mdoc)', async () => {
    for (const locale of ['en-GB', 'de-DE']) {
      const created = await sandbox.rest('POST', '/v1/sessions', { workflow_id: workflows.sandbox_identify });
      expect(created.status).toBe(201);
      const context = await browser.newContext({ locale });
      const page = await context.newPage();
      // a browser without the Digital Credentials API (Firefox today): no DigitalCredential
      await page.addInitScript(() => {
        delete (window as unknown as Record<string, unknown>).DigitalCredential;
      });
      const submitted: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && /\/wallet-request(\/|$)/.test(r.url())) submitted.push(r.url());
      });
      await page.goto(created.body.url);
      await page.getByTestId('start').click();
      await page.getByTestId('share-wallet').click();
      await page.getByTestId('persona').selectOption('adult_mdoc');
      await page.getByTestId('sandbox-protocol').selectOption('org-iso-mdoc');
      expect(await page.getByTestId('share-browser-wallet').count()).toBe(0);
      await shoot(page, `annex-c-sandbox-wallet-${locale}`);
      await page.getByTestId('share-reference-wallet').click();
      await page.getByTestId('done').waitFor({ timeout: 20_000 });
      await shoot(page, `annex-c-sandbox-done-${locale}`);
      await context.close();
      expect(submitted.some((u) => u.endsWith('/wallet-request/org_iso_mdoc'))).toBe(true);
      const read = await sandbox.rest('GET', `/v1/sessions/${created.body.id}`);
      expect(read.body.status).toBe('completed');
      expect(read.body.results[0].claims).toEqual({ given_name: 'Erika', family_name: 'Mustermann' });
      const audit = await sandbox.rest('GET', `/v1/audits/${created.body.id}_0`);
      expect(JSON.stringify(audit.body)).toContain('"protocol":"org-iso-mdoc"');
    }
  });
});
