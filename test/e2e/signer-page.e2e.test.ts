// The hosted page for every signer (issue 10), in real Chromium: a browser that prefers German gets the page
// in German and completes a sandbox session by keyboard alone (Tab to move, Enter/Space to act); axe-core
// finds nothing serious or critical on any screen; the switcher changes the language in place. Screenshots of
// each screen at 390 px and 1280 px go to SIGNER_SHOTS_DIR when set (for people to look at; nothing asserts
// pixels).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { launchChromium, showDocumentsToEnd, startE2E, stopE2E } from '../support/browser';
import {
  Api,
  createBusiness,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { pdftotext, SignerBrowser } from '../support/receipts';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import { shareWithReferenceWallet, startedSession } from '../support/signer';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SIGNER_SHOTS_DIR;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
async function axeFindings(page: Page): Promise<string[]> {
  // evaluate() runs over the DevTools protocol, so the page's CSP (no inline script) does not block it
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: unknown[] }> } })
      .axe;
    return (await axe.run(document)).violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

async function shots(page: Page, name: string) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Every screen is checked the same way: no serious/critical axe finding, then its screenshots. */
async function checkScreen(page: Page, name: string) {
  expect(await axeFindings(page), name).toEqual([]);
  await shots(page, name);
}

/** Presses Tab until the element with this test id has focus (as a keyboard user would), at most 60 times. */
async function tabTo(page: Page, testId: string) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid);
    if (focused === testId) return;
  }
  throw new Error(`Tab never reached ${testId}`);
}

