// The signer's page, issue 20 (ADR 0029): buttons that sit like every other, an irreversible action that does not
// look like the primary one, a reassurance that does not look like an error; in real Chromium against MariaDB,
// English and German, 390 and 1280 px, with axe-core at zero serious findings.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeFindings } from '../support/axe';
import { launchChromium, showDocumentsToEnd } from '../support/browser';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const SHOTS = process.env.SIGNER_SHOTS_DIR;

describe('the signer’s page reads consistently (Chromium, MariaDB)', () => {
  let t: TestService;
  let browser: Browser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    t = await startTestService({ label: 'e2e_signer_polish' });
    await receiver.start();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver.stop();
    await t?.stop();
  });

  async function shots(page: Page, name: string) {
    expect(await axeFindings(page), `axe on ${name}`).toEqual([]);
    if (!SHOTS) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function doneSession(locale: string): Promise<Page> {
    const { apiKey } = await createBusiness(t, 'Musterfirma GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      receiver.url,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const context = await browser.newContext({ acceptDownloads: true, locale, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('step-identify').waitFor();
    await showDocumentsToEnd(page);
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('adult');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    return page;
  }

  for (const [locale, lang, downloadedText] of [
    ['en-GB', 'en', 'You downloaded the receipt'],
    ['de-DE', 'de', 'Sie haben den Beleg'],
  ] as const) {
    it(`sizes the download like every button, closes access with a danger outline, reassures in neutral (${lang})`, async () => {
      const page = await doneSession(locale);
      const download = page.getByTestId('download-receipt');
      await download.waitFor({ timeout: 20_000 });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        // as wide as its block and its label centred, like the Start and Send code buttons
        const box = await download.evaluate((a) => {
          const parent = a.parentElement!;
          const cs = getComputedStyle(parent);
          const inner = parent.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
          return { width: a.getBoundingClientRect().width, inner, align: getComputedStyle(a).textAlign };
        });
        expect(Math.abs(box.width - box.inner), `download width at ${width}px`).toBeLessThan(1);
        expect(box.align).toBe('center');
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      // dates are written one way on the signer's pages, as the receipt and its emails write them:
      // day, full month name, year, 24-hour time and the zone
      const until = page.getByTestId('access-until').locator('time');
      const at = new Date((await until.getAttribute('datetime')) as string);
      const month = new Intl.DateTimeFormat(lang, { month: 'long', timeZone: 'Europe/Berlin' }).format(at);
      const written = (await until.textContent()) ?? '';
      expect(written).toContain(`${at.getUTCFullYear()}`);
      expect(written, 'the month written out').toContain(month);
      expect(written, 'the zone named').toMatch(lang === 'de' ? /MEZ|MESZ/ : /CET|CEST/);
      expect(written, '24-hour time').not.toMatch(/AM|PM/);
      await shots(page, `polish-done-${lang}`);

      const [dl] = await Promise.all([page.waitForEvent('download'), download.click()]);
      await dl.path();
      // the page re-reads the record after a download; ask to close once it knows
      await page.waitForTimeout(2500);
      await page.getByTestId('close-access').click();
      await page.getByTestId('close-confirm').waitFor();
      const danger = await page.evaluate(() => {
        const probe = document.createElement('div');
        probe.style.color = 'var(--danger)';
        document.body.append(probe);
        const c = getComputedStyle(probe).color;
        probe.style.color = 'var(--danger-bg)';
        const bg = getComputedStyle(probe).color;
        probe.remove();
        return { c, bg };
      });
      const reassurance = page.getByText(downloadedText);
      await reassurance.waitFor();
      const note = await reassurance.evaluate((e) => ({
        color: getComputedStyle(e).color,
        boxBg: getComputedStyle(e.closest('[data-testid="close-confirm"]')!).backgroundColor,
      }));
      expect(note.color, 'the reassurance is not written in the error colour').not.toBe(danger.c);
      expect(note.boxBg, 'the confirmation box is not an error box').not.toBe(danger.bg);
      const confirm = await page.getByTestId('confirm-close').evaluate((b) => ({
        bg: getComputedStyle(b).backgroundColor,
        border: getComputedStyle(b).borderTopColor,
      }));
      expect(confirm.bg, 'the irreversible action is not a filled primary button').toBe('rgba(0, 0, 0, 0)');
      expect(confirm.border, 'the irreversible action is outlined in the danger colour').toBe(danger.c);
      await shots(page, `polish-close-confirm-${lang}`);
      await page.context().close();
    });
  }

  for (const [locale, lang, another, retry, left4, last] of [
    ['en-GB', 'en', 'Share another credential', /try again/i, 'accepts 4 more answers', 'one more answer'],
    ['de-DE', 'de', 'Teilen Sie einen anderen Nachweis', /erneut/i, 'noch 4 Antworten', 'noch eine Antwort'],
  ] as const) {
    it(`says what can help after a revoked credential, counts the tries left, and ends without "try again" (${lang})`, async () => {
      const { apiKey } = await createBusiness(t, 'Musterfirma GmbH');
      const api = new Api(t.baseUrl, apiKey);
      const { workflowId } = await publishWorkflow(
        api,
        [{ primitive: 'identify', claims: ['given_name'] }],
        receiver.url,
      );
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      const context = await browser.newContext({ locale });
      const page = await context.newPage();
      await page.goto(created.body.url);
      await page.getByTestId('start').click();
      await page.getByTestId('step-identify').waitFor();
      const shareRevoked = async () => {
        // after a refusal the page keeps the test wallet open for the next answer
        const persona = page.getByTestId('persona');
        if (!(await persona.isVisible())) await page.getByTestId('share-wallet').click();
        await persona.selectOption('revoked');
        await page.getByTestId('share-reference-wallet').click();
      };
      await shareRevoked();
      const error = page.getByTestId('error');
      await error.waitFor({ timeout: 20_000 });
      const said = (await error.textContent()) ?? '';
      expect(said).toContain(another);
      expect(said, 'trying the revoked credential again cannot help').not.toMatch(retry);
      await expect.poll(() => page.getByTestId('tries-left').textContent()).toContain(left4);
      await shots(page, `polish-refused-${lang}`);
      for (let i = 2; i <= 4; i++) {
        await shareRevoked();
        await expect
          .poll(() => page.getByTestId('tries-left').textContent(), { timeout: 20_000 })
          .toContain(i === 4 ? last : `${5 - i}`);
      }
      await shots(page, `polish-last-try-${lang}`);
      // a reload still knows: the count comes from the server
      await page.reload();
      await expect.poll(() => page.getByTestId('tries-left').textContent()).toContain(last);

      await shareRevoked();
      await page.getByTestId('failed').waitFor({ timeout: 20_000 });
      expect(await error.count(), 'no "try again" above "could not be completed"').toBe(0);
      expect(await page.getByTestId('tries-left').count()).toBe(0);
      await shots(page, `polish-failed-${lang}`);
      await context.close();
    });
  }
});
