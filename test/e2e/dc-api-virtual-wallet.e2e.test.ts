// The hosted page's own Digital Credentials API call in real Chromium, answered by Chromium's virtual wallet
// (CDP `DigitalCredentials.setVirtualWalletBehavior`, Chromium 156; issue 26, ADR 0049). Nothing of the page is
// faked: `navigator.credentials.get` is the browser's. A production session on the Apple route (accepted by the
// operator, trusting the test IACA, with a reader certificate imported for it), the page fetches its requests,
// the test reads them on the wire (request interception), the independent test wallet answers the chosen one
// (OpenID4VP signed, OpenID4VP unsigned, Annex C), the virtual wallet hands that answer back to the page with its
// protocol, and the session completes. Decline, wait and an answer over a protocol the page did not ask for show
// their words and leave the session usable. The Annex C request read on the wire carries readerAuthAll, checked
// with the independent wallet's own CBOR and node:crypto.
import type { Browser, CDPSession, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { MdocTrustStore } from '../../server/src/modules/verification/mdoc/mdoc-trust';
import { MdocTrustAnchorEntity } from '../../server/src/modules/verification/mdoc/mdoc-trust-anchor.entity';
import { axeFindings } from '../support/axe';
import { startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, type Json, type TestService } from '../support/harness';
import {
  type AnnexCRequest,
  AnnexCWallet,
  dcapiSessionTranscript,
} from '../support/independent-wallet/annex-c-wallet';
import { answerSignedDcApiMdoc } from '../support/independent-wallet/cross-device';
import { readReaderAuth } from '../support/independent-wallet/reader-auth';
import { makeTestCa, type TestCa } from '../support/test-ca';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const SIGNED = 'openid4vp-v1-signed';
const UNSIGNED = 'openid4vp-v1-unsigned';
const ANNEX_C = 'org-iso-mdoc';
const APPLE_ROUTE = 'rte_apple_us_mdl';

/** What the virtual wallet does with the next request: answer one protocol, decline, wait, or answer off-list. */
type Mode = typeof SIGNED | typeof UNSIGNED | typeof ANNEX_C | 'decline' | 'wait' | 'unasked';

interface Fetched {
  protocol: string;
  request: Json;
  request_id: string;
}

describe('hosted page + Chromium virtual wallet (CDP DigitalCredentials)', () => {
  let t: TestService;
  let browser: Browser;
  let production: Api;
  let sandbox: Api;
  let wallet: AnnexCWallet;
  let appleWallet: AnnexCWallet;
  let rootPem: string;
  let origin: string;
  let ca: TestCa;
  const workflows: Record<string, string> = {};
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_dc_virtual', receiver));
    origin = new URL(t.baseUrl).origin;
    const biz = await createBusiness(t);
    production = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(biz.businessId, 'production')).key);
    sandbox = new Api(t.baseUrl, biz.apiKey);
    // Operators: accept the Apple route for production, trust the (test) IACA there, import its reader certificate.
    await t.svc.catalog.setAcceptance(APPLE_ROUTE, { provider: true, issuer: true, service: true });
    const anchors = await t.svc.ds.getRepository(MdocTrustAnchorEntity).findBy({ environment: 'sandbox' });
    await new MdocTrustStore(t.svc.ds).register({
      environment: 'production',
      routeId: APPLE_ROUTE,
      doctypes: anchors.map((a) => a.doctype),
      name: 'Test IACA (accepted for this test)',
      certificatePem: anchors[0]?.certificatePem as string,
      now: new Date(),
    });
    ca = makeTestCa('Test Apple Reader CA');
    const csr = await t.svc.readerCerts.csr('production');
    await t.svc.readerCerts.import({
      pem: ca.issue(csr.pem) + ca.intermediatePem + ca.rootPem,
      routeId: APPLE_ROUTE,
      environment: 'production',
    });
    ({ workflowId: workflows.identify } = await publishWorkflow(
      production,
      [{ primitive: 'identify', claims: ['given_name', 'family_name'] }],
      'https://8.8.8.8/hooks',
    ));
    ({ workflowId: workflows.sandbox_identify } = await publishWorkflow(
      sandbox,
      [{ primitive: 'identify', claims: ['given_name', 'family_name'] }],
      'https://8.8.8.8/hooks',
    ));
    ({ workflowId: workflows.age_verify } = await publishWorkflow(production, [
      { primitive: 'age_verify', threshold: 18 },
    ]));
    const devicePrivateJwk = (await loadSandboxKey(t.svc.ds, 'holder', 'adult')).privateJwk as JsonWebKey;
    const rows = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findBy({ persona: 'adult', format: 'mso_mdoc' });
    const held = rows.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk }));
    wallet = new AnnexCWallet(held);
    // on the Apple route the wallet behaves like Apple Wallet: Annex C only with a valid readerAuthAll
    appleWallet = new AnnexCWallet(held, { requireReaderAuth: true });
    rootPem = await (await fetch(`${t.baseUrl}/oid4vp/verifier-root.pem`)).text();
  });
  afterAll(async () => {
    ca?.remove();
    await stopE2E({ t, browser, receiver });
  });

  /** The independent wallet's answer `data` to one request the page fetched. */
  async function answerFor(f: Fetched, annexC: AnnexCWallet): Promise<Json> {
    if (f.protocol === ANNEX_C)
      return (await annexC.answer(f.request as unknown as AnnexCRequest, origin)) as Json;
    if (f.protocol === SIGNED)
      return answerSignedDcApiMdoc({
        jar: (f.request as { request: string }).request,
        verifierRootPem: rootPem,
        origin,
        wallet,
      });
    return wallet.answerOpenId4VpDcApi(f.request, origin) as unknown as Json;
  }

  /**
   * A page on a new session. Every wallet request the page fetches is read on the wire; when the one of the
   * chosen protocol arrives, the independent wallet answers it and the virtual wallet is told to hand that back
   * (the page calls navigator.credentials.get only after all its fetches). `allowSigned: false` makes the
   * browser say it does not allow the signed protocol (the page then asks unsigned).
   */
  async function openSession(workflow: string, mode: Mode, opts: { allowSigned?: boolean; api?: Api } = {}) {
    const created = await (opts.api ?? production).rest('POST', '/v1/sessions', {
      workflow_id: workflows[workflow],
    });
    expect(created.status).toBe(201);
    const context = await browser.newContext({ locale: 'en-GB' });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const state = { mode, fetched: [] as Fetched[], submitted: [] as string[] };
    if (opts.allowSigned === false)
      await page.addInitScript((signed: string) => {
        const dc = (
          window as unknown as { DigitalCredential: { userAgentAllowsProtocol(p: string): boolean } }
        ).DigitalCredential;
        const real = dc.userAgentAllowsProtocol.bind(dc);
        Object.defineProperty(dc, 'userAgentAllowsProtocol', {
          value: (p: string) => p !== signed && real(p),
        });
      }, SIGNED);
    await page.route(/\/wallet-request(\/[a-z_]+)?$/, async (route: Route) => {
      if (route.request().method() !== 'POST') return route.continue();
      const response = await route.fetch();
      const body = (await response.json()) as Fetched;
      // the cross-device request (QR code) is fetched too; only the Digital Credentials API ones go to the wallet
      if (!route.request().url().endsWith('/cross_device')) state.fetched.push(body);
      if (body.protocol === state.mode) {
        await virtualWallet(cdp, {
          action: 'respond',
          protocol: body.protocol,
          response: await answerFor(body, opts.api ? wallet : appleWallet),
        });
      }
      return route.fulfill({ response });
    });
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/wallet-response|\/responses?\//.test(r.url()))
        state.submitted.push(r.url());
    });
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('share-browser-wallet').waitFor();
    return { id: created.body.id as string, page, cdp, state };
  }

  const virtualWallet = (cdp: CDPSession, params: Record<string, unknown>) =>
    cdp.send('DigitalCredentials.setVirtualWalletBehavior' as never, params as never);

  async function expectCompleted(id: string) {
    const read = await production.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    return read.body;
  }

  async function finish(page: Page) {
    await page.getByTestId('share-browser-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 30_000 });
    expect(await axeFindings(page)).toEqual([]);
    await page.context().close();
  }

  it('the CDP domain is there: DigitalCredentials.setVirtualWalletBehavior with respond|decline|wait|clear', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    for (const action of ['decline', 'wait', 'clear'])
      await expect(virtualWallet(cdp, { action })).resolves.toEqual({});
    // respond needs protocol and response; the browser says so
    await expect(virtualWallet(cdp, { action: 'respond' })).rejects.toThrow(
      "Protocol and response required for 'respond' action",
    );
    await expect(virtualWallet(cdp, { action: 'decline', protocol: ANNEX_C })).rejects.toThrow(
      "Protocol and response are only allowed when action is 'respond'",
    );
    await expect(virtualWallet(cdp, { action: 'fly' })).rejects.toThrow('Unknown action');
    await context.close();
  });

  it('Annex C: the page asks once with signed OpenID4VP and org-iso-mdoc; the Annex C answer completes', async () => {
    const { id, page, state } = await openSession('identify', ANNEX_C);
    await finish(page);
    const asked = state.fetched.map((f) => f.protocol);
    expect(asked).toEqual([UNSIGNED, SIGNED, ANNEX_C]); // the unsigned one is fetched at "Share with wallet"
    const body = await expectCompleted(id);
    expect(body.results[0].claims).toEqual({ given_name: 'Erika', family_name: 'Mustermann' });
    const audit = await production.rest('GET', `/v1/audits/${id}_0`);
    expect(JSON.stringify(audit.body)).toContain('"protocol":"org-iso-mdoc"');
    // the Annex C request on the wire is signed by the Apple route's reader certificate (readerAuthAll)
    const iso = state.fetched.find((f) => f.protocol === ANNEX_C)?.request as unknown as AnnexCRequest;
    const read = readReaderAuth(iso.deviceRequest, dcapiSessionTranscript(iso.encryptionInfo, origin));
    expect(read.version).toBe('1.1');
    expect(read.readerAuthAll.map((s) => s.valid)).toEqual([true]);
    const leaf = Buffer.from(read.readerAuthAll[0]?.x5chain[0] as Uint8Array).toString('base64');
    expect(
      ca.verify(`-----BEGIN CERTIFICATE-----\n${leaf}\n-----END CERTIFICATE-----\n`, ca.intermediatePem),
    ).toMatch(/: OK/);
  });

  it('OpenID4VP signed (dc_api.jwt): the virtual wallet hands back the JWE; age_verify completes', async () => {
    const { id, page, state } = await openSession('age_verify', SIGNED);
    await finish(page);
    expect(state.fetched.map((f) => f.protocol)).toEqual([UNSIGNED, SIGNED, ANNEX_C]);
    const body = await expectCompleted(id);
    expect(body.results[0]).toMatchObject({ over: true, threshold: 18 });
    const audit = await production.rest('GET', `/v1/audits/${id}_0`);
    expect(JSON.stringify(audit.body)).toContain('"format":"mso_mdoc"');
    expect(JSON.stringify(audit.body)).not.toContain('"protocol":"org-iso-mdoc"');
  });

  it('OpenID4VP unsigned (a browser that does not allow signed): identify completes', async () => {
    const { id, page, state } = await openSession('identify', UNSIGNED, { allowSigned: false });
    await finish(page);
    expect(state.fetched.map((f) => f.protocol)).toEqual([UNSIGNED, ANNEX_C]);
    const body = await expectCompleted(id);
    expect(body.results[0].claims).toEqual({ given_name: 'Erika', family_name: 'Mustermann' });
  });

  it('decline: the page says sharing was cancelled; the same session then completes', async () => {
    const { id, page, cdp, state } = await openSession('identify', 'decline');
    await virtualWallet(cdp, { action: 'decline' });
    await page.getByTestId('share-browser-wallet').click();
    await expect(page.getByRole('alert').textContent({ timeout: 20_000 })).resolves.toContain(
      'Sharing was cancelled. You can try again when you are ready.',
    );
    expect(await axeFindings(page)).toEqual([]);
    expect((await production.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('in_progress');
    state.mode = ANNEX_C;
    await finish(page);
    await expectCompleted(id);
  });

  it('wait: the page says it waits for the wallet; after a reload the same session completes', async () => {
    const { id, page, cdp, state } = await openSession('identify', 'wait');
    await virtualWallet(cdp, { action: 'wait' });
    await page.getByTestId('share-browser-wallet').click();
    await expect(page.getByTestId('device-wallet-waiting').textContent({ timeout: 20_000 })).resolves.toBe(
      'Waiting for your wallet. Confirm or cancel there.',
    );
    expect(await page.getByTestId('share-browser-wallet').isDisabled()).toBe(true);
    expect(await axeFindings(page)).toEqual([]);
    // the person gives up on this wallet screen and reloads: the session is still theirs and in progress
    await page.reload();
    expect((await production.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('in_progress');
    state.mode = ANNEX_C;
    await page.getByTestId('share-wallet').click();
    await finish(page);
    await expectCompleted(id);
  });

  it('an answer over a protocol the page did not ask for is not submitted; the page says no wallet could answer', async () => {
    const { id, page, cdp, state } = await openSession('identify', 'unasked');
    await virtualWallet(cdp, { action: 'respond', protocol: 'openid4vp', response: { vp_token: {} } });
    await page.getByTestId('share-browser-wallet').click();
    await expect(page.getByRole('alert').textContent({ timeout: 20_000 })).resolves.toContain(
      'No wallet on this device could answer.',
    );
    expect(state.submitted).toEqual([]);
    expect((await production.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('in_progress');
    await page.context().close();
  });

  it('sandbox: the page offers the device wallet beside the sandbox test wallet, and it completes', async () => {
    const { id, page } = await openSession('sandbox_identify', ANNEX_C, { api: sandbox });
    expect(await page.getByTestId('share-reference-wallet').isVisible()).toBe(true);
    await expect(page.getByTestId('device-wallet-sandbox-note').textContent()).resolves.toBe(
      'Sandbox: a wallet on this device answers only with a test credential from an issuer this sandbox trusts.',
    );
    await finish(page);
    const read = await sandbox.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
  });
});
