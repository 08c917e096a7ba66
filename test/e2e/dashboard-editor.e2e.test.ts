// The workflow editor in real Chromium (issue 20): a refused draft shows the server's own sentence, with the
// step numbered as the editor numbers it ("Step 3", not the 0-based index), and the field the server names in
// `param` is marked invalid and carries the reason; the other fields are not. axe-core finds nothing serious
// or critical; publishing an unchanged draft publishes nothing and says so; each screen is captured at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import type { TestService } from '../support/harness';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-editor');
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('dashboard workflow editor in Chromium', () => {
  let dash: SignedInDashboard | undefined;
  let t: TestService;
  let page: Page;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    dash = await signedInDashboard({ label: 'dash-editor-e2e', business: 'Editor GmbH' });
    ({ t, page } = dash);
  }, 120_000);

  afterAll(async () => {
    await dash?.stop();
  });

  it("shows the server's 1-based message and marks the field it names", async () => {
    await page.goto(`${t.baseUrl}/dashboard/workflows`);
    await page.getByLabel('Workflow name').fill('Editor check');
    await page.getByRole('button', { name: 'Create sandbox workflow' }).click();
    await page.getByText('No steps yet.').waitFor();
    for (const p of ['identify', 'age_verify', 'attestation']) {
      await page.getByLabel('New step').selectOption(p);
      await page.getByRole('button', { name: 'Add step' }).click();
    }
    await page.getByLabel('Requested claims (comma separated)').fill('given_name');
    await page.getByLabel('Minimum age (years)').fill('18');
    // step 3's terms left empty: the server refuses the draft
    await page.getByRole('button', { name: 'Save draft' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Code: workflow_invalid').waitFor();
    expect(await alert.getByTestId('error-detail').textContent()).toBe('Step 3: attestation needs terms.');
    const terms = page.getByLabel('Terms the signer attests');
    expect(await terms.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#terms-2-error').textContent()).toBe('attestation needs terms.');
    expect(await terms.getAttribute('aria-describedby')).toContain('terms-2-error');
    expect(await page.getByTestId('step-3').getAttribute('class')).toContain('d-step-invalid');
    expect(await page.getByLabel('Minimum age (years)').getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByTestId('step-2').getAttribute('class')).not.toContain('d-step-invalid');
    await check(page, 'workflow-invalid-terms');

    // another field: the threshold of step 2; editing clears the mark
    await terms.fill('I confirm the account is mine.');
    expect(await terms.getAttribute('aria-invalid')).toBeNull();
    await page.getByLabel('Minimum age (years)').fill('0');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await alert
      .getByTestId('error-detail')
      .getByText('Step 2: age_verify needs an integer threshold between 1 and 120.')
      .waitFor();
    expect(await page.getByLabel('Minimum age (years)').getAttribute('aria-invalid')).toBe('true');
    expect(await terms.getAttribute('aria-invalid')).toBeNull();
    await page.getByLabel('Minimum age (years)').fill('18');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();

    // publishing the unchanged draft again publishes nothing and says so
    await page.getByRole('button', { name: 'Publish revision' }).click();
    await page.getByText('Published revision 1.').waitFor();
    await page.getByRole('button', { name: 'Publish revision' }).click();
    await page.getByText('Nothing changed since revision 1: no new revision was published.').waitFor();
    expect(await page.locator('details.d-revision').count()).toBe(1);
    await check(page, 'workflow-publish-unchanged');
  }, 120_000);
});