describe('the signer page in German, by keyboard alone, accessible (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_signer_page', receiver));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  it('shows a broken link in German with no serious accessibility finding', async () => {
    const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
    await page.goto(`${t.baseUrl}/s/sess_00000000000000000000000000`);
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Diese Verifizierung konnte nicht geöffnet werden');
    await expect
      .poll(() => page.getByTestId('error').textContent())
      .toContain('Dieser Verifizierungslink ist ungültig.');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    await checkScreen(page, 'error-not-found');
  });

  it('completes a sandbox session in German with Tab, Enter and Space only', async () => {
    const { apiKey } = await createBusiness(t, 'Bäckerei Müller GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);

    const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
    await page.goto(created.body.url);
    await page.getByText('Bereit, wenn Sie es sind').waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await page.title()).toBe('Bäckerei Müller GmbH – Verifizierung');
    expect(await page.getByRole('heading', { level: 2 }).first().textContent()).toBe(
      'Bäckerei Müller GmbH bittet Sie, Folgendes zu teilen:',
    );
    expect(await page.getByTestId('steps').textContent()).toContain('Vorname');
    expect(await page.getByTestId('language').inputValue()).toBe('de');
    await checkScreen(page, 'open');

    await tabTo(page, 'start');
    await page.keyboard.press('Enter');
    await page.getByTestId('share-wallet').waitFor();
    expect(await page.getByTestId('share-wallet').textContent()).toBe('Mit Wallet teilen');
    await checkScreen(page, 'started');

    await tabTo(page, 'share-wallet');
    await page.keyboard.press('Space');
    await page.getByTestId('share-reference-wallet').waitFor();
    // the sandbox wallet preselects its first test person (the honest adult), so no arrow key is needed
    expect(await page.getByTestId('persona').inputValue()).toBe('adult');
    expect(await page.getByTestId('cross-device').textContent()).toContain(
      'Wallet auf einem anderen Gerät verwenden',
    );
    await checkScreen(page, 'step-wallet');

    await tabTo(page, 'share-reference-wallet');
    await page.keyboard.press('Enter');
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('done').textContent()).toContain('Verifizierung abgeschlossen.');
    await page.getByTestId('download-receipt').waitFor();
    expect(await page.getByTestId('receipt-panel').textContent()).toContain('Ihr Beleg');
    await checkScreen(page, 'done-receipt');

    const read = await api.rest('GET', `/v1/sessions/${created.body.id}`);
    expect(read.body.status).toBe('completed');

    // the switcher changes every string in place and is remembered for this browser
    await page.getByTestId('language').selectOption('fr');
    await expect.poll(() => page.getByTestId('done').textContent()).toContain('Vérification terminée.');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
    expect(await page.getByTestId('receipt-panel').textContent()).toContain('Votre justificatif');
    await checkScreen(page, 'done-fr');
    await page.reload();
    await expect.poll(() => page.getByTestId('done').textContent()).toContain('Vérification terminée.');
    await page.getByTestId('language').selectOption('en');
    await expect.poll(() => page.getByTestId('done').textContent()).toContain('Verification complete.');
  });

  it('loads with one request: the open carries the page’s read and answers it (ADR 0062)', async () => {
    const { apiKey } = await createBusiness(t, 'Einmal GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
    const asked: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (r.method() === 'POST') asked.push(`${url.pathname} ${r.postDataJSON()?.operationName ?? ''}`);
    });
    await page.goto(created.body.url);
    await page.getByText('Bereit, wenn Sie es sind').waitFor();
    expect(await page.getByTestId('steps').textContent()).toContain('Vorname');
    // the session shown came from the open's answer: no /graphql read on load (the page polls later)
    expect(asked).toEqual([`/t/sessions/${created.body.id}/open SignerSession`]);
  });

  it('Start and the wallet answer carry the page’s read and answer it (ADR 0062 amendment)', async () => {
    const { apiKey } = await createBusiness(t, 'Zweimal GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
    const answered = (suffix: string) =>
      page.waitForResponse(
        (r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith(suffix),
      );
    await page.goto(created.body.url);
    const start = answered('/start');
    await page.getByTestId('start').click();
    const started = await start;
    expect(started.request().postDataJSON()).toMatchObject({ operationName: 'SignerSession' });
    expect((await started.json()).data.signerSession).toMatchObject({ status: 'in_progress' });
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('adult');
    const response = answered('/wallet-response');
    await page.getByTestId('share-reference-wallet').click();
    const done = await response;
    expect(done.request().postDataJSON().read).toMatchObject({ operationName: 'SignerSession' });
    expect((await done.json()).data.signerSession).toMatchObject({ status: 'completed' });
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
  });

  it('shows a refused wallet answer in German, and English to a browser that prefers neither', async () => {
    const { apiKey } = await createBusiness(t, 'Acme GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await setUpIdentifyWorkflow(api, receiver.url);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });

    const page = await (await browser.newContext({ locale: 'de-AT' })).newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('revoked');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('error').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('error').textContent()).toContain(
      'Dieser Nachweis wurde von seinem Aussteller widerrufen',
    );
    await checkScreen(page, 'error-wallet');

    const other = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const page2 = await (await browser.newContext({ locale: 'ja-JP' })).newPage();
    await page2.goto(other.body.url);
    await page2.getByText('Ready when you are').waitFor();
    expect(await page2.evaluate(() => document.documentElement.lang)).toBe('en');
  });

  it('shows every step kind in French with no serious accessibility finding, then the receipt code screen', async () => {
    const { apiKey } = await createBusiness(t, 'Société Générale des Tests');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await setUpSignWorkflow(api, {
      before: [{ primitive: 'age_verify', threshold: 18 }],
      after: [{ primitive: 'attestation', terms: 'Je confirme avoir lu le contrat.' }],
      webhookUrl: receiver.url,
    });
    const created = await createSignSession(api, workflowId, [pdfPart('Contrat.pdf', minimalPdf('Contrat'))]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const page = await (await browser.newContext({ locale: 'fr-FR' })).newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    const expected: Record<string, string> = {
      age_verify: 'Confirmer votre âge',
      sign: 'Signer ce document',
      attestation: 'Accepter ces conditions',
    };
    for (const kind of ['age_verify', 'sign', 'attestation']) {
      await page.getByTestId(`step-${kind}`).waitFor({ timeout: 20_000 });
      expect(await page.getByTestId(`step-${kind}`).getByRole('heading', { level: 2 }).textContent()).toBe(
        expected[kind],
      );
      await showDocumentsToEnd(page);
      await page.getByTestId('share-wallet').click();
      await page.getByTestId('share-reference-wallet').waitFor();
      await checkScreen(page, `step-${kind}-fr`);
      await page.getByTestId('share-reference-wallet').click();
    }
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    await page.getByTestId('email-input').fill('signataire@example.com');
    await page.getByTestId('send-code').click();
    await page.getByTestId('code-sent').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('code-sent').textContent()).toContain(
      'Nous avons envoyé un code à six chiffres à',
    );
    await page.getByTestId('close-access').click();
    await page.getByTestId('close-confirm').waitFor();
    await checkScreen(page, 'receipt-code-close-fr');
  });
});

