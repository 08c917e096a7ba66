// The dashboard items left from issue 20, in real Chromium against a real service (MySQL, SMTP, webhook
// receiver, relay workers): the first screen after sign-in, the phone menu, API key scopes with a Copy button
// and a key readable at 390 px, the identify step's claims offered from the catalog, session statuses in
// words, each delivery attempt's request body, and invitations (times by status, the business named in the
// emails, a second link pasted into the same tab read afresh). axe-core finds nothing serious or critical and
// each screen is captured at 390 px and 1280 px (test/support/axe.ts). The dashboard is written in English
// only (it has no translations), so there are no German captures of it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { authPost, linkToken, type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import type { Api, TestService } from '../support/harness';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-next');
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('dashboard: first screen, phone menu, keys, claims, statuses, request bodies, invitations', () => {
  let dash: SignedInDashboard | undefined;
  let t: TestService;
  let page: Page;
  let api: Api;
  let smtp: TestSmtpServer | undefined;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await receiver.start();
    smtp = await startSmtpServer();
    dash = await signedInDashboard({
      label: 'dash-next-e2e',
      business: 'Nordlicht Versand GmbH',
      workers: true,
      smtpUrl: smtp.url,
      // the Copy button's Clipboard API, and reading the clipboard back in the test
      context: { permissions: ['clipboard-read', 'clipboard-write'] },
    });
    ({ t, page, api } = dash);
  }, 120_000);

  afterAll(async () => {
    await dash?.stop();
    await smtp?.stop();
    await receiver.stop();
  });

  it('lands on a first screen naming the business and environment, with the next steps', async () => {
    await page.goto(`${t.baseUrl}/dashboard`);
    await page.waitForURL(`${t.baseUrl}/dashboard/start`);
    await page.getByTestId('business-name').getByText('Nordlicht Versand GmbH').waitFor();
    expect(await page.getByTestId('start-environment').textContent()).toBe('sandbox (test data)');
    // the harness gave the business one sandbox key; no workflow, no endpoint yet
    const key = page.getByTestId('next-api-key');
    expect(await key.getByRole('heading').textContent()).toBe('An API key: done');
    const wf = page.getByTestId('next-workflow');
    expect(await wf.getByRole('heading').textContent()).toBe('A published workflow: to do');
    expect(await wf.getByRole('link').getAttribute('href')).toBe('/dashboard/workflows');
    const hook = page.getByTestId('next-webhook');
    expect(await hook.getByRole('heading').textContent()).toBe('A webhook endpoint: to do');
    expect(await hook.getByRole('link', { name: 'Set a webhook endpoint' }).getAttribute('href')).toBe(
      '/dashboard/webhooks',
    );
    const docs = page.getByTestId('next-docs');
    expect(
      (
        await page.request.get(
          `${t.baseUrl}${await docs.getByRole('link', { name: /API reference/ }).getAttribute('href')}`,
        )
      ).status(),
    ).toBe(200);
    expect(
      (
        await page.request.get(
          `${t.baseUrl}${await docs.getByRole('link', { name: 'Error reference' }).getAttribute('href')}`,
        )
      ).status(),
    ).toBe(200);
    await check(page, 'start-sandbox');

    // production has no key yet: the first step says so, and the screen says which environment it is
    await page.getByLabel('Environment').selectOption('production');
    await page.getByTestId('start-environment').getByText('production (live data)').waitFor();
    await key.getByRole('heading', { name: 'An API key: to do' }).waitFor();
    expect(await key.getByRole('link').textContent()).toBe('Create an API key');
    await check(page, 'start-production');
    await page.getByLabel('Environment').selectOption('sandbox');
    await key.getByRole('heading', { name: 'An API key: done' }).waitFor();
  }, 60_000);

  it('puts the navigation behind a Menu button on a phone, with keyboard and focus handled', async () => {
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${t.baseUrl}/dashboard/start`);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.waitFor();
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    // closed: one row, not the links wrapped into rows
    expect((await nav.boundingBox())?.height).toBeLessThan(70);
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await nav.getByRole('link', { name: 'Sessions' }).isVisible()).toBe(false);

    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    const controlled = await menu.getAttribute('aria-controls');
    expect(await page.locator(`#${controlled}`).isVisible()).toBe(true);
    // focus moves to the current page's link
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Start');
    await page.screenshot({ path: `${SHOTS}/menu-open-390.png`, fullPage: true });
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Menu');

    // open with the keyboard, follow a link: the menu closes on the new screen
    await page.keyboard.press('Enter');
    await nav.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await menu.click();
    await check(page, 'menu-open');
    // wide screens: no Menu button, the links in a row
    expect(await menu.isVisible()).toBe(false);
    expect(await nav.getByRole('link', { name: 'Sessions' }).isVisible()).toBe(true);
  }, 60_000);

  it('creates an API key with chosen scopes, lists them, copies the key and shows it whole on a phone', async () => {
    await page.goto(`${t.baseUrl}/dashboard/api-keys`);
    await page.getByLabel('Label').fill('Order system');
    const scopes = page.getByRole('group', { name: 'Scopes' });
    await scopes.getByLabel(/Create sessions/).check();
    await scopes.getByLabel(/Read sessions and their results/).check();
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    const box = page.getByLabel('New sandbox key');
    await box.waitFor();
    const key = await box.inputValue();
    expect(key).toMatch(/^sk_sandbox_/);

    await page.getByRole('button', { name: 'Copy' }).click();
    // the clipboard write resolves after the click returns: wait for the status line it sets
    await expect.poll(() => page.getByTestId('copy-result').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const row = page.getByRole('row').filter({ hasText: 'Order system' });
    expect(await row.getByRole('cell').nth(2).textContent()).toContain(
      'Create sessions, Read sessions and their results',
    );
    // the harness's key has no scopes: a full key
    expect(await page.getByRole('row').filter({ hasText: 'Full access' }).count()).toBe(1);
    // the server stored exactly these scopes, and the key works for them
    const listed = await api.gql('{ apiKeys { label scopes } }');
    expect(listed.data.apiKeys.find((k: { label: string }) => k.label === 'Order system').scopes).toEqual([
      'sessions_create',
      'sessions_read',
    ]);
    const scoped = await fetch(`${t.baseUrl}/v1/audits/aud_nothing`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(((await scoped.json()) as { code: string }).code).toBe('api_key_scope_missing');

    // on a phone the whole key is in view: it wraps inside its box, nothing scrolls sideways
    await page.setViewportSize({ width: 390, height: 900 });
    const fits = await box.evaluate((e) => ({
      sideways: e.scrollWidth - e.clientWidth,
      down: e.scrollHeight - e.clientHeight,
      right: e.getBoundingClientRect().right,
    }));
    expect(fits.sideways).toBeLessThanOrEqual(0);
    expect(fits.down).toBeLessThanOrEqual(1);
    expect(fits.right).toBeLessThanOrEqual(390);
    await check(page, 'api-key-created');
  }, 60_000);

  it("offers the routes' claim names for an identify step; an unknown name is refused on the field", async () => {
    await page.goto(`${t.baseUrl}/dashboard/workflows`);
    await page.getByLabel('Workflow name').fill('Claims from the route');
    await page.getByRole('button', { name: 'Create sandbox workflow' }).click();
    await page.getByText('No steps yet.').waitFor();
    await page.getByLabel('New step').selectOption('identify');
    await page.getByRole('button', { name: 'Add step' }).click();
    const offered = page.getByRole('group', { name: 'Claims the routes offer' });
    await offered.waitFor();
    const names = await offered.locator('code').allTextContents();
    expect(names).toEqual(expect.arrayContaining(['given_name', 'family_name', 'birth_date', 'nationality']));
    const list = page.getByLabel('Requested claims (comma separated)');
    expect(await offered.getByLabel(/Given name/).isChecked()).toBe(true); // the new step's default
    await offered.getByLabel(/Nationality/).check();
    expect(await list.inputValue()).toBe('given_name, family_name, nationality');
    await offered.getByLabel(/Family name/).uncheck();
    expect(await list.inputValue()).toBe('given_name, nationality');
    await check(page, 'workflow-claims');

    // a name no route offers, typed by hand: the server refuses it and the field says why
    await list.fill('given_name, shoe_size');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('alert').getByText('Code: workflow_invalid').waitFor();
    expect(await list.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#claims-0-error').textContent()).toBe('unknown claim "shoe_size".');
    await list.fill('given_name, nationality');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    const saved = await api.gql('{ workflows { name draftSteps { claims } } }');
    const wf = saved.data.workflows.find((w: { name: string }) => w.name === 'Claims from the route');
    expect(wf.draftSteps[0].claims).toEqual(['given_name', 'nationality']);
  }, 60_000);

  it('shows the request body each delivery attempt POSTed, indented', async () => {
    await api.gql('mutation($url: String!) { configureWebhookEndpoint(url: $url) { id } }', {
      url: receiver.url,
    });
    const sent = await api.gql('mutation { sendTestWebhook { deliveryId } }');
    expect(sent.errors).toBeUndefined();
    const deliveryId = sent.data.sendTestWebhook.deliveryId as string;
    await page.goto(`${t.baseUrl}/dashboard/webhooks`);
    await page
      .getByRole('button', { name: new RegExp(`1 attempt of ${deliveryId}`) })
      .click({ timeout: 20_000 });
    const attempts = page.getByTestId('webhook-attempts');
    const show = attempts.getByRole('button', { name: /^Show request body of the attempt at/ });
    expect(await show.getAttribute('aria-expanded')).toBe('false');
    await show.click();
    // the log refreshes itself every 5 s: the open body stays open across it
    const body = attempts.getByTestId('request-body');
    await body.waitFor();
    const hide = attempts.getByRole('button', { name: /^Hide request body of the attempt at/ });
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    // the log's next refresh has come and gone
    await page.waitForResponse(
      (r) => r.url().endsWith('/graphql') && /"operationName":"Webhooks"/.test(r.request().postData() ?? ''),
      { timeout: 15_000 },
    );
    await body.waitFor();
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    const shown = (await body.textContent()) ?? '';
    // exactly what the receiver got, only indented
    const got = receiver.deliveries.find((d) => d.headers['x-service-delivery-id'] === deliveryId);
    expect(got).toBeDefined();
    expect(JSON.parse(shown)).toEqual(JSON.parse(got?.rawBody ?? ''));
    expect(shown).toContain('\n  "');
    await check(page, 'webhook-request-body');
  }, 60_000);

  it('shows session statuses in words, in the list, its filter and the detail', async () => {
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'age_verify', threshold: 18 }],
      undefined,
      'Age only',
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await page.goto(`${t.baseUrl}/dashboard/sessions`);
    const row = page.getByTestId('session-row').filter({ hasText: created.body.id });
    expect(await row.locator('.d-status').textContent()).toBe('Not started yet');
    expect(await page.getByLabel('Status').locator('option').allTextContents()).toEqual(
      expect.arrayContaining(['Waiting for your decision', 'In progress', 'Completed']),
    );
    expect(await page.getByLabel('Status').locator('option').allTextContents()).not.toContain(
      'awaiting_decision',
    );
    await check(page, 'sessions-status-words');
    await row.click();
    expect(await page.getByTestId('session-status').textContent()).toBe('Not started yet');
  }, 60_000);

  it('shows invitation times by status, names no business in the invitation email, reads a pasted second link', async () => {
    await page.goto(`${t.baseUrl}/dashboard/team`);
    const invite = async (email: string) => {
      const before = smtp?.messages.length ?? 0;
      await page.getByLabel('Email address').fill(email);
      await page.getByLabel('Role').selectOption('developer');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByText(`Invitation sent to ${email}.`).waitFor();
      const mail = await (smtp as TestSmtpServer).waitFor(
        (m) => JSON.stringify(m.to).includes(email) && (smtp as TestSmtpServer).messages.indexOf(m) >= before,
      );
      return mail;
    };
    const first = await invite('erste@nordlicht.test');
    const second = await invite('zweite@nordlicht.test');
    // the email names no business (spec §1): only the opaque one-time link
    expect(first.subject).toBe('Your dashboard invitation');
    expect(first.text).not.toContain('Nordlicht');

    // a second link pasted into the tab that shows the first: the page acts on the second
    const ctx = await dash!.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await ctx.newPage();
    await p.goto(`${t.baseUrl}/dashboard/accept-invitation#token=${linkToken(first.text)}`);
    await p.getByRole('button', { name: 'Accept invitation' }).waitFor();
    await p.goto(`${t.baseUrl}/dashboard/accept-invitation#token=${linkToken(second.text)}`);
    await p.getByRole('button', { name: 'Accept invitation' }).click();
    await p.getByRole('heading', { name: 'Your account' }).waitFor();
    await p.getByText('zweite@nordlicht.test', { exact: true }).waitFor();
    expect(await p.getByText('erste@nordlicht.test').count()).toBe(0);
    await ctx.close();

    // the sign-in link mail names the business (the person is already a member)
    const before = smtp?.messages.length ?? 0;
    expect((await authPost(t.baseUrl, '/auth/email-link', { email: 'zweite@nordlicht.test' })).status).toBe(
      202,
    );
    const link = await (smtp as TestSmtpServer).waitFor(
      (m) =>
        JSON.stringify(m.to).includes('zweite@') && (smtp as TestSmtpServer).messages.indexOf(m) >= before,
    );
    expect(link.subject).toBe('Your sign-in link for Nordlicht Versand GmbH');
    expect(link.text).toContain('the dashboard of Nordlicht Versand GmbH');

    // the accepted invitation says when it was accepted; the pending one when it expires
    await page.reload();
    const rows = page.getByRole('table', { name: 'Invitations' }).getByRole('row');
    const accepted = rows.filter({ hasText: 'zweite@nordlicht.test' });
    await accepted.getByText(/^Accepted \d/).waitFor();
    expect(await accepted.textContent()).not.toContain('Expires');
    const pending = rows.filter({ hasText: 'erste@nordlicht.test' });
    await pending.getByText(/^Expires \d/).waitFor();
    await check(page, 'team-invitation-times');
  }, 90_000);
});
