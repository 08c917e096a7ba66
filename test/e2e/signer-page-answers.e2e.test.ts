// The signer's page, issue 29, in real Chromium against MariaDB, at 390 and 1280 px in English, German and
// French, with axe-core at zero serious findings and screenshots in SIGNER_ANSWERS_SHOTS (default /tmp):
// a refused wallet answer appears where the action was, in an alert that takes the focus, with the answers
// left; a minor failing an age check sees no success mark but what happened in words, and the partial receipt
// does not count that step; a reload remembers the documents shown to their end; PDF text is readable on a
// phone (print-size view, text alternative with its line breaks); sizes are written one way per language;
// step deadlines name their time zone; links take the accent colour; /favicon.ico is served; the wallet's
// consent card names the documents (with fingerprints) or the terms; a step whose time ran out says so.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { axeFindings } from '../support/axe';
import { launchChromium, showDocumentsToEnd } from '../support/browser';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow, type StepInput } from '../support/workflows';

const SHOTS = process.env.SIGNER_ANSWERS_SHOTS ?? '/tmp/signer-answers-shots';
const LANGS = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR' } as const;
type Lang = keyof typeof LANGS;

/** A real A4 PDF whose one page has three lines of 12 pt text (each line its own text move). */
function linesPdf(lines: string[]): Uint8Array {
  const stream = `BT /F1 12 Tf 60 760 Td ${lines.map((l, i) => `${i ? '0 -18 Td ' : ''}(${l}) Tj`).join(' ')} ET`;
  const objects = [
    '',
    '<</Type/Catalog/Pages 2 0 R>>',
    '<</Type/Pages/Kids[4 0 R]/Count 1>>',
    '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>',
    '<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 3 0 R>>>>/Contents 5 0 R>>',
    `<</Length ${stream.length}>>stream\n${stream}\nendstream`,
  ];
  // a comment makes the file a little over a kilobyte, so its size is written in kB
  let out = `%PDF-1.4\n%${'x'.repeat(800)}\n`;
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj${objects[id]}endobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer<</Size ${objects.length}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

const LINES = ['Loan contract', 'Amount: 1000 EUR', 'Term: 12 months'];
const TERMS = 'I accept the rental terms of Musterfirma.';
const underAge: StepInput = {
  primitive: 'age_verify',
  threshold: 18,
  conditions: [
    {
      claim: 'over',
      operator: 'equals',
      values: ['false'],
      outcome: 'fail',
      failureReason: 'age_requirement_not_met',
    },
  ],
};

describe('the signer’s page answers where the person looks (Chromium, MariaDB)', () => {
  const clock = new ManualClock(Date.now());
  let t: TestService;
  let browser: Browser;
  let api: Api;
  const wf = {} as Record<'identify' | 'sign' | 'age' | 'attest', string>;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t = await startTestService({ label: 'e2e_signer_answers', clock });
    await receiver.start();
    browser = await launchChromium();
    api = new Api(t.baseUrl, (await createBusiness(t, 'Musterfirma GmbH')).apiKey);
    wf.identify = (
      await publishWorkflow(api, [{ primitive: 'identify', claims: ['given_name'] }], receiver.url)
    ).workflowId;
    wf.sign = (await setUpSignWorkflow(api)).workflowId;
    wf.age = (
      await publishWorkflow(api, [{ primitive: 'identify', claims: ['given_name'] }, underAge])
    ).workflowId;
    wf.attest = (await publishWorkflow(api, [{ primitive: 'attestation', terms: TERMS }])).workflowId;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver.stop();
    await t?.stop();
  });

  const create = async (kind: keyof typeof wf): Promise<Json> => {
    const created =
      kind === 'sign'
        ? await createSignSession(api, wf.sign, [pdfPart('loan-contract.pdf', linesPdf(LINES))])
        : await api.rest('POST', '/v1/sessions', { workflow_id: wf[kind] });
    expect(created.status).toBe(201);
    return created.body;
  };

  async function open(kind: keyof typeof wf, lang: Lang, width: number) {
    const session = await create(kind);
    const context = await browser.newContext({
      locale: LANGS[lang],
      timezoneId: 'Europe/Berlin',
      viewport: { width, height: 844 },
    });
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByTestId('start').click();
    await page
      .getByTestId(`step-${kind === 'attest' ? 'attestation' : kind === 'age' ? 'identify' : kind}`)
      .waitFor();
    return { page, id: session.id as string };
  }

  async function shoot(page: Page, name: string, fullPage = false) {
    expect(await axeFindings(page), `axe on ${name}`).toEqual([]);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${name}: no sideways scroll`,
    ).toBe(page.viewportSize()?.width);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage });
  }

  /** The reference wallet answers as `persona` (Share first on a step that has not asked yet). */
  async function share(page: Page, persona: string) {
    const picker = page.getByTestId('persona');
    if (!(await picker.isVisible())) await page.getByTestId('share-wallet').click();
    await picker.selectOption(persona);
    await page.getByTestId('share-reference-wallet').click();
  }

  for (const [kind, lang, width, left] of [
    ['identify', 'en', 390, 'accepts 4 more answers'],
    ['identify', 'en', 1280, 'accepts 4 more answers'],
    ['sign', 'de', 390, 'noch 4 Antworten'],
    ['sign', 'de', 1280, 'noch 4 Antworten'],
    ['sign', 'fr', 390, '4 réponses'],
  ] as const) {
    it(`a refused answer at a ${kind} step appears next to the button, focused, with the tries left (${lang}, ${width} px)`, async () => {
      const { page } = await open(kind, lang, width);
      await showDocumentsToEnd(page);
      await share(page, 'revoked');
      const alert = page.locator('[data-place="feedback-same-device"]');
      await alert.waitFor({ timeout: 20_000 });
      await expect.poll(() => alert.getByTestId('tries-left').textContent()).toContain(left);
      expect(await alert.getAttribute('role')).toBe('alert');
      // the answer took the focus, so a screen reader and the scroll position are where it is
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-place'))).toBe(
        'feedback-same-device',
      );
      const where = await page.evaluate(() => {
        const a = document.querySelector('[data-place="feedback-same-device"]')!.getBoundingClientRect();
        const b = document.querySelector('[data-testid="share-reference-wallet"]')!.getBoundingClientRect();
        return { top: a.top, bottom: a.bottom, gap: b.top - a.bottom, height: window.innerHeight };
      });
      expect(
        where.top >= 0 && where.bottom <= where.height,
        `the alert is in view: ${JSON.stringify(where)}`,
      ).toBe(true);
      // the button pressed is right below it
      expect(where.gap >= 0 && where.gap < 80, `gap to the button: ${where.gap}`).toBe(true);
      // nothing at the top of the page says it a second time
      expect(await page.getByTestId('error').count()).toBe(1);
      expect(await page.getByTestId('tries-left').count()).toBe(1);
      await shoot(page, `refused-${kind}-${lang}-${width}`);
      // pressing again: the answer is said again, in the same place
      await share(page, 'revoked');
      await expect
        .poll(() => alert.getByTestId('tries-left').textContent(), { timeout: 20_000 })
        .toContain('3');
      await page.context().close();
    });
  }

  for (const [lang, notDone, words] of [
    ['en', 'Not completed', 'Your wallet answered that you are not 18 or older'],
    ['de', 'Nicht abgeschlossen', 'dass Sie nicht 18 Jahre oder älter sind'],
    ['fr', 'Non terminée', 'vous n’avez pas 18 ans ou plus'],
  ] as const) {
    it(`a minor failing the age check sees no success mark, what happened, and a receipt of 1 of 2 (${lang})`, async () => {
      const { page } = await open('age', lang, 390);
      await share(page, 'minor');
      await page.getByTestId('step-age_verify').waitFor({ timeout: 20_000 });
      await share(page, 'minor');
      await page.getByTestId('failed').waitFor({ timeout: 20_000 });
      const steps = page.getByTestId('steps').locator('li.step');
      expect(await steps.nth(1).getAttribute('class')).not.toContain('step-done');
      expect(await steps.nth(1).getByTestId('step-not-done').textContent()).toBe(notDone);
      expect(await steps.nth(0).getAttribute('class')).toContain('step-done');
      expect(await page.getByTestId('done-mark').count()).toBe(0);
      expect(await page.getByTestId('failure-reason').textContent()).toContain(words);
      // the partial receipt counts the identify step only (its wording is the receipt's own)
      const receipt = page.getByTestId('receipt-panel');
      await receipt.waitFor({ timeout: 20_000 });
      await expect.poll(() => receipt.textContent()).toMatch(/\b1\b\D{1,40}\b2\b/);
      expect(await receipt.textContent()).not.toMatch(/\b2\b\D{1,40}\b2\b/);
      await shoot(page, `age-failed-${lang}-390`, true);
      await page.setViewportSize({ width: 1280, height: 900 });
      await shoot(page, `age-failed-${lang}-1280`, true);
      await page.context().close();
    });
  }

  for (const [lang, size, zone] of [
    ['en', /^PDF, \d\.\d kB$/, /CET|CEST/],
    ['de', /^PDF, \d,\d kB$/, /MEZ|MESZ/],
    ['fr', /^PDF, \d,\d\s?ko$/u, /UTC\+[12]/],
  ] as const) {
    it(`a sign step: reload remembers the document shown, PDF text readable on a phone, sizes and zones in ${lang}`, async () => {
      const { page } = await open('sign', lang, 390);
      const share = page.getByTestId('share-wallet');
      expect(await share.isDisabled()).toBe(true);
      await showDocumentsToEnd(page);
      await expect.poll(() => share.isDisabled()).toBe(false);
      await page.reload();
      await page.getByTestId('step-sign').waitFor();
      // remembered by the server: no scrolling again, Share stays enabled
      await page.locator('[data-testid="document-end"][data-shown="true"]').waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('share-wallet').isDisabled()).toBe(false);
      expect(await page.getByTestId('share-gate').count()).toBe(0);

      // one size format per language, in the step list and the viewer alike
      const facts = (await page.locator('.doc-facts').textContent())?.replace(/[()]/g, '').trim();
      expect(facts).toMatch(size);
      expect(await page.getByTestId('step-documents').textContent()).toContain(facts as string);
      // the step deadline names its zone, like the link line
      expect(await page.getByTestId('deadline').textContent()).toMatch(zone);

      // print size on a phone: the page scrolls inside its own box, not the page
      const canvas = page.locator('.doc-canvas canvas').first();
      const fitted = await canvas.evaluate((c) => c.getBoundingClientRect().width);
      await page.getByTestId('document-zoom').click();
      expect(await page.getByTestId('document-zoom').getAttribute('aria-pressed')).toBe('true');
      const zoomed = await canvas.evaluate((c) => c.getBoundingClientRect().width);
      expect(zoomed, '12 pt text at 16 px').toBeGreaterThanOrEqual(790);
      expect(zoomed / fitted).toBeGreaterThan(2);
      // the text alternative keeps the document's lines
      await page.locator('.doc-text-alt summary').first().click();
      const alt = await page
        .locator('.doc-text-lines')
        .first()
        .evaluate((p) => ({ text: p.textContent ?? '', ws: getComputedStyle(p).whiteSpace }));
      expect(alt.ws).toBe('pre-line');
      expect(alt.text.split('\n')).toEqual(LINES);
      // links in the accent colour
      const link = await page.getByTestId('document-download').evaluate((a) => {
        const probe = document.createElement('span');
        probe.style.color = 'var(--accent)';
        document.body.append(probe);
        const accent = getComputedStyle(probe).color;
        probe.remove();
        return { color: getComputedStyle(a).color, accent };
      });
      expect(link.color).toBe(link.accent);
      await page.getByTestId('document-zoom').evaluate((b) => b.scrollIntoView({ block: 'start' }));
      await shoot(page, `sign-zoomed-${lang}-390`);
      await page.setViewportSize({ width: 1280, height: 900 });
      await shoot(page, `sign-${lang}-1280`);
      await page.context().close();
    });
  }

  it('serves /favicon.ico', async () => {
    const res = await fetch(`${t.baseUrl}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/x-icon/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 4)]).toEqual([0, 0, 1, 0]); // an ICO header
  });

  describe('the wallet’s consent card (registrar mode: requests carry the registration certificate)', () => {
    beforeAll(async () => {
      await t.svc.verifierIdentity.registrar.rotateCa();
    });

    it('at a sign step names the document and its fingerprint (en 390, de 1280)', async () => {
      for (const [lang, width, signs] of [
        ['en', 390, 'You sign:'],
        ['de', 1280, 'Sie unterschreiben:'],
      ] as const) {
        const { page } = await open('sign', lang, width);
        await showDocumentsToEnd(page);
        await page.getByTestId('share-wallet').click();
        await page.getByTestId('persona').selectOption('adult');
        await page.getByTestId('share-reference-wallet').click();
        const card = page.getByTestId('wallet-consent-same-device');
        await card.waitFor({ timeout: 20_000 });
        const sha = (await page.getByTestId('document-sha256').textContent()) as string;
        expect(await card.textContent()).toContain(signs);
        const docs = (await card.getByTestId('consent-documents').textContent()) ?? '';
        expect(docs).toContain('loan-contract.pdf');
        expect(docs).toContain(sha);
        await card.scrollIntoViewIfNeeded();
        await shoot(page, `consent-sign-${lang}-${width}`);
        await card.getByTestId('consent-share').click();
        await page.getByTestId('done').waitFor({ timeout: 20_000 });
        await page.context().close();
      }
    });

    it('at an attestation step shows the terms (fr 390 and 1280), the step named in plain words', async () => {
      const { page } = await open('attest', 'fr', 390);
      expect(await page.getByTestId('steps').textContent()).toContain(
        'Votre accord sur les conditions présentées',
      );
      await page.getByTestId('share-wallet').click();
      await page.getByTestId('persona').selectOption('adult');
      await page.getByTestId('share-reference-wallet').click();
      const card = page.getByTestId('wallet-consent-same-device');
      await card.waitFor({ timeout: 20_000 });
      expect(await card.getByTestId('consent-terms').textContent()).toBe(TERMS);
      expect(await card.textContent()).toContain('Vous approuvez ces conditions');
      await card.scrollIntoViewIfNeeded();
      await shoot(page, 'consent-terms-fr-390');
      await page.setViewportSize({ width: 1280, height: 900 });
      await shoot(page, 'consent-terms-fr-1280');
      await page.context().close();
    });
  });

  it('a step whose time ran out says the step’s time ran out, not that the link expired (en, de, fr)', async () => {
    const opened = [];
    for (const lang of ['en', 'de', 'fr'] as const)
      opened.push({ lang, ...(await open('identify', lang, 390)) });
    clock.advance(11 * 60_000); // identify: 10 minutes from the step's start
    for (const [i, [title, tag]] of [
      ['The time for this step ran out', 'Time ran out'],
      ['Die Zeit für diesen Schritt ist abgelaufen', 'Zeit abgelaufen'],
      ['Le temps imparti pour cette étape est écoulé', 'Temps écoulé'],
    ].entries()) {
      const { page, lang } = opened[i] as (typeof opened)[number];
      expect((await api.rest('GET', `/v1/sessions/${opened[i]?.id}`)).body.failure_reason.window).toBe(
        'step',
      );
      await page.reload();
      const expired = page.getByTestId('expired');
      await expired.waitFor({ timeout: 20_000 });
      expect(await expired.getAttribute('data-window')).toBe('step');
      expect(await expired.locator('h2').textContent()).toBe(title);
      expect(await page.getByTestId('step-not-done').textContent()).toBe(tag);
      await shoot(page, `step-expired-${lang}-390`, true);
      await page.setViewportSize({ width: 1280, height: 900 });
      await shoot(page, `step-expired-${lang}-1280`, true);
      await page.context().close();
    }
  });
});
