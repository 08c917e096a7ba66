// The dashboard's Branding screen in Chromium, through the UI only (issue 10, ADR 0019): the accent colour's
// contrast verdict changes as one types and a refused colour shows its copy; a logo is previewed before upload,
// uploaded and shown, an SVG is refused with its copy, and removed; return origins are added (a malformed one
// shows why) and removed. axe-core finds nothing serious or critical. Screenshots at 390 px and 1280 px go to
// BRANDING_SHOTS_DIR when set.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeFindings } from '../support/axe';
import { launchChromium } from '../support/browser';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { png } from '../support/images';

const SHOTS = process.env.BRANDING_SHOTS_DIR;

async function shots(page: Page, name: string) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('dashboard Branding screen (Chromium)', () => {
  let t: TestService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestService({ label: 'branding_e2e', workers: false });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('sets name, colour, logo and return origins through the UI', async () => {
    const biz = await createBusiness(t, 'Branding AG');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([
      { name: 'svc_dashboard', value: biz.dashboard.cookie.split('=')[1] as string, url: t.baseUrl },
    ]);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/dashboard/branding`);
    await page.getByRole('heading', { name: 'Branding', level: 1 }).waitFor();
    expect(await page.getByRole('link', { name: 'Branding' }).getAttribute('aria-current')).toBe('page');
    await page.getByText('No logo in sandbox').waitFor();

    // live contrast verdict, and the server's refusal shown with its copy
    const accent = page.getByLabel('Accent colour (#rrggbb; empty: the default)');
    const verdict = page.getByTestId('contrast-verdict');
    await accent.fill('#7aa7ff');
    await expect.poll(() => verdict.textContent()).toContain('Too low');
    await page.getByRole('button', { name: 'Save name and colour' }).click();
    await page.getByRole('alert').getByText('too hard to read').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('branding_contrast_insufficient');
    await accent.fill('#0F5132');
    await expect.poll(() => verdict.textContent()).toContain('Passes');
    await page.getByLabel('Display name (empty: your business name)').fill('Branding Shop');
    await page.getByRole('button', { name: 'Save name and colour' }).click();
    await page.getByText('Branding saved.').waitFor();
    const api = new Api(t.baseUrl, biz.apiKey, biz.dashboard);
    expect((await api.gql('{ branding { displayName accentColor } }')).data.branding).toEqual({
      displayName: 'Branding Shop',
      accentColor: '#0f5132',
    });

    // an SVG is refused (whatever its name says)
    const file = page.getByLabel(/New logo/);
    await file.setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    await page.getByRole('button', { name: 'Upload logo' }).click();
    await page.getByRole('alert').getByText('must be a PNG, JPEG or WebP').waitFor();

    // a PNG: previewed before the upload, then stored and shown
    await file.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png(180, 54) });
    const preview = page.getByTestId('branding-preview').getByRole('img');
    await expect.poll(() => preview.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(180);
    expect(await preview.getAttribute('alt')).toBe('Branding Shop');
    await page.getByRole('button', { name: 'Upload logo' }).click();
    await page.getByText('Logo uploaded.').waitFor();
    const current = page.getByTestId('current-logo');
    expect(await current.getAttribute('src')).toMatch(/^\/branding\/logos\/[0-9a-f]{64}$/);
    await expect.poll(() => current.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(180);

    // return origins: a malformed one says why, a good one is listed normalised, then removed
    const origin = page.getByLabel('Add an origin');
    await origin.fill('https://shop.example/checkout');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByRole('alert').getByText('scheme://host[:port]').first().waitFor();
    await origin.fill('HTTPS://Shop.Example:443');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByText('Added HTTPS://Shop.Example:443.').waitFor();
    expect(await page.getByTestId('return-origins').textContent()).toContain('https://shop.example');
    await origin.fill('http://localhost:8080');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await page.getByText('Added http://localhost:8080.').waitFor();
    await page.getByRole('button', { name: 'Remove http://localhost:8080' }).click();
    await page.getByText('Removed http://localhost:8080.').waitFor();
    expect((await api.gql('{ returnOrigins }')).data.returnOrigins).toEqual(['https://shop.example']);

    expect(await axeFindings(page)).toEqual([]);
    await shots(page, 'dashboard-branding');

    // removing the logo
    await page.getByRole('button', { name: 'Remove logo' }).click();
    await page.getByText('Logo removed.').waitFor();
    await page.getByText('No logo in sandbox').waitFor();
    expect((await api.gql('{ branding { logoUrl } }')).data.branding.logoUrl).toBeNull();
    expect(await axeFindings(page)).toEqual([]);
  }, 120_000);
});
