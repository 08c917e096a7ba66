// The workflow editor's conditions in real Chromium (ADR 0031): a signed-in owner adds conditions to a step
// (an age check that fails a minor with a chosen reason, and one that skips an adult to a later step), removes
// one, sees the server's refusal of a bad nationality code, saves, publishes, and reads the conditions in
// plain words in the published revision; GraphQL returns what the screen showed. axe-core finds nothing
// serious or critical; each screen is captured at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { launchChromium } from '../support/browser';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { shareWithReferenceWallet, startedSession } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'workflow-conditions');
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('workflow conditions in the dashboard editor', () => {
  let t: TestService;
  let browser: Browser;
  let page: Page;
  let api: Api;
  let workflowId: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await receiver.start();
    t = await startTestService({ label: 'conditions-e2e', workers: false });
    const biz = await createBusiness(t, 'Conditions GmbH');
    api = new Api(t.baseUrl, biz.apiKey);
    const created = await api.gql(
      `mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`,
      {
        input: {
          name: 'Age-gated rental',
          steps: [
            { primitive: 'age_verify', threshold: 18 },
            { primitive: 'identify', claims: ['given_name', 'nationality'] },
            { primitive: 'attestation', terms: 'I accept the rental terms.' },
          ],
        },
      },
    );
    workflowId = created.data.createWorkflow.id;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const token = biz.dashboard.cookie.replace(/^svc_dashboard=/, '');
    await context.addCookies([{ name: 'svc_dashboard', value: token, url: t.baseUrl }]);
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await receiver.stop();
  });

  it('adds, edits and removes conditions, shows a refusal, saves and publishes them', async () => {
    await page.goto(`${t.baseUrl}/dashboard/workflows/${workflowId}`);
    const age = page.getByTestId('conditions-0');
    const identify = page.getByTestId('conditions-1');
    await age.waitFor();
    // an attestation step has no conditions
    expect(await page.getByTestId('conditions-2').count()).toBe(0);

    // step 1: "old enough is no => failed (age_requirement_not_met)" is the default of a new age condition
    await page.getByRole('button', { name: 'Add condition to step 1' }).click();
    expect(await page.getByLabel('Condition 1: when').inputValue()).toBe('over');
    expect(await age.getByLabel('is', { exact: true }).inputValue()).toBe('false');
    expect(await age.getByLabel('Then').inputValue()).toBe('fail');
    expect(await age.getByLabel('Failure reason').inputValue()).toBe('age_requirement_not_met');

    // a second one: old enough => skip to step 3 (only steps after the next one are offered)
    await page.getByRole('button', { name: 'Add condition to step 1' }).click();
    const second = age.getByRole('group', { name: 'Condition 2 of step 1' });
    await second.getByLabel('is', { exact: true }).selectOption('true');
    await second.getByLabel('Then').selectOption('skip');
    expect(await second.getByLabel('Skip to').locator('option').allTextContents()).toEqual([
      'Choose a step',
      'Step 3: Attestation',
    ]);
    await second.getByLabel('Skip to').selectOption('2');

    // step 2: a nationality rule, first with a name instead of a code: the server's refusal is shown
    await page.getByRole('button', { name: 'Add condition to step 2' }).click();
    const nat = identify.getByRole('group', { name: 'Condition 1 of step 2' });
    await nat.getByLabel('Values (comma separated)').fill('Germany');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('alert').getByText('Code: workflow_invalid').waitFor();
    await nat.getByLabel('Values (comma separated)').fill('DE, AT');
    await nat.getByLabel('Then').selectOption('complete');

    // a third condition on step 1, added then removed
    await page.getByRole('button', { name: 'Add condition to step 1' }).click();
    await page.getByRole('button', { name: 'Remove condition 3 of step 1' }).click();
    expect(await age.getByRole('group').count()).toBe(2);

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();
    await check(page, 'conditions-editor');

    // what was saved, as the API reads it
    const read = await api.gql(
      `query($id: ID!) { workflow(id: $id) { draftSteps { conditions { claim operator values outcome skipTo failureReason } } } }`,
      { id: workflowId },
    );
    expect(read.data.workflow.draftSteps.map((s: { conditions: unknown[] }) => s.conditions)).toEqual([
      [
        {
          claim: 'over',
          operator: 'equals',
          values: ['false'],
          outcome: 'fail',
          skipTo: null,
          failureReason: 'age_requirement_not_met',
        },
        {
          claim: 'over',
          operator: 'equals',
          values: ['true'],
          outcome: 'skip',
          skipTo: 2,
          failureReason: null,
        },
      ],
      [
        {
          claim: 'nationality',
          operator: 'not_in',
          values: ['DE', 'AT'],
          outcome: 'complete',
          skipTo: null,
          failureReason: null,
        },
      ],
      [],
    ]);

    // a reload shows them as saved; publish; the revision lists them in words
    await page.reload();
    await page.getByRole('group', { name: 'Condition 2 of step 1' }).waitFor();
    expect(
      await page.getByRole('group', { name: 'Condition 2 of step 1' }).getByLabel('Skip to').inputValue(),
    ).toBe('2');
    await page.getByRole('button', { name: 'Publish revision' }).click();
    await page.getByText('Published revision 1.').waitFor();
    await page.getByText(/^Revision 1, published /).click();
    const revision = page.locator('details', { hasText: 'Revision 1' });
    expect(await revision.locator('.d-condition-list li').allTextContents()).toEqual([
      'If old enough is no: end as failed (age_requirement_not_met)',
      'If old enough is yes: skip to step 3',
      'If nationality is not one of DE, AT: complete the session',
    ]);
    await check(page, 'conditions-published');
  }, 120_000);

  it("the session detail shows the condition that failed a minor's session", async () => {
    // continues the workflow published above (revision 1); sessions need a webhook endpoint
    const hook = await api.gql(`mutation($url: String!) { configureWebhookEndpoint(url: $url) { id } }`, {
      url: receiver.url,
    });
    expect(hook.errors).toBeUndefined();
    const { id, signer } = await startedSession(
      t.baseUrl,
      await api.rest('POST', '/v1/sessions', { workflow_id: workflowId }),
    );
    expect((await shareWithReferenceWallet(t.svc, signer, 'minor')).body.status).toBe('failed');

    await page.goto(`${t.baseUrl}/dashboard/sessions/${id}`);
    await page.getByTestId('session-detail').waitFor();
    expect(await page.getByTestId('session-status').textContent()).toBe('Failed');
    // the failure in words, the code small beside it (issue 29)
    await expect
      .poll(() => page.getByTestId('session-failure').textContent())
      .toBe(
        'The person is not old enough: the age check of this step was not met. (step 1) age_requirement_not_met',
      );
    const condition = page.getByTestId('audit-condition-0');
    await condition.waitFor();
    // in the dashboard's language (messages/results.ts), as the timeline words it
    expect(await condition.textContent()).toBe(
      'Condition 1 of step 1, so the session failed. The person is not old enough: the age check of this step was not met.',
    );
    // a step whose condition failed the session is never shown as done (issue 29)
    expect(await page.getByTestId('step-not-completed-0').textContent()).toMatch(
      /^Checked .* UTC, but a condition of this workflow failed the session\.$/,
    );
    expect(await page.getByTestId('step-result-0').textContent()).not.toContain('Completed');
    await page.getByTestId('timeline').getByText('Condition met').waitFor();
    await check(page, 'conditions-session-detail');
  }, 120_000);
});
