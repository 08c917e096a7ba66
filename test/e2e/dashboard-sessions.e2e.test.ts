// The dashboard's sessions screens in real Chromium: a signed-in owner filters the list, opens a gated session
// whose first step completed with the sandbox wallet, sees its results and timeline, verifies the step's audit
// record in the browser (WebCrypto against the public key set), continues the gate from the page, and stops
// another session after confirming. A record changed on its way to the page fails the check. axe-core finds
// nothing serious or critical; each screen is captured at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import type { Api, TestService } from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-sessions');

/** Every screen: axe, no sideways scrolling, screenshots at both widths (test/support/axe.ts). */
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('dashboard sessions in Chromium', () => {
  let dash: SignedInDashboard | undefined;
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let api: Api;
  let workflowId: string;
  let businessId: string;
  const receiver = new WebhookReceiver();

  /** A session of the gated workflow whose first step (identify) completed: it waits in awaiting_decision. */
  const gatedSession = async (): Promise<string> => {
    const created = await api.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      metadata: { order: 'A-1042' },
    });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    return created.body.id as string;
  };

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await receiver.start();
    // signed in as the business's owner: the HttpOnly session cookie, as a sign-in answer sets it
    dash = await signedInDashboard({ label: 'dash-sessions-e2e', business: 'Sessions GmbH' });
    ({ t, api, businessId, browser, page } = dash);
    ({ workflowId } = await publishWorkflow(
      api,
      [
        { primitive: 'identify', claims: ['given_name', 'family_name'], gateAfter: true },
        { primitive: 'age_verify', threshold: 18 },
      ],
      receiver.url,
      'Onboarding with review',
    ));
  }, 120_000);

  afterAll(async () => {
    await dash?.stop();
    await receiver.stop();
  });

  it('filters the list, shows results and timeline, verifies an audit record, continues the gate', async () => {
    const sessionId = await gatedSession();
    const other = (await api.rest('POST', '/v1/sessions', { workflow_id: workflowId })).body.id as string;

    await page.goto(`${t.baseUrl}/dashboard/sessions`);
    const rows = page.getByTestId('session-row');
    await rows.filter({ hasText: sessionId }).waitFor();
    expect(await rows.count()).toBe(2);
    await check(page, 'sessions-list');
    await page.getByLabel('Status').selectOption('awaiting_decision');
    await page.getByTestId('session-row').filter({ hasText: other }).waitFor({ state: 'detached' });
    // the list may be between answers (empty while the filtered page loads): wait for the gated row
    await rows.filter({ hasText: sessionId }).waitFor();
    expect(await rows.allTextContents()).toEqual([expect.stringContaining(sessionId)]);
    await page.getByLabel('Workflow').selectOption({ label: 'Onboarding with review' });
    await page.getByLabel('Created from (UTC)').fill(new Date().toISOString().slice(0, 10));
    await rows.filter({ hasText: sessionId }).waitFor();
    expect(await rows.count()).toBe(1);
    // the filters live in the address: a reload (or a shared link) shows the same list
    const filtered = new URL(page.url());
    expect(filtered.searchParams.get('status')).toBe('awaiting_decision');
    expect(filtered.searchParams.get('workflow')).toBe(workflowId);
    await page.reload();
    await rows.filter({ hasText: sessionId }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(await page.getByLabel('Status').inputValue()).toBe('awaiting_decision');
    // a range that ends before today: nothing matches
    await page.getByLabel('Created to (UTC, inclusive)').fill('2020-01-01');
    await page.getByRole('alert').getByText('no session can match').waitFor();
    await page.getByLabel('Created from (UTC)').fill('');
    await page.getByText('No sessions match.').waitFor();
    await page.getByLabel('Created to (UTC, inclusive)').fill('');
    await rows.first().waitFor();

    // the business's reference (metadata): on the row, and a filter kept in the address
    await rows
      .filter({ hasText: sessionId })
      .getByTestId('session-row-reference')
      .getByText('Your reference: order: A-1042')
      .waitFor();
    await page.getByLabel('Status').selectOption('');
    await rows.filter({ hasText: other }).waitFor();
    const ref = page.getByLabel('Your reference (metadata)');
    await ref.fill('A-1042');
    await ref.press('Enter');
    await rows.filter({ hasText: other }).waitFor({ state: 'detached' });
    await rows.filter({ hasText: sessionId }).waitFor();
    expect(await rows.count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('ref')).toBe('A-1042');
    await check(page, 'sessions-list-reference');
    // the filter's text is matched literally: LIKE's % is no wildcard
    await ref.fill('%');
    await ref.press('Enter');
    await page.getByText('No sessions match.').waitFor();
    await ref.fill('');
    await ref.press('Enter');
    await rows.filter({ hasText: other }).waitFor();

    // the row is a link to the detail
    await rows.filter({ hasText: sessionId }).click();
    const detail = page.getByTestId('session-detail');
    await detail.waitFor();
    expect(page.url()).toBe(`${t.baseUrl}/dashboard/sessions/${sessionId}`);
    expect(await page.getByTestId('session-status').textContent()).toBe('Waiting for your decision');
    await detail.getByText('Sandbox: test data').waitFor();
    const result = page.getByTestId('step-result-0');
    await result.getByText('Step 1: Identify').waitFor();
    expect(await result.textContent()).toContain('given_name');
    expect(await result.textContent()).toContain(`${sessionId}_0`);
    expect(await page.getByTestId('step-result-1').count()).toBe(0);
    // the timeline in words, to the second; the workflow by name; the business's reference
    const timeline = await page.getByTestId('timeline').getByRole('listitem').allTextContents();
    expect(timeline).toEqual(expect.arrayContaining([expect.stringContaining('Waiting for your decision')]));
    expect(timeline.join('\n')).not.toContain('awaiting_decision');
    for (const line of timeline) expect(line).toMatch(/\d{2}:\d{2}:\d{2} UTC/);
    expect(await page.getByTestId('session-workflow').textContent()).toContain(
      'Onboarding with review, revision 1',
    );
    expect(await page.getByTestId('session-reference').textContent()).toBe('order: A-1042');
    // waiting at a gate does not expire: no expiry shown, the decision due time is
    expect(await detail.getByText('Expires', { exact: true }).count()).toBe(0);
    await detail.getByText('Decision due', { exact: true }).waitFor();

    // the audit record, verified in this browser
    const audit = page.getByTestId('audit-0');
    await audit.getByText('Key id').waitFor();
    await page.getByTestId('verify-audit-0').click();
    await page.getByTestId('audit-verdict-0').getByText('Signature valid').waitFor();
    await check(page, 'session-detail-awaiting');

    // continue the gate: the page shows the new status and the timeline says so
    await page.getByTestId('continue-session').click();
    await page.getByTestId('session-status').getByText('In progress').waitFor();
    await page.getByTestId('timeline').getByText('Continued', { exact: true }).waitFor();
    expect(await page.getByTestId('continue-session').count()).toBe(0);
    expect((await api.rest('GET', `/v1/sessions/${sessionId}`)).body.status).toBe('in_progress');
    await check(page, 'session-detail-continued');
  }, 180_000);

  it("switching environment on a detail page goes to that environment's list", async () => {
    const sessionId = await gatedSession();
    for (const [detail, list, heading] of [
      [`/dashboard/sessions/${sessionId}`, '/dashboard/sessions', 'Sessions'],
      [`/dashboard/workflows/${workflowId}`, '/dashboard/workflows', 'Workflows'],
    ] as const) {
      await page.goto(`${t.baseUrl}${detail}`);
      await page.getByTestId(detail.includes('sessions') ? 'session-status' : 'workflow-id').waitFor();
      await page.getByLabel('Environment').selectOption('production');
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(new URL(page.url()).pathname).toBe(list);
      await page.getByTestId('environment-badge').getByText('PRODUCTION: live data').waitFor();
      expect(await page.getByText('Not found in this environment.').count()).toBe(0);
      expect(await page.getByText(/does not exist in this environment/).count()).toBe(0);
      await check(page, `env-switch-${heading.toLowerCase()}-production`);
      await page.getByLabel('Environment').selectOption('sandbox');
    }
  }, 120_000);

  it('a record changed on its way to the page fails the check', async () => {
    const sessionId = await gatedSession();
    // the page's GraphQL answer is altered in flight: one fact of the signed record changes
    await page.route('**/graphql', async (route) => {
      const res = await route.fetch();
      const json = await res.json();
      if (json.data?.auditRecord) json.data.auditRecord.record.workflow_revision = 2;
      await route.fulfill({ response: res, json });
    });
    await page.goto(`${t.baseUrl}/dashboard/sessions/${sessionId}`);
    await page.getByTestId('verify-audit-0').click();
    const verdict = page.getByTestId('audit-verdict-0');
    await verdict.getByText('Signature invalid').waitFor();
    expect(await verdict.textContent()).toContain('does not match its digest');
    await page.unroute('**/graphql');
  }, 120_000);

  it('stops a session after confirming; cancelling changes nothing', async () => {
    const sessionId = await gatedSession();
    await page.goto(`${t.baseUrl}/dashboard/sessions/${sessionId}`);
    await page.getByTestId('stop-session').click();
    await page.getByTestId('confirm-stop').waitFor();
    await check(page, 'session-detail-confirm-stop');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('session-status').textContent()).toBe('Waiting for your decision');
    expect((await api.rest('GET', `/v1/sessions/${sessionId}`)).body.status).toBe('awaiting_decision');
    await page.getByTestId('stop-session').click();
    await page.getByTestId('confirm-stop').click();
    await page.getByTestId('session-status').getByText('Stopped').waitFor();
    expect((await api.rest('GET', `/v1/sessions/${sessionId}`)).body.status).toBe('stopped');
    expect(await page.getByTestId('stop-session').count()).toBe(0);
    // an ended session shows when it ended, not a deadline that no longer applies
    expect(await page.getByText('Expires', { exact: true }).count()).toBe(0);
    expect(await page.getByText('Ended', { exact: true }).count()).toBe(1);
  }, 120_000);

  it('a viewer sees the session, its results and audit check, but no continue / stop', async () => {
    const sessionId = await gatedSession();
    const viewer = await t.svc.accounts.members.createUserDirect(
      businessId,
      'viewer@sessions.test',
      'viewer',
      'e2e',
    );
    const signedIn = await t.svc.accounts.signIn.signInDirect(viewer.id);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.addCookies([{ name: 'svc_dashboard', value: signedIn.token, url: t.baseUrl }]);
    const p = await ctx.newPage();
    await p.goto(`${t.baseUrl}/dashboard/sessions/${sessionId}`);
    await p.getByText('Your role (viewer) cannot continue or stop sessions in sandbox').waitFor();
    expect(await p.getByTestId('continue-session').count()).toBe(0);
    expect(await p.getByTestId('stop-session').count()).toBe(0);
    await p.getByTestId('verify-audit-0').click();
    await p.getByTestId('audit-verdict-0').getByText('Signature valid').waitFor();
    await ctx.close();
  }, 120_000);
});
