// Issue 17 (ADR 0029) in real Chromium: the sign step shows each document inline (a three-page PDF page by
// page with pdf.js from our own build, a text file), scaled to a 390 px phone; the wallet is offered only
// once every document has been scrolled to its end, and the session then completes with the fact recorded in
// the timeline. The deadline line shows what the person faces now: the link's expiry before Start, the step
// window once the identify step has started (never the link's time), a countdown in the last minutes that
// follows the injected clocks (the service's ManualClock and the page's fake timers), and nothing
// contradicting the expired page. axe finds nothing serious; screenshots go to SIGNER_SHOTS_DIR when set.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { axeFindings } from '../support/axe';
import { launchChromium, showDocumentsToEnd } from '../support/browser';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow, textPart } from '../support/sign-workflow';
import { multiPagePdf, publishWorkflow } from '../support/workflows';

const SHOTS = process.env.SIGNER_SHOTS_DIR;
const MIN = 60_000;
const TIMELINE = `query($id: ID!) { sessionTimeline(id: $id) { entries { kind stage detail } } }`;

/** axe, then screenshots at 390 and 1280 px (viewport only when `full` is false: a full-page capture would
 * bring every document end into view). */
async function checkScreen(page: Page, name: string, full = true) {
  expect(await axeFindings(page), name).toEqual([]);
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  const size = page.viewportSize() ?? { width: 390, height: 844 };
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: full });
  }
  await page.setViewportSize(size);
}

