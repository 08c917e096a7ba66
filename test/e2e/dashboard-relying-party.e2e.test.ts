// The Relying party screen in real Chromium (issue 19, ADR 0035): the owner saves what wallets are shown, a
// reload shows the saved values, and a viewer sees them but is refused on save (role_insufficient) with nothing
// changed. axe-core finds nothing serious; the screen is captured at 390 px and 1280 px. The reader certificates
// of the environment (issue 26, ADR 0049 amendment) show below the form: an empty-state sentence, then each
// certificate with its days left, the one expiring within 30 days in the warning style. While the screen's
// read is on its way the screen says it is loading, with no field to type in that the answer would overwrite.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import type { Api, TestService } from '../support/harness';
import { makeTestCa } from '../support/test-ca';
import { publishWorkflow } from '../support/workflows';

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
    await page.getByTestId('rp-wallets').waitFor(); // loaded: what the form holds is the saved data
    expect(await page.getByTestId('reader-certs-empty').textContent()).toContain(
      'No reader certificates in sandbox',
    );
    for (const [label, value] of Object.entries(VALUES)) await page.getByLabel(label).fill(value);
    await page.getByRole('button', { name: 'Save' }).click();
    // registrar mode is off in this service: the screen says wallets do not show it yet, and what is needed
    await page.getByText(/^Saved\. Wallets do not show these details yet/).waitFor();
    expect(await page.getByTestId('rp-wallets').textContent()).toContain('pnpm operator registrar rotate');
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
    const viewer = await t.svc.accounts.members.createUserDirect(
      dash!.businessId,
      'viewer@rp.test',
      'viewer',
      'test',
    );
    const s = await t.svc.accounts.signIn.signInDirect(viewer.id);
    const ctx = await dash!.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.addCookies([{ name: 'svc_dashboard', value: s.token, url: t.baseUrl }]);
    const vp = await ctx.newPage();
    await vp.goto(`${t.baseUrl}/dashboard/relying-party`);
    await expect.poll(() => vp.getByLabel('Legal name').inputValue()).toBe(VALUES['Legal name']);
    expect(await vp.getByTestId('reader-certs').textContent()).toContain(
      'Only owners and admins see the reader certificates.',
    );
    await vp.getByLabel('Legal name').fill('Someone Else Ltd');
    await vp.getByRole('button', { name: 'Save' }).click();
    await vp.getByRole('alert').waitFor();
    await checkScreen(vp, 'relying-party-viewer-refused', SHOTS);
    expect((await api.gql('{ relyingParty { legalName } }')).data?.relyingParty.legalName).toBe(
      'Acme Lending GmbH',
    );
    await ctx.close();
  }, 120_000);

  it('shows the form only with the saved values, and keeps what was typed in it', async () => {
    // the screen's read answers late (a slow network): the screen says it is loading instead of showing empty
    // fields a person could start typing in, only for the late answer to overwrite them; once the form is
    // there, what is typed is what the save sends
    let answered = false;
    await page.route(`${t.baseUrl}/graphql`, async (route) => {
      if (route.request().postData()?.includes('query RelyingPartyScreen')) {
        await new Promise((r) => setTimeout(r, 1500));
        answered = true;
      }
      await route.continue().catch(() => {}); // the page may have moved on meanwhile
    });
    try {
      await page.goto(`${t.baseUrl}/dashboard/relying-party`);
      await page.locator('.d-loading').waitFor();
      const privacy = page.getByLabel('Privacy policy URL');
      expect(answered).toBe(false);
      expect(await privacy.count()).toBe(0); // no field while the saved values are on their way
      await privacy.fill('https://user:secret@acme.example/privacy');
      expect(answered).toBe(true);
      expect(await page.getByLabel('Legal name').inputValue()).toBe(VALUES['Legal name']);
      expect(await privacy.inputValue()).toBe('https://user:secret@acme.example/privacy');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('#rp-privacy-error').waitFor();
    } finally {
      await page.unroute(`${t.baseUrl}/graphql`);
    }
  }, 120_000);

  it('names a refused field in words, and once registrar mode is on says the next request carries the name the page shows', async () => {
    await page.goto(`${t.baseUrl}/dashboard/relying-party`);
    const privacy = page.getByLabel('Privacy policy URL');
    await expect.poll(() => privacy.inputValue()).toBe(VALUES['Privacy policy URL']);
    await privacy.fill('https://user:secret@acme.example/privacy');
    await page.getByRole('button', { name: 'Save' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await privacy.getAttribute('aria-invalid')).toBe('true');
    const line = page.locator('#rp-privacy-error');
    expect(await line.textContent()).toContain('starting with https:// and without a user name or password');
    expect(await alert.textContent()).not.toContain('privacyPolicyUrl must be');
    expect(await alert.locator('.d-error-code').textContent()).toBe('Code: validation_failed');
    await checkScreen(page, 'relying-party-field-refused', SHOTS);

    // an operator turns registrar mode on: the screen now promises the next request, with the page's name
    await t.svc.verifierIdentity.registrar.rotateCa();
    await page.reload();
    await page.getByTestId('rp-wallets').waitFor();
    expect(await page.getByTestId('rp-wallets').textContent()).toContain(
      'Wallets show “Acme Lending” and these details from the next request on',
    );
    expect((await api.gql('{ relyingPartyWallets { source walletName pageName } }')).data).toEqual({
      relyingPartyWallets: { source: 'registrar', walletName: 'Acme Lending', pageName: 'Acme Lending' },
    });
    await checkScreen(page, 'relying-party-registrar-on', SHOTS);

    // the hosted page names the business as the wallet does
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'age_verify', threshold: 18 }],
      'http://127.0.0.1:9/hooks',
      'Age check',
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const hosted = await dash!.context.newPage();
    await hosted.goto(created.body.url);
    await hosted.getByRole('heading', { level: 1, name: 'Acme Lending' }).waitFor();
    await hosted.close();
  }, 120_000);

  it('lists the reader certificates of the environment with days left, warning within 30 days', async () => {
    const ca = makeTestCa('Test Reader CA');
    try {
      const day = 86_400_000;
      const at = (ms: number) => `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
      const base = Date.now() - 60_000;
      const csr = await t.svc.readerCerts.csr('sandbox');
      for (const days of [40, 12]) {
        const leaf = ca.issue(csr.pem, { startdate: at(base), enddate: at(base + days * day) });
        await t.svc.readerCerts.import({
          pem: leaf + ca.intermediatePem + ca.rootPem,
          routeId: 'rte_sandbox_reference',
          environment: 'sandbox',
        });
      }
      await page.goto(`${t.baseUrl}/dashboard/relying-party`);
      const days = page.getByTestId('reader-cert-days');
      await expect.poll(() => days.count()).toBe(2);
      // soonest first; the one within 30 days in the warning style
      expect(await days.allTextContents()).toEqual(['11 days — renew soon', '39 days']);
      expect(await days.first().getAttribute('class')).toBe('d-warn');
      expect(await days.last().getAttribute('class')).toBeNull();
      expect(await page.getByTestId('reader-certs').textContent()).toContain('rte_sandbox_reference');
      await checkScreen(page, 'relying-party-reader-certs', SHOTS);
    } finally {
      ca.remove();
    }
  }, 120_000);
});
