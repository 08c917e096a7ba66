// Cross-device in real Chromium: the hosted page shows a QR code and an openid4vp:// link; a wallet elsewhere
// (the reference wallet, over real HTTP) fetches the signed request and answers the server directly; the page,
// never reloaded, moves to "done" by itself and the business receives its webhooks. Then the same exchange
// from the page's own "Open in sandbox wallet" button.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import type { Api, TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';

describe('cross-device sharing from the hosted page (Chromium)', () => {
  const receiver = new WebhookReceiver();
  const identify = identifyFixture({ label: 'e2e_cross_device', webhook: receiver });
  let t: TestService;
  let browser: Browser;
  let api: Api;
  let workflowId: string;
  let webhookSecret: string;

  beforeAll(async () => {
    ({ t, api, workflowId, webhookSecret } = identify);
    browser = await launchChromium();
  });
  afterAll(async () => browser?.close());

  async function openAtWalletStep(): Promise<{ page: Page; id: string }> {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const page = await (await browser.newContext()).newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('cross-device-qr').waitFor();
    return { page, id: created.body.id };
  }

  it('shows a QR code and link, and flips to done without a reload when the wallet answers', async () => {
    const { page, id } = await openAtWalletStep();
    const qr = await page.getByTestId('cross-device-qr').getAttribute('src');
    expect(qr).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(
      await page.getByTestId('cross-device-qr').evaluate((img: HTMLImageElement) => img.naturalWidth),
    ).toBeGreaterThan(0);
    const link = (await page.getByTestId('cross-device-link').getAttribute('href')) as string;
    expect(link).toMatch(/^openid4vp:\/\/\?client_id=x509_hash%3A[\w-]+&request_uri=/);
    expect(link).not.toContain(id);
    // a marker that a reload would wipe
    await page.evaluate(() => {
      (window as unknown as { __noReload: boolean }).__noReload = true;
    });

    const answer = await t.svc.signedWallet.answerCrossDevice({ persona: 'adult', uri: link });
    expect(answer.status).toBe(200);

    await page.getByTestId('done').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    const [step] = await receiver.waitFor('step.completed');
    expect(signatureValid(step, webhookSecret)).toBe(true);
    expect(step.body.data).toMatchObject({ session_id: id, primitive: 'identify' });
    await page.close();
  });

  it('runs the exchange from the page with "Open in sandbox wallet"', async () => {
    const { page, id } = await openAtWalletStep();
    await page.getByTestId('persona').selectOption('adult');
    await page.getByTestId('open-sandbox-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 10_000 });
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    await page.close();
  });

  it('shows why a refused cross-device answer failed, with a fresh code', async () => {
    const { page } = await openAtWalletStep();
    await page.getByTestId('persona').selectOption('revoked');
    const before = await page.getByTestId('cross-device-link').getAttribute('href');
    await page.getByTestId('open-sandbox-wallet').click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/revoked/);
    await expect.poll(() => page.getByTestId('cross-device-link').getAttribute('href')).not.toBe(before);
    await page.close();
  });
});