describe('the signer sees the documents and the deadline (Chromium)', () => {
  const clock = new ManualClock(Date.parse('2030-06-03T08:00:00.000Z'));
  let t: TestService;
  let browser: Browser;
  let api: Api;

  beforeAll(async () => {
    t = await startTestService({ label: 'e2e_signer_viewer', clock, workers: false });
    browser = await launchChromium();
    api = new Api(t.baseUrl, (await createBusiness(t, 'Kredit AG')).apiKey);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('shows a multi-page PDF and a text page by page; the wallet only after both were shown to the end', async () => {
    const { workflowId } = await setUpSignWorkflow(api, {
      documents: 2,
      webhookUrl: 'http://127.0.0.1:9/hooks',
      name: 'Loan',
    });
    const created = await createSignSession(api, workflowId, [
      pdfPart('Loan contract.pdf', multiPagePdf('Loan contract', 3)),
      textPart('Terms.txt', 'Repayment in 12 instalments.\nNo early fee.\n'),
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(created.body.url);

    // before Start: the documents are named, with type and size
    const listed = page.getByTestId('step-documents');
    await listed.waitFor();
    expect(await listed.textContent()).toContain('Loan contract.pdf (PDF,');
    expect(await listed.textContent()).toContain('Terms.txt (Text,');
    await checkScreen(page, 'landing-en');

    await page.getByTestId('start').click();
    await page.getByTestId('step-sign').waitFor({ timeout: 20_000 });
    const pdf = page.getByTestId('document-0');
    await pdf.getByTestId('document-end').filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
    // three pages, each drawn as wide as the phone's card allows, none wider than the screen
    expect(await pdf.getByTestId('document-page').count()).toBe(3);
    for (const canvas of await pdf.locator('canvas').all()) {
      const box = await canvas.boundingBox();
      expect(box?.width).toBeGreaterThan(300);
      expect((box?.x ?? 0) + (box?.width ?? 999)).toBeLessThanOrEqual(390);
      expect(await canvas.evaluate((c: HTMLCanvasElement) => c.width > 0 && c.height > c.width)).toBe(true);
    }
    expect(await pdf.getByText('Page 3 of 3', { exact: true }).count()).toBe(1);
    // pdf.js read the page text (offered to assistive technology and as plain text)
    expect(await pdf.locator('.doc-text-alt p').first().textContent()).toBe('Loan contract, page 1 of 3');
    expect(await page.getByTestId('document-1').getByTestId('document-text').textContent()).toBe(
      'Repayment in 12 instalments.\nNo early fee.\n',
    );
    expect(await page.getByTestId('document-1').getByTestId('document-download').getAttribute('href')).toBe(
      `/t/sessions/${id}/documents/1`,
    );

    // not scrolled yet: nothing shown to the end, the wallet cannot be asked
    const share = page.getByTestId('share-wallet');
    expect(await share.isDisabled()).toBe(true);
    expect(await page.getByTestId('share-gate').isVisible()).toBe(true);
    const timeline = async () => (await api.gql(TIMELINE, { id })).data.sessionTimeline.entries as Json[];
    expect((await timeline()).filter((e) => e.kind === 'document_shown_to_end')).toEqual([]);
    await checkScreen(page, 'viewer-en', false);
    await page.getByTestId('language').selectOption('de');
    await page.getByText('Seite 1 von 3').waitFor();
    await checkScreen(page, 'viewer-de', false);
    await page.getByTestId('language').selectOption('en');

    // the first page's end alone is not the document's end
    await pdf.getByTestId('document-page').first().scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    expect(await share.isDisabled()).toBe(true);

    await showDocumentsToEnd(page);
    await expect.poll(() => share.isDisabled(), { timeout: 10_000 }).toBe(false);
    expect(await page.getByTestId('share-gate').count()).toBe(0);
    // both ends came into view together: recorded in the order the reports arrived
    const shownToEnd = (await timeline()).filter((e) => e.kind === 'document_shown_to_end');
    expect(shownToEnd.map((e) => e.detail.position).sort()).toEqual([0, 1]);
    await checkScreen(page, 'viewer-shown-en');

    await share.click();
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    const kinds = (await timeline()).map((e) => e.kind);
    expect(kinds.indexOf('wallet_request')).toBeGreaterThan(kinds.lastIndexOf('document_shown_to_end'));
    expect(kinds).toContain('completed');
    await context.close();
  });

  it('the deadline: the link before Start, the step window after it, a countdown, then only "expired"', async () => {
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      'http://127.0.0.1:9/hooks',
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 3600 });
    expect(created.status).toBe(201);
    const context = await browser.newContext({
      locale: 'en-GB',
      timezoneId: 'UTC',
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    // the page's timers and Date under the test's control (a device clock years off the service's, on purpose)
    await page.clock.install({ time: new Date('2026-01-01T00:00:00.000Z') });
    await page.goto(created.body.url);
    const deadline = page.getByTestId('deadline');
    await deadline.waitFor();
    await page.clock.pauseAt(new Date('2026-01-01T00:01:00.000Z'));
    expect(await deadline.getAttribute('data-kind')).toBe('link');
    expect(await deadline.textContent()).toBe('This link is valid until 3 June 2030 at 09:00 UTC.');

    // started at 8:02: the identify window ends at 8:12, well before the link's 9:00
    clock.advance(2 * MIN);
    await page.getByTestId('start').click();
    await page.getByTestId('step-identify').waitFor();
    expect(await deadline.getAttribute('data-kind')).toBe('step');
    // with its zone, like the link line (issue 29)
    expect(await deadline.textContent()).toBe('Finish this step by 08:12 UTC.');
    expect(await page.locator('body').textContent()).not.toContain('valid until');

    // 8:08: four minutes left, a countdown (in German too)
    clock.advance(6 * MIN);
    await page.clock.runFor(3000); // one poll of the page
    await expect.poll(() => deadline.textContent()).toBe('Time left for this step: 4:00 (08:12 UTC)');
    expect(await deadline.getAttribute('role')).toBe('timer');
    await page.getByTestId('language').selectOption('de');
    await expect
      .poll(() => deadline.textContent())
      .toBe('Verbleibende Zeit für diesen Schritt: 4:00 (08:12 UTC)');
    await page.getByTestId('language').selectOption('en');

    // thirty seconds later on both clocks
    clock.advance(30_000);
    await page.clock.runFor(30_000);
    await expect.poll(() => deadline.textContent()).toBe('Time left for this step: 3:30 (08:12 UTC)');

    // axe waits on timers: the page's clock runs freely while the screens are checked
    await page.clock.resume();
    await checkScreen(page, 'countdown-en');
    await page.getByTestId('language').selectOption('de');
    await checkScreen(page, 'countdown-de');
    await page.getByTestId('language').selectOption('en');
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 5000);

    // past 8:12: the step window has closed; the page says expired and nothing else about time
    clock.advance(4 * MIN);
    await page.clock.runFor(3000);
    await page.getByTestId('expired').waitFor({ timeout: 10_000 });
    expect(await deadline.count()).toBe(0);
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).not.toMatch(/valid until|Time left|Finish this step/);
    await page.clock.resume();
    await checkScreen(page, 'expired-en');
    await context.close();
  });

  // Issue 20, "The signer's page": words instead of enums, no internal workflow name, the page kept in place
  // while an answer is checked and the record loads, and a done page that says so.
  it('shows words, not states or the workflow name; keeps the page while checking; marks the end', async () => {
    const { workflowId } = await publishWorkflow(
      api,
      [
        { primitive: 'identify', claims: ['given_name'] },
        { primitive: 'identify', claims: ['family_name'] },
      ],
      'http://127.0.0.1:9/hooks',
      'KYC-internal-v7',
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const context = await browser.newContext({ locale: 'de-DE', viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').waitFor();
    const body = async () => (await page.locator('body').textContent()) ?? '';
    expect(await body()).not.toMatch(/KYC-internal-v7|Status:|created/);

    await page.getByTestId('start').click();
    await page.getByTestId('step-identify').waitFor();
    expect(await body()).not.toMatch(/KYC-internal-v7|Status:|in_progress/);
    // from here on, note whether the whole-page loading state ever replaces the page
    await page.evaluate(() => {
      const w = window as unknown as { sawLoading: boolean };
      w.sawLoading = false;
      new MutationObserver(() => {
        if (document.querySelector('[data-testid="loading"]')) w.sawLoading = true;
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('receipt-panel').waitFor({ timeout: 20_000 });
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    await page.getByTestId('receipt-panel').getByRole('button').first().waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { sawLoading: boolean }).sawLoading)).toBe(false);

    // the end: a success mark, and (no return URL) that the page can be closed
    expect(await page.getByTestId('done-mark').isVisible()).toBe(true);
    expect(await page.getByTestId('done-close').textContent()).toBe(
      'Sie können diese Seite jetzt schließen.',
    );
    expect(await body()).not.toMatch(/KYC-internal-v7|Status:|completed/);
    await checkScreen(page, 'done-de');

    // another browser sees the outcome, but is not told of a record below that it cannot have
    const other = await (await browser.newContext({ locale: 'en-GB' })).newPage();
    await other.goto(created.body.url);
    await other.getByTestId('done').waitFor();
    expect(await other.getByTestId('receipt-panel').count()).toBe(0);
    expect(await other.locator('body').textContent()).not.toContain('is below');
    await context.close();
  });
});
