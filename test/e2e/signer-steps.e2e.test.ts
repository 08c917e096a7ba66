// The signer step's parts, one at a time, in real Chromium against the real service (the repository has no
// DOM test environment for Solid components, so these are their component tests): createDocumentsShown (a
// report of a document shown to its end that the network lost is sent again, and only the server's record
// opens the wallet), SandboxWallet (the test person's note in the page's language, the chosen person is the
// one that answers) and BrowserWallet (offered only where the browser has the Digital Credentials API).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { createSignSession, setUpSignWorkflow, textPart } from '../support/sign-workflow';
import { publishWorkflow } from '../support/workflows';

const HOOKS = 'http://127.0.0.1:9/hooks';
const TIMELINE = `query($id: ID!) { sessionTimeline(id: $id) { entries { kind stage } } }`;

describe('the signer step, part by part (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let api: Api;

  beforeAll(async () => {
    t = await startTestService({ label: 'e2e_signer_steps' });
    browser = await launchChromium();
    api = new Api(t.baseUrl, (await createBusiness(t, 'Teile GmbH')).apiKey);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const open = async (url: string, locale = 'en-GB'): Promise<Page> => {
    const context = await browser.newContext({ locale, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.getByTestId('start').click();
    return page;
  };

  it('documents shown: a lost report is sent again, and the wallet opens only once the server recorded it', async () => {
    const { workflowId } = await setUpSignWorkflow(api, { webhookUrl: HOOKS, name: 'Vertrag' });
    const created = await createSignSession(api, workflowId, [
      textPart('Terms.txt', 'Repayment in 12 instalments.\nNo early fee.\n'),
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const page = await open(created.body.url);
    // the network loses the first report of the document's end
    let reports = 0;
    await page.route('**/t/sessions/*/documents/*/shown', async (route) => {
      reports++;
      if (reports === 1) return route.abort('failed');
      return route.continue();
    });
    await page.getByTestId('step-sign').waitFor({ timeout: 20_000 });
    const share = page.getByTestId('share-wallet');
    expect(await share.isDisabled()).toBe(true);
    const end = page.getByTestId('document-0').getByTestId('document-end');
    await end.filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
    await end.scrollIntoViewIfNeeded();
    // sent again (after 2 s) and recorded: the gate lifts
    await page.locator('[data-testid="document-end"][data-shown="true"]').waitFor({ timeout: 15_000 });
    expect(reports).toBe(2);
    expect(await share.isDisabled()).toBe(false);
    expect(await page.getByTestId('share-gate').count()).toBe(0);
    const entries = (await api.gql(TIMELINE, { id })).data.sessionTimeline.entries as Json[];
    expect(entries.filter((e) => e.kind === 'document_shown_to_end')).toHaveLength(1);
    await page.context().close();
  }, 90_000);

  it('sandbox wallet: the test person is named in the page’s language, and the chosen one answers', async () => {
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      HOOKS,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const page = await open(created.body.url, 'de-DE');
    await page.getByTestId('share-wallet').click();
    const persona = page.getByTestId('persona');
    await persona.waitFor();
    // the device wallet is offered exactly where the browser has the Digital Credentials API
    const hasApi = await page.evaluate(
      () => 'DigitalCredential' in window && typeof navigator.credentials !== 'undefined',
    );
    expect(await page.getByTestId('share-browser-wallet').count()).toBe(hasApi ? 1 : 0);
    // and where it has not, it is not (a browser without the API)
    const bare = await browser.newContext({ locale: 'de-DE', viewport: { width: 390, height: 844 } });
    await bare.addInitScript(() => {
      // biome-ignore lint/suspicious/noExplicitAny: removing a browser global for this test
      delete (window as any).DigitalCredential;
    });
    const other = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const plain = await bare.newPage();
    await plain.goto(other.body.url);
    await plain.getByTestId('start').click();
    await plain.getByTestId('share-wallet').click();
    await plain.getByTestId('persona').waitFor();
    expect(await plain.getByTestId('share-browser-wallet').count()).toBe(0);
    await bare.close();
    await persona.selectOption('revoked');
    expect(await page.locator('.persona-note').textContent()).toMatch(/widerrufen/);
    await page.getByTestId('share-reference-wallet').click();
    // the revoked person answered: refused where the button is, in German
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('widerrufen');
    await persona.selectOption('adult');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    const read = await api.rest('GET', `/v1/sessions/${created.body.id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results[0].claims).toEqual({ given_name: 'Erika' });
    await page.context().close();
  }, 90_000);
});
