// API key scopes on the dashboard, in real Chromium (issue 29): a new key starts with the narrowest scopes
// that work for an integration (create sessions, read their results) and the screen says so; unticking
// everything is refused in words instead of silently making a full key; full access is its own, explicit box;
// the status column says "Active". axe finds nothing serious; screens at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-api-key-defaults');

describe('dashboard: API key scopes default to the narrowest that works', () => {
  let d: SignedInDashboard;
  let page: Page;
  const keys = async () =>
    ((await d.api.gql('{ apiKeys { label scopes revokedAt } }')).data?.apiKeys ?? []) as {
      label: string;
      scopes: string[] | null;
    }[];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    d = await signedInDashboard({ label: 'dash-key-defaults-e2e', business: 'Keys GmbH' });
    page = d.page;
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
  });

  it('starts narrow, refuses none, makes full access only when asked, and shows Active', async () => {
    await page.goto(`${d.t.baseUrl}/dashboard/api-keys`);
    const scopes = page.getByRole('group', { name: 'Scopes' });
    await scopes.waitFor();
    expect(await scopes.getByLabel(/Create sessions/).isChecked()).toBe(true);
    expect(await scopes.getByLabel(/Read sessions and their results/).isChecked()).toBe(true);
    expect(await scopes.getByLabel(/Continue and stop sessions/).isChecked()).toBe(false);
    expect(await scopes.getByLabel(/Read audit records/).isChecked()).toBe(false);
    expect(await scopes.getByLabel(/Full access/).isChecked()).toBe(false);
    expect(await page.locator('#scopes-hint').textContent()).toContain('the least an integration needs');
    await checkScreen(page, 'api-keys-defaults', SHOTS);

    // nothing ticked: refused in words, no key made
    const before = (await keys()).length;
    await page.getByLabel('Label').fill('Nothing');
    await scopes.getByLabel(/Create sessions/).uncheck();
    await scopes.getByLabel(/Read sessions and their results/).uncheck();
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain(
      'Choose at least one thing the key may do, or tick “Full access”.',
    );
    expect((await keys()).length).toBe(before);

    // the default: exactly the two narrow scopes
    await page.reload();
    await page.getByLabel('Label').fill('Order system');
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    await page.getByLabel('New sandbox key').waitFor();
    expect((await keys()).find((k) => k.label === 'Order system')?.scopes).toEqual([
      'sessions_create',
      'sessions_read',
    ]);

    // full access only when its box is ticked
    await page.getByLabel('Label').fill('Back office');
    await scopes.getByLabel(/Full access/).check();
    await page.getByRole('button', { name: 'Create sandbox key' }).click();
    await expect.poll(async () => (await keys()).find((k) => k.label === 'Back office')?.scopes).toBeNull();

    const row = page.getByRole('row').filter({ hasText: 'Order system' });
    await row.waitFor();
    expect(await row.getByTestId('key-status').textContent()).toBe('Active');
    await checkScreen(page, 'api-keys-active', SHOTS);
  });
});
