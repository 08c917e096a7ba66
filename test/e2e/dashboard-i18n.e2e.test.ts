// The dashboard in the business's language, in real Chromium (issue 29, the part landed): the language comes
// from the browser (de-DE → German) and the switch overrides it for this browser (kept after a reload). What is
// translated: the shell (brand, environment badge and switch, navigation, skip link, menu) and the sign-in and
// invitation screens; the other screens' own text is still English. axe finds nothing serious; 390 and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-i18n');

describe('dashboard languages', () => {
  let d: SignedInDashboard;
  let page: Page;

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    d = await signedInDashboard({
      label: 'dash-i18n-e2e',
      business: 'Sprachen GmbH',
      context: { locale: 'de-DE' },
    });
    page = d.page;
  }, 120_000);
  afterAll(async () => {
    await d?.stop();
  });

  it('signs in in the browser’s language and switches to French', async () => {
    const signedOut = await d.browser.newContext({ locale: 'de-DE', viewport: { width: 1280, height: 900 } });
    const p = await signedOut.newPage();
    await p.goto(`${d.t.baseUrl}/dashboard/sign-in`);
    await p.getByRole('heading', { name: 'Beim Dashboard anmelden' }).waitFor();
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await p.getByText(/^Noch kein Konto\?/).count()).toBe(1);
    await checkScreen(p, 'sign-in-de', SHOTS);
    await p.getByLabel('Sprache').selectOption('fr');
    await p.getByRole('heading', { name: 'Se connecter au tableau de bord' }).waitFor();
    await p.reload();
    await p.getByRole('heading', { name: 'Se connecter au tableau de bord' }).waitFor();
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('fr');
    await checkScreen(p, 'sign-in-fr', SHOTS);
    await signedOut.close();
  });

  it('shows the shell and navigation in German, then French after the switch', async () => {
    await page.goto(`${d.t.baseUrl}/dashboard/sessions`);
    await page.getByRole('heading', { level: 1, name: 'Sitzungen' }).waitFor();
    expect(await page.getByTestId('environment-badge').textContent()).toBe('SANDBOX: Testdaten');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await nav.getByRole('link', { name: 'API-Schlüssel' }).count()).toBe(1);
    await checkScreen(page, 'shell-de', SHOTS);
    await page.getByLabel('Sprache').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'Sessions' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Clés d’API' }).count()).toBe(1);
    expect(await page.getByTestId('environment-badge').textContent()).toBe('BAC À SABLE : données de test');
    await checkScreen(page, 'shell-fr', SHOTS);
  });
});
