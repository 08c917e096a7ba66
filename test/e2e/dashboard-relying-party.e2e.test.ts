// The Relying party screen in real Chromium (issue 19, ADR 0035): the owner saves what wallets are shown, a
// reload shows the saved values, and a viewer sees them but is refused on save (role_insufficient) with nothing
// changed. axe-core finds nothing serious; the screen is captured at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import type { Api, TestService } from '../support/harness';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-relying-party');

const VALUES = {
  'Display name (empty: your business name)': 'Acme Lending',
  'Legal name': 'Acme Lending GmbH',
  'Contact email': 'privacy@acme.example',
  'Privacy policy URL': 'https://acme.example/privacy',
  'Purpose (shown by the wallet, at most 300 characters)': 'Check your age before a loan offer',
};

describe('dashboard relying party in Chromium', () => {
  let dash: SignedInDashboard | undefined;
  let t: TestService;
  let page: Page;
  let api: Api;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    dash = await signedInDashboard({ label: 'dash-rp-e2e', business: 'Acme GmbH' });
    ({ t, page, api } = dash);
  }, 120_000);
  afterAll(async () => {
    await dash?.stop();
  });

  it('saves, shows the saved values after a reload, and refuses a viewer', async () => {
    await page.goto(`${t.baseUrl}/dashboard/relying-party`);
    await page.getByRole('heading', { name: 'Relying party' }).waitFor();
    for (const [label, value] of Object.entries(VALUES)) await page.getByLabel(label).fill(value);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. Wallets show it on the next request.').waitFor();
    await page.reload();
    await expect.poll(() => page.getByLabel('Legal name').inputValue()).toBe(VALUES['Legal name']);
    for (const [label, value] of Object.entries(VALUES))
      expect(await page.getByLabel(label).inputValue()).toBe(value);
    expect((await api.gql('{ relyingParty { displayName purpose } }')).data?.relyingParty).toEqual({
      displayName: 'Acme Lending',
      purpose: 'Check your age before a loan offer',
    });
    await checkScreen(page, 'relying-party-saved', SHOTS);

    // a viewer sees the values; saving is refused by the server and changes nothing
    const viewer = await t.svc.accounts.createUserDirect(
      dash!.businessId,
      'viewer@rp.test',
      'viewer',
      'test',
    );
    const s = await t.svc.accounts.signInDirect(viewer.id);
    const ctx = await dash!.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.addCookies([{ name: 'svc_dashboard', value: s.token, url: t.baseUrl }]);
    const vp = await ctx.newPage();
    await vp.goto(`${t.baseUrl}/dashboard/relying-party`);
    await expect.poll(() => vp.getByLabel('Legal name').inputValue()).toBe(VALUES['Legal name']);
    await vp.getByLabel('Legal name').fill('Someone Else Ltd');
    await vp.getByRole('button', { name: 'Save' }).click();
    await vp.getByRole('alert').waitFor();
    await checkScreen(vp, 'relying-party-viewer-refused', SHOTS);
    expect((await api.gql('{ relyingParty { legalName } }')).data?.relyingParty.legalName).toBe(
      'Acme Lending GmbH',
    );
    await ctx.close();
  }, 120_000);
});
