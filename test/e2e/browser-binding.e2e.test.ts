// A Start whose answer is lost, as a person sees it in real Chromium: the server commits the Start, the answer
// never reaches the browser (the connection is reset, no Set-Cookie arrives), and the page still recovers to
// the step from the same browser and finishes it; another browser only sees "Started on another device".
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, setUpIdentifyWorkflow, type TestService } from '../support/harness';
import { WebhookReceiver } from '../support/webhook-receiver';

describe('browser binding survives a lost Start answer (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_binding', receiver));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  /** Lets Start reach the server and commit, then drops its answer: the browser's cookies stay as they were. */
  async function loseStartAnswers(context: BrowserContext): Promise<{ lost: number }> {
    const state = { lost: 0 };
    await context.route('**/t/sessions/*/start', async (route) => {
      const before = await context.cookies();
      const answer = await route.fetch();
      expect(answer.status()).toBe(200); // committed on the server
      await context.clearCookies();
      if (before.length > 0) await context.addCookies(before);
      state.lost++;
      await route.abort('connectionreset');
    });
    return state;
  }

  it('the same browser finishes the session; another browser cannot', async () => {
    const api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);

    const context = await browser.newContext();
    const lost = await loseStartAnswers(context);
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    // the answer was lost, but the page re-reads the session and finds this browser bound to it
    await page.getByTestId('share-wallet').waitFor({ timeout: 10_000 });
    expect(lost.lost).toBe(1);
    expect(await page.getByTestId('other-browser').count()).toBe(0);
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('adult');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    expect((await api.rest('GET', `/v1/sessions/${created.body.id}`)).body.status).toBe('completed');

    // the browser cookie is the server's, HttpOnly, Secure and SameSite=Strict
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'svc_browser', httpOnly: true, secure: true, sameSite: 'Strict' });
    await context.close();
  });

  it('another browser sees the session started elsewhere after a lost Start answer', async () => {
    const api = new Api(t.baseUrl, (await createBusiness(t, 'Other GmbH')).apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const first = await browser.newContext();
    await loseStartAnswers(first);
    const page = await first.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').waitFor({ timeout: 10_000 });

    const second = await browser.newContext();
    const other = await second.newPage();
    await other.goto(created.body.url);
    await other.getByTestId('other-browser').waitFor({ timeout: 10_000 });
    expect(await other.getByTestId('share-wallet').count()).toBe(0);
    await first.close();
    await second.close();
  });
});
