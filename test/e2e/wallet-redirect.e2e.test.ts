// The same-device redirect in real Chromium (issue 26, ADR 0050): a wallet answers direct_post.jwt and is sent
// back to the hosted page's /s/{id}/return#response_code=…; the browser that started the session lands on the
// session and sees it done, another browser (here in German) reads why nothing is shown, and the code never
// stays in the address bar.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import type { Api, TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { WebhookReceiver } from '../support/webhook-receiver';

describe('same-device redirect back to the hosted page (Chromium)', () => {
  const identify = identifyFixture({ label: 'e2e_wallet_redirect', webhook: new WebhookReceiver() });
  let t: TestService;
  let browser: Browser;
  let api: Api;
  let workflowId: string;

  beforeAll(async () => {
    ({ t, api, workflowId } = identify);
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  /** A session started in its own browser, answered by a wallet at response_uri: where the wallet goes next. */
  async function answeredSession(): Promise<{ page: Page; id: string; redirectUri: string }> {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const page = await (await browser.newContext()).newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('cross-device-qr').waitFor();
    const link = (await page.getByTestId('cross-device-link').getAttribute('href')) as string;
    const answer = await t.svc.signedWallet.answerCrossDevice({ persona: 'adult', uri: link });
    expect(answer.status).toBe(200);
    const redirectUri = String((answer.body as { redirect_uri: string }).redirect_uri);
    expect(redirectUri).toContain(`/s/${created.body.id}/return#response_code=`);
    return { page, id: created.body.id, redirectUri };
  }

  it('the browser that started the session follows the redirect and sees the session done', async () => {
    const { page, id, redirectUri } = await answeredSession();
    await page.goto(redirectUri);
    await page.waitForURL((url) => url.pathname === `/s/${id}`);
    await page.getByTestId('done').waitFor({ timeout: 10_000 });
    expect(page.url()).not.toContain('response_code');
    await page.close();
  });

  it('another browser following the redirect is told why nothing is shown (in its language)', async () => {
    const { page, id, redirectUri } = await answeredSession();
    const other = await (await browser.newContext({ locale: 'de-DE' })).newPage();
    await other.goto(redirectUri);
    await expect
      .poll(() => other.getByRole('alert').textContent())
      .toMatch(/anderen Browser zurückgeschickt/);
    expect(other.url()).toBe(`${new URL(redirectUri).origin}/s/${id}/return`);
    expect(await other.getByTestId('done').count()).toBe(0);
    // the code was burned by that presentation: the starting browser is told the link is used, and its own
    // session view (which learns of completion by itself) is intact
    await page.goto(redirectUri);
    await page.getByTestId('return-link-used').waitFor();
    await page.goto(`${new URL(redirectUri).origin}/s/${id}`);
    await page.getByTestId('done').waitFor({ timeout: 10_000 });
    await other.close();
    await page.close();
  });
});
