// The error reference (/errors) and the dashboard's sign-in page on a phone, in real Chromium (issue 29):
// /errors does not scroll sideways at 390 px; the sign-in page names the product and says how to get an
// account. axe finds nothing serious; screens at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { launchChromium } from '../support/browser';
import { startTestService, type TestService } from '../support/harness';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-errors-page');

describe('error reference and sign-in page for a newcomer', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestService({ label: 'dash-errors-page-e2e', workers: false });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 390, height: 900 } })).newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('/errors fits a phone', async () => {
    await page.goto(`${t.baseUrl}/errors`);
    await page.getByRole('table').first().waitFor();
    await checkScreen(page, 'errors-reference', SHOTS);
  });

  it('the sign-in page names the product and says how to get an account', async () => {
    await page.goto(`${t.baseUrl}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await page.getByText('Credential verification service').count()).toBe(1);
    expect(await page.getByText(/^No account yet\?/).textContent()).toContain('ask an owner or admin');
    await checkScreen(page, 'sign-in', SHOTS);
  });
});
