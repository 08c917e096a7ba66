// "Create a session" on the dashboard's sessions screen, in real Chromium (issue 20, spec §1 API-only access):
// a signed-in owner creates a session of a workflow without API-only access, copies its hosted link (the
// clipboard holds exactly the session's URL) and finds the session in the list; a workflow set to API-only
// access is listed but cannot be chosen, and the workflow editor explains the checkbox next to it. axe-core
// finds nothing serious; each screen is captured at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { launchChromium } from '../support/browser';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { publishWorkflow } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-new-session');
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('dashboard: create a session and copy its link', () => {
  let t: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let api: Api;
  let apiOnlyWf: string;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestService({ label: 'dash-new-session-e2e', workers: false });
    const biz = await createBusiness(t, 'Links GmbH');
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: apiOnlyWf } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      'http://127.0.0.1:9/hooks',
      'Server onboarding',
    ));
    await publishWorkflow(
      api,
      [{ primitive: 'age_verify', threshold: 18 }],
      undefined,
      'Tester age check',
      false,
    );
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const token = biz.dashboard.cookie.replace(/^svc_dashboard=/, '');
    await context.addCookies([{ name: 'svc_dashboard', value: token, url: t.baseUrl }]);
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('creates a session of a workflow without API-only access and copies its link; API-only ones cannot be chosen', async () => {
    await page.goto(`${t.baseUrl}/dashboard/sessions`);
    const picker = page.getByLabel('Create a session of');
    await picker.waitFor();
    const apiOnlyOption = picker.locator('option', { hasText: 'Server onboarding (API only)' });
    expect(await apiOnlyOption.isDisabled()).toBe(true);
    expect(await picker.inputValue()).not.toBe(apiOnlyWf);
    await picker.selectOption({ label: 'Tester age check' });
    await check(page, 'sessions-new-session');

    await page.getByRole('button', { name: 'Create session' }).click();
    const link = page.getByLabel(/Link for the person/);
    await link.waitFor();
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`^${t.baseUrl}/s/sess_[A-Za-z0-9]+$`));
    const id = url.split('/s/')[1] as string;
    // the session exists, created from the dashboard, and the list shows it
    expect((await api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('created');
    await page.getByTestId('session-row').filter({ hasText: id }).waitFor();

    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Link copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    await check(page, 'sessions-new-session-created');

    // the link is the person's hosted page
    const hosted = await context.newPage();
    await hosted.goto(url);
    await hosted.getByRole('button', { name: /start/i }).first().waitFor();
    await hosted.close();
  });

  it('explains API-only access next to its checkbox in the workflow editor', async () => {
    await page.goto(`${t.baseUrl}/dashboard/workflows/${apiOnlyWf}`);
    const box = page.getByLabel('Sessions are created only through the API');
    await box.waitFor();
    expect(await box.isChecked()).toBe(true);
    const hintId = await box.getAttribute('aria-describedby');
    expect(hintId).toBeTruthy();
    expect(await page.locator(`#${hintId}`).textContent()).toContain('only your server creates sessions');
    await check(page, 'workflow-api-only-hint');
  });
});
