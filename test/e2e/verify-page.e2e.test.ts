// The receipt verification page (/verify, ADR 0047) in real Chromium: a person chooses a receipt PDF and the
// page checks it in the browser against the key set of its own origin, in English, German and French, at 390
// and 1280 px (axe, no sideways scrolling, screenshots into VERIFY_SHOTS_DIR or a temporary folder). A genuine
// receipt of this service verifies; a forgery naming its own key set (served here, and never fetched), a
// receipt of another service and a truncated file are "not issued by <this service>"; nothing is uploaded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { launchChromium } from '../support/browser';
import { forgeReceipt, forgerKeys, loopbackServer } from '../support/receipt-forgery';
import { pdfdetachJson, REPO_ROOT } from '../support/receipts';
import { receiptsSuite } from '../support/receipts-suite';

const SHOTS = process.env.VERIFY_SHOTS_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'verify-shots-'));
fs.mkdirSync(SHOTS, { recursive: true });

describe('the receipt verification page (Chromium)', () => {
  const s = receiptsSuite('e2e_verify_page');
  let browser: Browser;
  let forger: Awaited<ReturnType<typeof loopbackServer>>;
  let forgerHits = 0;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    browser = await launchChromium();
    const b = await s.newIdentify();
    await s.share(b);
    const genuine = (await b.pdf()).bytes;
    files.genuine = s.files.write('genuine.pdf', genuine);
    const keys = forgerKeys('forger/audit/1', 'forger/seal/1');
    forger = await loopbackServer((_req, res) => {
      forgerHits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys.jwks));
    });
    files.forged = s.files.write(
      'forged.pdf',
      await forgeReceipt(pdfdetachJson(files.genuine), keys, { origin: forger.origin, version: 3 }),
    );
    files.other = path.join(REPO_ROOT, 'test/fixtures/receipts/receipt.pdf');
    files.truncated = s.files.write('truncated.pdf', genuine.subarray(0, Math.floor(genuine.length / 2)));
  });
  afterAll(async () => {
    await forger?.close();
    await browser?.close();
  });

  async function open(locale: string): Promise<{ page: Page; requests: string[]; close(): Promise<void> }> {
    const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
    const res = await page.goto(`${s.t.baseUrl}/verify`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("connect-src 'self'");
    return { page, requests, close: () => context.close() };
  }
  async function check(page: Page, file: string) {
    await page.locator('input[type=file]').setInputFiles(file);
    const verdict = page.getByTestId('verdict');
    await verdict.waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid')))
      .toBe('verdict');
    return (await verdict.textContent()) ?? '';
  }

  const host = () => new URL(s.t.baseUrl).host;
  const cases = {
    en: {
      locale: 'en-GB',
      title: 'Check a receipt',
      ok: () => `This receipt was issued by ${host()} and has not been changed.`,
      bad: () => `This receipt was not issued by ${host()}, or it was changed after it was issued.`,
      unreadable: 'This file is not a receipt that can be checked',
      step: 'Step 1: identity: matches',
    },
    de: {
      locale: 'de-DE',
      title: 'Beleg prüfen',
      ok: () => `Dieser Beleg wurde von ${host()} ausgestellt und nicht verändert.`,
      bad: () => `Dieser Beleg wurde nicht von ${host()} ausgestellt oder nach der Ausstellung verändert.`,
      unreadable: 'Diese Datei ist kein prüfbarer Beleg',
      step: 'Schritt 1: Identität: stimmt',
    },
    fr: {
      locale: 'fr-FR',
      title: 'Vérifier un reçu',
      ok: () => `Ce reçu a été émis par ${host()} et n’a pas été modifié.`,
      bad: () => `Ce reçu n’a pas été émis par ${host()}, ou il a été modifié après son émission.`,
      unreadable: 'Ce fichier n’est pas un reçu vérifiable',
      step: 'Étape 1 : identité : conforme',
    },
  };

  for (const [lang, c] of Object.entries(cases)) {
    it(`${lang}: a genuine receipt verifies, a forgery and another service's receipt are refused`, async () => {
      const { page, requests, close } = await open(c.locale);
      await expect.poll(() => page.locator('h1').textContent()).toBe(c.title);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      await checkScreen(page, `verify-${lang}-empty`, SHOTS);

      expect(await check(page, files.genuine as string)).toBe(c.ok());
      expect(await page.locator('.verify-checks').innerText()).toContain(c.step);
      await checkScreen(page, `verify-${lang}-genuine`, SHOTS);

      expect(await check(page, files.forged as string)).toBe(c.bad());
      await expect.poll(() => page.getByTestId('names-other').innerText()).toContain(forger.origin);
      await checkScreen(page, `verify-${lang}-forged`, SHOTS);

      expect(await check(page, files.other as string)).toBe(c.bad());
      expect(await check(page, files.truncated as string)).toContain(c.unreadable);
      await checkScreen(page, `verify-${lang}-truncated`, SHOTS);

      // nothing uploaded, nothing fetched from an address a file names
      expect(requests.filter((r) => !r.startsWith(`GET ${s.t.baseUrl}/`))).toEqual([]);
      expect(requests.filter((r) => r.includes('jwks'))).toEqual([
        `GET ${s.t.baseUrl}/.well-known/service-audit-jwks.json`,
      ]);
      await close();
    });
  }

  it('the language can be switched on the page, and the forger’s key set was never fetched', async () => {
    const { page, close } = await open('en-US');
    await page.getByLabel('Language').selectOption('de');
    await expect.poll(() => page.locator('h1').textContent()).toBe('Beleg prüfen');
    expect(await check(page, files.genuine as string)).toBe(cases.de.ok());
    await close();
    expect(forgerHits).toBe(0);
  });
});
