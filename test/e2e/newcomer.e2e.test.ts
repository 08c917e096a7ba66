// The development pages a newcomer opens first, in Chromium at 390 px and 1280 px: the start page `/`, the
// mailbox `/dev/mail` and one message, and the webhook receiver holding a delivery with a long unbroken value
// (it used to push the page wider than a 1280 px window). Each screen: zero serious axe findings, no sideways
// scrolling, screenshots under test/e2e/__screens__/newcomer/ (and PROOF_SHOTS_DIR when set).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../server/src/config/config';
import { quickstartOwnerLink, seedQuickstart } from '../../server/src/modules/quickstart/quickstart';
import { createService, type Service } from '../../server/src/service';
import { checkScreen } from '../support/axe';
import { launchChromium } from '../support/browser';
import { Api, freePort } from '../support/harness';
import { SignerClient } from '../support/signer';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = path.join(here, '__screens__', 'newcomer');

describe('the development pages in Chromium', () => {
  let svc: Service;
  let baseUrl: string;
  let dataDir: string;
  let browser: Browser;
  let page: Page;

  const check = async (name: string) => {
    await checkScreen(page, name, SHOTS);
    if (process.env.PROOF_SHOTS_DIR) {
      fs.mkdirSync(process.env.PROOF_SHOTS_DIR, { recursive: true });
      for (const w of [390, 1280])
        fs.copyFileSync(
          path.join(SHOTS, `${name}-${w}.png`),
          path.join(process.env.PROOF_SHOTS_DIR, `${name}-${w}.png`),
        );
    }
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-newcomer-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    svc = await createService(
      configFrom({ PORT: String(port), DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'error' } as never),
      { workers: false },
    );
    await svc.listen();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("the README's first session ends in the dashboard through the printed owner link", async () => {
    // what pnpm start does (server/src/main.ts): seed, then the owner link it prints
    const qs = await seedQuickstart(svc);
    if (!qs) throw new Error('no quickstart');
    const owner = await quickstartOwnerLink(svc, qs);
    expect(owner?.kind).toBe('invitation');
    // the README's steps 2-4: the curl, then the signer completes it with the sandbox wallet
    const created = await new Api(baseUrl, qs.api_key).rest('POST', '/v1/sessions', {
      workflow_id: qs.workflow_id,
    });
    expect(created.status).toBe(201);
    const sessionId = created.body.id as string;
    const signer = new SignerClient(baseUrl, sessionId);
    await signer.start();
    const wr = await signer.walletRequest();
    const response = await svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: baseUrl,
    });
    expect((await signer.submit(wr.body.request_id, response)).body.status).toBe('completed');

    // step 5: the printed link, in a browser
    await page.goto(owner?.link as string);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    // an owner lands on Start (issue 29)
    await page.getByRole('heading', { name: 'Start' }).waitFor();
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await page.getByTestId('session-status').textContent()).toBe('Completed');
    // sign out: the start page is where a newcomer comes back to
    await page.context().clearCookies();
  });

  it('the start page links the ways in', async () => {
    await page.goto(`${baseUrl}/`);
    for (const name of [
      'Dashboard',
      'Development mailbox',
      'Webhook receiver',
      'API reference (OpenAPI 3.1)',
    ])
      await expect
        .poll(() => page.getByRole('link', { name: new RegExp(`^${name.replace(/[()]/g, '\\$&')}`) }).count())
        .toBe(1);
    await check('start');
  });

  it('the mailbox lists a message and shows it with a working link', async () => {
    const { link } = await svc.accounts.invitations.createBusinessWithOwner(
      'Acme & Söhne GmbH',
      'owner@acme.test',
      'ops',
    );
    await page.goto(`${baseUrl}/dev/mail`);
    const item = page.getByRole('link', { name: /Your dashboard invitation/ });
    await expect.poll(() => item.count()).toBe(1);
    expect(await item.textContent()).toContain('owner@acme.test');
    await check('mail-list');
    await item.click();
    await page.waitForURL(/\/dev\/mail\/.+\.eml$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your dashboard invitation');
    expect(await page.getByRole('link', { name: link }).getAttribute('href')).toBe(link);
    await check('mail-message');
  });

  it('the webhook receiver wraps a long value instead of scrolling sideways', async () => {
    const long = 'x'.repeat(600);
    const res = await fetch(`${baseUrl}/dev/webhook-receiver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': `msg_${'y'.repeat(120)}` },
      body: JSON.stringify({ type: 'session.completed', data: { token: long } }),
    });
    expect(res.status).toBeLessThan(300);
    await page.goto(`${baseUrl}/dev/webhook-receiver`);
    await expect.poll(() => page.getByText(long.slice(0, 50)).count()).toBeGreaterThan(0);
    await check('webhook-receiver');
  });
});