// The remaining screens of the signer page and the emailed receipt page, each reached through the API as a
// business and a signer would (stop, five refused wallet answers, a gate, an emailed receipt link, the clock
// past the end), then opened in a fresh browser: axe finds nothing serious or critical on any of them.
describe('the signer page end states and the receipt link page, accessible (Chromium)', () => {
  const clock = new ManualClock(Date.parse('2030-04-01T08:00:00.000Z'));
  let t: TestService;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let api: Api;
  let identify: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label: 'e2e_signer_states', clock, smtpUrl: smtp.url, workers: false });
    browser = await launchChromium();
    api = new Api(t.baseUrl, (await createBusiness(t, 'Zustand GmbH')).apiKey);
    ({ workflowId: identify } = await setUpIdentifyWorkflow(api, 'https://8.8.8.8/hooks', ['given_name']));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await smtp?.stop();
  });

  /** Opens the session's page in a fresh browser (not the bound one) and waits for the screen. */
  const open = async (url: string, testId: string, locale = 'en-GB') => {
    const page = await (await browser.newContext({ locale })).newPage();
    await page.goto(url);
    await page.getByTestId(testId).waitFor({ timeout: 20_000 });
    return page;
  };

  it('stopped, in English and German', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identify });
    expect((await api.rest('POST', `/v1/sessions/${created.body.id}/stop`)).status).toBe(200);
    await checkScreen(await open(created.body.url, 'stopped'), 'stopped');
    await checkScreen(await open(created.body.url, 'stopped', 'de-DE'), 'stopped-de');
  });

  it('failed after five refused wallet answers', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identify });
    const { signer } = await startedSession(t.baseUrl, created);
    for (let i = 0; i < 5; i++) await shareWithReferenceWallet(t.svc, signer, 'revoked');
    expect((await signer.session()).body.status).toBe('failed');
    await checkScreen(await open(created.body.url, 'failed'), 'failed');
  });

  it('waiting for the business at a gate', async () => {
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'], gateAfter: true }],
      'https://8.8.8.8/hooks',
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const { signer } = await startedSession(t.baseUrl, created);
    expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
    expect((await signer.session()).body.status).toBe('awaiting_decision');
    await checkScreen(await open(created.body.url, 'waiting', 'fr-FR'), 'waiting-fr');
  });

  it('the receipt page of an emailed link, and of a link that is not valid', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identify });
    const b = new SignerBrowser(t.baseUrl, created.body.id);
    await b.start();
    expect((await shareWithReferenceWallet(t.svc, b.client)).status).toBe(200);
    const to = 'signer@example.org';
    const n = smtp.messages.length;
    expect((await b.requestCode(to)).errors).toBeUndefined();
    const codeMail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= n && /verification code/.test(m.subject ?? ''),
    );
    const code = (codeMail.subject ?? '').match(/(\d{6})/)?.[1] as string;
    const m = smtp.messages.length;
    expect((await b.sendEmail(code)).errors).toBeUndefined();
    const mail = await smtp.waitFor((x) => smtp.messages.indexOf(x) >= m && /receipt/i.test(x.subject ?? ''));
    const link = (mail.text ?? '').match(/(http:\/\/\S+\/r\/[\w-]{43})/)?.[1] as string;
    expect(link).toBeDefined();

    const page = await (await browser.newContext()).newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Your receipt' }).waitFor();
    await checkScreen(page, 'receipt-link');
    await page.goto(`${link.slice(0, -3)}AAA`);
    await page.getByRole('heading', { name: 'Receipt unavailable' }).waitFor();
    await checkScreen(page, 'receipt-link-invalid');
  });

  it('the receipt page of an emailed link carries the business’s branding and the language the receipt was asked in, with a choice', async () => {
    const brandedApi = new Api(t.baseUrl, (await createBusiness(t, 'Beleg GmbH')).apiKey);
    const branded = await brandedApi.gql(
      'mutation($i: BrandingInput!) { setBranding(input: $i) { displayName accentColor } }',
      { i: { displayName: 'Bäckerei Beleg', accentColor: '#8b1a1a' } },
    );
    expect(branded.errors).toBeUndefined();
    const { workflowId } = await setUpIdentifyWorkflow(brandedApi, 'https://8.8.8.8/hooks', ['given_name']);
    const created = await brandedApi.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const b = new SignerBrowser(t.baseUrl, created.body.id);
    await b.start();
    expect((await shareWithReferenceWallet(t.svc, b.client)).status).toBe(200);
    const fields = 'sessionId';
    const n = smtp.messages.length;
    const asked = await b.gql(
      `mutation($sessionId: ID!, $email: String!) { requestReceiptEmailCode(sessionId: $sessionId, email: $email, lang: "de", timeZone: "Europe/Berlin") { ${fields} } }`,
      { email: 'beleg@example.org' },
    );
    expect(asked.errors).toBeUndefined();
    const codeMail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= n && /\d{6}/.test(m.subject ?? ''),
    );
    const code = (codeMail.subject ?? '').match(/(\d{6})/)?.[1] as string;
    const m = smtp.messages.length;
    const sent = await b.gql(
      `mutation($sessionId: ID!, $code: String!) { sendReceiptEmail(sessionId: $sessionId, code: $code, lang: "de", timeZone: "Europe/Berlin") { ${fields} } }`,
      { code },
    );
    expect(sent.errors).toBeUndefined();
    const mail = await smtp.waitFor((x) => smtp.messages.indexOf(x) >= m && /\/r\//.test(x.text ?? ''));
    const link = (mail.text ?? '').match(/(http:\/\/\S+\/r\/[\w-]{43})/)?.[1] as string;
    expect(link).toBeDefined();

    // an English browser: the page follows the delivery's German, names the business as branded, in its colour
    const page = await (await browser.newContext({ locale: 'en-GB' })).newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: 'Ihr Beleg' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await page.getByTestId('receipt-business').textContent()).toBe('Bäckerei Beleg');
    const button = page.getByRole('link', { name: 'Beleg herunterladen (PDF)' });
    expect(await button.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe('rgb(139, 26, 26)');
    // the date as the hosted page's receipt writes it in the delivery's zone, not toUTCString()
    expect(await page.locator('time').textContent()).not.toMatch(/GMT/);
    await checkScreen(page, 'receipt-link-branded-de');
    // the choice of language, without script
    await page.getByTestId('receipt-langs').getByRole('link', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Your receipt' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await checkScreen(page, 'receipt-link-branded-en');
    await page.getByTestId('receipt-langs').getByRole('link', { name: 'Français' }).click();
    await page.getByRole('heading', { name: 'Votre reçu' }).waitFor();
    // its PDF follows the chosen language
    const href =
      (await page.getByRole('link', { name: 'Télécharger le reçu (PDF)' }).getAttribute('href')) ?? '';
    expect(href).toMatch(/receipt\.pdf\?lang=fr$/);
    const pdf = await page.request.get(new URL(href, page.url()).href);
    expect(pdf.status()).toBe(200);
    const file = path.join(os.tmpdir(), `receipt-link-fr-${process.pid}.pdf`);
    fs.writeFileSync(file, await pdf.body());
    expect(pdftotext(file)).toContain('Reçu');
    fs.rmSync(file);
  });

  it('expired (last: it moves the clock past every session of this block)', async () => {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identify, expires_in: 60 });
    clock.advance(61_000);
    await t.svc.sweep();
    await checkScreen(await open(created.body.url, 'expired'), 'expired');
  });
});
