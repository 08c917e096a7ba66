// The dashboard app in real Chromium, through the UI only: the owner opens the invitation link from a real
// SMTP mail, accepts, adds a passkey (CDP virtual authenticator), signs out and back in with the passkey,
// invites a teammate, creates an API key (shown once; it works over REST), revokes it (it stops working) and
// switches to production (badge, colour, separate keys). axe-core runs on every screen (no serious or critical
// findings) and each screen is captured at 390 px and 1280 px under test/e2e/__screens__/dashboard/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { startDashboardE2E, stopDashboardE2E } from '../support/browser';
import { Api, setUpIdentifyWorkflow, type TestService } from '../support/harness';
import type { TestSmtpServer } from '../support/smtp';
import { type Delivery, signatureValid, WebhookReceiver } from '../support/webhook-receiver';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = path.join(here, '__screens__', 'dashboard');

/** Every screen: axe, no sideways scrolling, screenshots at both widths (test/support/axe.ts). */
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('dashboard app in Chromium', () => {
  let t: TestService;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let page: Page;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ t, smtp, browser, page } = await startDashboardE2E({
      label: 'dashboard-e2e',
      receiver,
      workers: false,
    }));
  }, 60_000);

  afterAll(() => stopDashboardE2E({ t, smtp, browser, receiver }));

  it('a broken invitation link shows the copy for its code', async () => {
    await page.goto(`${t.baseUrl}/dashboard/accept-invitation#token=not-a-real-token`);
    // the page asks about the invitation first (issue 29), so a broken link says so before any click
    await page.getByRole('alert').getByText('invalid, already used, revoked or expired').waitFor();
    expect(await page.getByRole('button', { name: 'Accept invitation' }).count()).toBe(0);
    expect(await page.getByRole('alert').textContent()).toContain('invitation_invalid');
    await check(page, 'accept-invitation-error');
  });

  it('invitation, passkey, team, API keys and environments through the UI', async () => {
    await t.svc.accounts.invitations.createBusinessWithOwner('Acme GmbH', 'owner@acme.test', 'e2e');
    const mail = await smtp.waitFor((m) => JSON.stringify(m.to).includes('owner@acme.test'));
    const link = /(https?:\/\/\S+\/dashboard\/accept-invitation#token=[\w-]+)/.exec(mail.text ?? '')?.[1];
    expect(link).toBeDefined();

    // accept: the token leaves the address bar, the HttpOnly cookie is set, the account screen shows
    await page.goto('about:blank'); // a fresh load, as a click in a mail client gives
    await page.goto(link as string);
    // the page names the business and the role before accepting (issue 29; the email does not have to)
    await expect
      .poll(() => page.getByTestId('invitation-business').textContent())
      .toContain('the dashboard of Acme GmbH as its owner.');
    await check(page, 'accept-invitation');
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    // an owner lands on Start (issue 29); the account screen is one click away
    await page.getByRole('heading', { name: 'Start' }).waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/start`);
    await page.getByRole('link', { name: 'Your account' }).first().click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/account`);
    expect(await page.getByText('owner@acme.test').count()).toBe(1);
    expect(await page.getByTestId('environment-badge').textContent()).toContain('SANDBOX');

    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added.').waitFor();
    await check(page, 'account');

    // sign out, then in again with the passkey alone
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(await page.evaluate(async () => (await fetch('/auth/session')).status)).toBe(401);
    await check(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // signed in: the first screen names the business, then on to the team
    await page.getByTestId('business-name').getByText('Acme GmbH').waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/start`);
    await page.getByRole('link', { name: 'Team and invitations' }).click();
    await page.getByRole('heading', { name: 'Team and invitations' }).waitFor();

    // a reload keeps the session (CSRF token restored from /auth/session)
    await page.reload();
    await page
      .getByRole('table', { name: 'Members' })
      .getByRole('cell', { name: 'owner@acme.test' })
      .waitFor();

    // team: invite a developer; the invitation is listed and mailed
    await page.getByLabel('Email address').fill('dev@acme.test');
    await page.getByLabel('Role').selectOption('developer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent to dev@acme.test.').waitFor();
    await page
      .getByRole('table', { name: 'Invitations' })
      .getByRole('cell', { name: 'dev@acme.test' })
      .waitFor();
    await smtp.waitFor((m) => JSON.stringify(m.to).includes('dev@acme.test'));
    await check(page, 'team');

    // API keys: created key shown once, usable over REST; revoked, it stops working
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByText('No API keys in sandbox yet.').waitFor();
    await page.getByLabel('Label').fill('CI key');
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    const keyBox = page.getByLabel('New sandbox key');
    await keyBox.waitFor();
    const key = await keyBox.inputValue();
    expect(key).toMatch(/^sk_sandbox_/);
    await check(page, 'api-keys-created');
    const probe = async () =>
      (await fetch(`${t.baseUrl}/v1/sessions/ses_unknown`, { headers: { Authorization: `Bearer ${key}` } }))
        .status;
    expect(await probe()).toBe(404); // authenticated: the session just does not exist
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByLabel('New sandbox key').count()).toBe(0); // never shown again
    // revoking asks first; Cancel keeps the key working
    await page.getByRole('button', { name: 'Revoke key CI key' }).click();
    await page.getByText('Revoke key CI key? Requests with it fail at once.').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, revoke');
    await check(page, 'api-keys-confirm-revoke');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await probe()).toBe(404);
    await page.getByRole('button', { name: 'Revoke key CI key' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page.getByText(/^Revoked /).waitFor();
    expect(await probe()).toBe(401);
    await check(page, 'api-keys');

    // production: another badge and colour, and its own (empty) key list
    await page.getByLabel('Environment').selectOption('production');
    await page.getByText('No API keys in production yet.').waitFor();
    expect(await page.getByTestId('environment-badge').textContent()).toContain('PRODUCTION');
    const topColour = () => page.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor);
    const production = await topColour();
    await check(page, 'api-keys-production');
    await page.getByLabel('Environment').selectOption('sandbox');
    await page.getByText('CI key').waitFor();
    expect(await topColour()).not.toBe(production);

    // webhook endpoint: set the URL (secret shown once), rotate the secret (the old one keeps signing)
    await page.getByRole('link', { name: 'Webhook endpoint' }).click();
    await page.getByText('No endpoint in sandbox yet.').waitFor();
    await page.getByLabel('Endpoint URL', { exact: true }).fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    const first = await page.getByLabel('Signing secret (sandbox)').inputValue();
    expect(first).toMatch(/^whsec_/);
    await page.getByRole('term').filter({ hasText: 'URL' }).waitFor();
    expect(await page.locator('dd code').textContent()).toBe(receiver.url);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    await page.getByText('Old secret signs until').waitFor();
    const second = await page.getByLabel('Signing secret (sandbox)').inputValue();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await check(page, 'webhooks');

    // a bad URL: the server's code, shown with its copy, and nothing changes
    await page.getByLabel('Endpoint URL', { exact: true }).fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByRole('alert').getByText('webhook_url_invalid').waitFor();
    expect(await page.locator('dd code').textContent()).toBe(receiver.url);

    // the route catalog of the environment
    await page.getByRole('link', { name: 'Route catalog' }).click();
    await page.getByRole('table', { name: 'Routes in sandbox' }).getByRole('row').nth(1).waitFor();
    await check(page, 'catalog');

    // sessions: a key made in the UI creates a session over REST (the workflow is set up over GraphQL: the
    // workflows screen is not built yet); the dashboard lists it, filters by status and shows its timeline
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('Sessions key');
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    const key2 = await page.getByLabel('New sandbox key').inputValue();
    const api = new Api(t.baseUrl, key2);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const sessionId = created.body.id as string;
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByRole('link', { name: sessionId }).waitFor();
    await check(page, 'sessions');
    await page.getByLabel('Status').selectOption('completed');
    await page.getByText('No sessions match.').waitFor();
    await page.getByLabel('Status').selectOption('created');
    await page.getByRole('link', { name: sessionId }).click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/sessions/${sessionId}`);
    expect(await page.getByTestId('session-status').textContent()).toBe('Not started yet');
    await page.getByRole('listitem').filter({ hasText: 'created' }).first().waitFor();
    await check(page, 'session-detail');
    // the session is not in production: switching on its page opens production's list, not a dead end
    await page.getByLabel('Environment').selectOption('production');
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sessions');
    await page.getByLabel('Environment').selectOption('sandbox');
  }, 120_000);

  it('workflows: build a gated workflow through the UI, publish it, and a session is created against it', async () => {
    // continues the signed-in sandbox owner of the test above (webhook endpoint already configured)
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('table', { name: 'Workflows in sandbox' }).getByText('KYC identify').waitFor();
    await page.getByLabel('Workflow name').fill('Onboarding with review');
    await page.getByRole('button', { name: 'Create sandbox workflow' }).click();
    await page.getByText('No steps yet.').waitFor();
    const workflowId = (await page.getByTestId('workflow-id').textContent()) as string;
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/workflows/${workflowId}`);
    const step = (n: number) => page.getByRole('listitem').filter({ hasText: `Step ${n}:` });

    // attestation terms: a live word count that warns past 1,000 words
    await page.getByLabel('New step').selectOption('attestation');
    await page.getByRole('button', { name: 'Add step' }).click();
    await page.getByLabel('Terms the signer attests').fill(Array(1001).fill('word').join(' '));
    const count = page.getByTestId('terms-count-0');
    expect(await count.textContent()).toContain('1001 of 1000 words: too long by 1');
    expect(await count.getAttribute('class')).toBe('d-warn');
    await page.getByLabel('Terms the signer attests').fill('I confirm   the account is\nmine.');
    expect(await count.textContent()).toBe('6 of 1000 words');

    // identify added second, moved up to first, with its claims and a gate after it
    await page.getByLabel('New step').selectOption('identify');
    await page.getByRole('button', { name: 'Add step' }).click();
    await page.getByRole('button', { name: 'Move up step 2' }).click();
    expect(await step(1).getByRole('heading').textContent()).toBe('Step 1: Identify');
    expect(await step(2).getByRole('heading').textContent()).toBe('Step 2: Attestation');
    await page.getByLabel('Requested claims (comma separated)').fill('given_name, family_name');
    await step(1).getByLabel('Gate: wait for us to continue or stop after this step').check();

    // an age check, and a sign step added then removed
    await page.getByLabel('New step').selectOption('age_verify');
    await page.getByRole('button', { name: 'Add step' }).click();
    await page.getByLabel('New step').selectOption('sign');
    await page.getByRole('button', { name: 'Add step' }).click();
    await page.getByLabel('Documents each session uploads').waitFor();
    await page.getByRole('button', { name: 'Remove step 4' }).click();
    expect(await page.getByLabel('Documents each session uploads').count()).toBe(0);

    // a bad threshold: the server refuses with a stable code, shown with its copy; nothing is saved
    await page.getByLabel('Minimum age (years)').fill('0');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('alert').getByText('Code: workflow_invalid').waitFor();
    await page.getByLabel('Minimum age (years)').fill('21');
    // the attestation is for a second person: not bound to the person of step 1 (ADR 0026)
    await step(2)
      .getByLabel(/^Anyone may do this step/)
      .check();
    expect(
      await step(1)
        .getByLabel(/^Anyone may do this step/)
        .count(),
    ).toBe(0);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();

    // saved: a reload shows the draft as arranged
    await page.reload();
    await step(3).getByRole('heading', { name: 'Step 3: Age check' }).waitFor();
    const gate = (n: number) => step(n).getByLabel('Gate: wait for us to continue or stop after this step');
    expect(await gate(1).isChecked()).toBe(true);
    expect(await gate(2).isChecked()).toBe(false);
    expect(
      await step(2)
        .getByLabel(/^Anyone may do this step/)
        .isChecked(),
    ).toBe(true);
    expect(
      await step(3)
        .getByLabel(/^Anyone may do this step/)
        .isChecked(),
    ).toBe(false);
    expect(await page.getByLabel('Minimum age (years)').inputValue()).toBe('21');
    await page.getByText('Not published yet').waitFor();
    await check(page, 'workflow-editor');

    await page.getByRole('button', { name: 'Publish revision' }).click();
    await page.getByText('Published revision 1.').waitFor();
    await page.getByText(/^Revision 1, published /).click();
    const revision = page.locator('details', { hasText: 'Revision 1' });
    expect(await revision.getByRole('listitem').allTextContents()).toEqual([
      'Identify (claims: given_name, family_name), gate after',
      'Attestation (terms of 6 words), anyone may do it',
      'Age check (at least 21 years)',
    ]);
    await check(page, 'workflow-published');

    // the published workflow takes sessions over REST with a key made in the UI, pinned to revision 1
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Label').fill('Workflow key');
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    const api = new Api(t.baseUrl, await page.getByLabel('New sandbox key').inputValue());
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ workflow_id: workflowId, workflow_revision: 1, status: 'created' });

    await page.getByRole('link', { name: 'Workflows' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: 'Onboarding with review' })
      .getByText('Revision 1')
      .waitFor();
    await check(page, 'workflows');
    // another environment does not see it: its own 404 copy inside the screen's error boundary
    await page.goto(`${t.baseUrl}/dashboard/workflows/${workflowId}`);
    await page.getByTestId('workflow-id').waitFor();
    // switching on its page opens production's list; its address opened in production answers its 404 copy
    await page.getByLabel('Environment').selectOption('production');
    await page.getByText('No workflows in production yet.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/workflows');
    await page.goto(`${t.baseUrl}/dashboard/workflows/${workflowId}`);
    await page.getByRole('alert').getByText('Code: workflow_not_found').waitFor();
    await page.getByLabel('Environment').selectOption('sandbox');
    await page.getByRole('heading', { level: 1, name: 'Workflows' }).waitFor();
  }, 120_000);

  it('webhooks: a sandbox test event reaches the receiver and shows in the delivery log; production offers none', async () => {
    // continues the signed-in sandbox owner (endpoint = the receiver, configured through the UI above)
    await page.getByRole('link', { name: 'Webhook endpoint' }).click();
    await page.getByRole('heading', { name: 'Test event' }).waitFor();
    // a fresh secret, shown once here, to check the test event's signature with (as an integrator would)
    await page.getByRole('button', { name: 'Rotate signing secret' }).click();
    const secret = await page.getByLabel('Signing secret (sandbox)').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByTestId('send-test-event').click();
    const notice = page.getByRole('status').filter({ hasText: 'Test event queued' });
    await notice.waitFor();
    const deliveryId = /delivery (\S+);/.exec((await notice.textContent()) ?? '')?.[1] as string;
    expect(deliveryId).toMatch(/^whtest_[0-9a-z]+:webhook\.test:0$/);
    const row = page
      .getByRole('table', { name: 'Deliveries' })
      .getByRole('row')
      .filter({ hasText: deliveryId });
    expect((await row.getByRole('cell').allTextContents()).slice(0, 4)).toEqual([
      'webhook.test',
      deliveryId,
      'pending',
      '0',
    ]);

    // the relay sends it (workers are off in this suite): a real receiver gets a signed webhook.test event
    // (and answers with a long body, which the attempts view below shows only the start of)
    receiver.replyBody = `received ${'x'.repeat(300)}`;
    while ((await t.svc.relay.runOnce()) > 0) {}
    receiver.replyBody = undefined;
    const got = (await receiver.waitFor('webhook.test')).find((d) => d.body.delivery_id === deliveryId);
    expect(got?.body.data).toMatchObject({ test: true, environment: 'sandbox' });
    expect(signatureValid(got as Delivery, secret)).toBe(true);
    await page.getByRole('button', { name: 'Refresh log' }).click();
    await row.getByRole('cell', { name: 'delivered', exact: true }).waitFor();
    expect((await row.getByRole('cell').allTextContents()).slice(2, 4)).toEqual(['delivered', '1']);
    await check(page, 'webhooks-test-event');

    // the attempts behind the count: the person opens the delivery and sees its one attempt, as the
    // receiver answered it (HTTP 200, with what it replied), with its time and latency
    const attemptsOf = page.getByRole('table', { name: `Attempts of ${deliveryId}` });
    const open = row.getByRole('button', { name: `1 attempt of ${deliveryId}` });
    expect(await open.getAttribute('aria-expanded')).toBe('false');
    await open.click();
    expect(await open.getAttribute('aria-expanded')).toBe('true');
    const attempt = attemptsOf.getByRole('row').nth(1);
    await attempt.waitFor();
    expect(await attemptsOf.getByRole('row').count()).toBe(2); // the header row and the one attempt
    const [time, status, latency, response, error] = await attempt.getByRole('cell').allTextContents();
    expect(time).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2}:\d{2} UTC$/);
    expect(status).toBe('200');
    expect(latency).toMatch(/^\d+ ms$/);
    expect(response).toBe(`received ${'x'.repeat(191)}…`); // its first 200 characters
    expect(error).toBe('—');
    await check(page, 'webhooks-attempts');
    // closed again, the log is as it was
    await open.click();
    await attemptsOf.waitFor({ state: 'detached' });
    expect(await open.getAttribute('aria-expanded')).toBe('false');
    // the attempts fail to load (the network drops the request): the error shows in place, the log stays,
    // and Try again loads them
    // by operation name: every request of the screen sends the whole document, which names WebhookAttempts
    // too, and the log's own refresh (every 5 s) must still load
    const dropAttempts = (route: Route) =>
      (route.request().postDataJSON() as { operationName?: string } | null)?.operationName ===
      'WebhookAttempts'
        ? route.abort()
        : route.fallback();
    await page.route('**/graphql', dropAttempts);
    await open.click();
    const failed = page.locator(`#${await open.getAttribute('aria-controls')}`).getByRole('alert');
    await failed.getByText('Code: network_error').waitFor();
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('delivered');
    await page.unroute('**/graphql', dropAttempts);
    // the log's own refresh keeps the open panel as it was (its rows are refreshed in place): the error stays,
    // and Try again is still where the person is about to click
    await page.waitForResponse(
      (r) => (r.request().postDataJSON() as { operationName?: string } | null)?.operationName === 'Webhooks',
    );
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done(null))));
    expect(await failed.getByText('Code: network_error').count()).toBe(1);
    await failed.getByRole('button', { name: 'Try again' }).click();
    await attemptsOf.getByRole('row').nth(1).getByRole('cell', { name: '200', exact: true }).waitFor();
    expect(await failed.count()).toBe(0);
    await open.click();

    // production: no button, a note saying why
    await page.getByLabel('Environment').selectOption('production');
    await page.getByText('No endpoint in production yet.').waitFor();
    expect(await page.getByTestId('test-event-note').textContent()).toContain('sandbox only');
    expect(await page.getByTestId('send-test-event').count()).toBe(0);
    await check(page, 'webhooks-production');
    await page.getByLabel('Environment').selectOption('sandbox');
    await page.getByTestId('send-test-event').waitFor();
  }, 60_000);

  it('an unknown dashboard path is a page, not a server error; signed out, a screen goes to sign-in', async () => {
    const res = await fetch(`${t.baseUrl}/dashboard/nowhere`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    await p.goto(`${t.baseUrl}/dashboard/nowhere`);
    await p.getByRole('heading', { name: 'Page not found' }).waitFor();
    await p.goto(`${t.baseUrl}/dashboard/api-keys`);
    await p.getByRole('heading', { name: 'Sign in to the dashboard' }).waitFor();
    expect(p.url()).toBe(`${t.baseUrl}/dashboard/sign-in`);
    await fresh.close();
  }, 60_000);

  it('signs in with an emailed one-time link (after the owner exists)', async () => {
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    await p.goto(`${t.baseUrl}/dashboard/sign-in`);
    await p.getByLabel('Email address').fill('owner@acme.test');
    await p.getByRole('button', { name: 'Email me a link' }).click();
    await p.getByText('a sign-in link is on its way').waitFor();
    const mail = await smtp.waitFor(
      (m) => JSON.stringify(m.to).includes('owner@acme.test') && /sign-in#token=/.test(m.text ?? ''),
    );
    const link = /(https?:\/\/\S+\/dashboard\/sign-in#token=[\w-]+)/.exec(mail.text ?? '')?.[1] as string;
    await p.goto('about:blank');
    await p.goto(link);
    await p.getByRole('heading', { name: 'Start' }).waitFor();
    expect(p.url()).toBe(`${t.baseUrl}/dashboard/start`); // the spent token left the address bar
    // the same link again: used once only
    await p.goto('about:blank');
    await p.goto(link);
    await p.getByRole('alert').getByText('sign_in_link_invalid').waitFor();
    await fresh.close();
  }, 60_000);
});
