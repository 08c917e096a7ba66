// The signer's record in real Chromium with the real SMTP server: a four-step session (identify, age_verify,
// sign, attestation) whose person downloads a partial receipt midway and the final one, the signed originals
// (hash next to each link), receives the emailed receipt after the six-digit code, closes online access and
// then finds every link refused, the emailed one included. Screenshots of each new screen at phone and desktop
// widths go to RECEIPT_SHOTS_DIR when set (for looking at them; nothing asserts pixels).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedMail } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, showDocumentsToEnd } from '../support/browser';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { pdfdetachJson, pdftotext, scratch, verifyReceiptCli } from '../support/receipts';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const TERMS = 'Я подтверждаю получение. Επιβεβαιώνω την παραλαβή. Potwierdzam odbiór.';
const SHOTS = process.env.RECEIPT_SHOTS_DIR;

describe('the signer’s record end to end (Chromium, MariaDB, SMTP)', () => {
  let t: TestService;
  let smtp: TestSmtpServer;
  let browser: Browser;
  const receiver = new WebhookReceiver();
  const files = scratch();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label: 'e2e_receipts', smtpUrl: smtp.url });
    await receiver.start();
    browser = await launchChromium();
  });
  afterAll(async () => {
    files.done();
    await browser?.close();
    await receiver.stop();
    await smtp?.stop();
    await t?.stop();
  });

  async function shots(page: Page, name: string) {
    if (!SHOTS) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  async function shareAs(page: Page, persona = 'adult') {
    await showDocumentsToEnd(page);
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption(persona);
    await page.getByTestId('share-reference-wallet').click();
  }
  async function download(page: Page, testId: string, name: string): Promise<string> {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).first().click()]);
    const file = path.join(files.dir, name);
    await dl.saveAs(file);
    return file;
  }

  it('downloads partial and final receipts and originals, emails the receipt, then closes access', async () => {
    const { apiKey } = await createBusiness(t, 'Łukasz & Şule Sp. z o.o.');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await setUpSignWorkflow(api, {
      identifyBefore: ['given_name', 'family_name'],
      before: [{ primitive: 'age_verify', threshold: 18 }],
      after: [{ primitive: 'attestation', terms: TERMS }],
      webhookUrl: receiver.url,
      name: 'Договор · Σύμβαση',
    });
    const contract = minimalPdf('Mietvertrag');
    const created = await createSignSession(api, workflowId, [pdfPart('Mietvertrag.pdf', contract)]);
    expect(created.status).toBe(201);
    const session = created.body;
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByTestId('start').click();

    // midway: after identify, a partial receipt
    await page.getByTestId('step-identify').waitFor();
    await shareAs(page);
    await page.getByTestId('download-receipt').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('download-receipt').textContent()).toContain('partial');
    await shots(page, '1-partial');
    const partial = await download(page, 'download-receipt', 'partial.pdf');
    const partialText = pdftotext(partial);
    expect(partialText).toContain('PARTIAL');
    expect(partialText).toContain('Łukasz & Şule');
    expect(partialText).not.toContain('Договор · Σύμβαση'); // the workflow's internal name (issue 29)
    expect((await verifyReceiptCli(partial, { service: t.baseUrl })).code).toBe(0);

    await page.getByTestId('step-age_verify').waitFor({ timeout: 20_000 });
    await shareAs(page);
    await page.getByTestId('step-sign').waitFor({ timeout: 20_000 });
    await shareAs(page);
    await page.getByTestId('step-attestation').waitFor({ timeout: 20_000 });
    await shareAs(page);
    await page.getByTestId('done').waitFor({ timeout: 20_000 });

    // the final receipt and the original with its hash next to the link
    await page.getByTestId('access-until').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('download-receipt').textContent()).toBe('Download receipt (PDF)');
    expect(await page.getByTestId('original-hash').textContent()).toBe(sha256Hex(contract));
    await shots(page, '2-done');
    const final = await download(page, 'download-receipt', 'final.pdf');
    expect(pdftotext(final)).not.toContain('PARTIAL');
    expect(pdfdetachJson(final).steps).toHaveLength(4);
    expect((await verifyReceiptCli(final, { service: t.baseUrl })).code).toBe(0);
    const original = await download(page, 'original-link', 'original.pdf');
    expect(sha256Hex(fs.readFileSync(original))).toBe(sha256Hex(contract));

    // the emailed receipt: code with countdown, then the PDF as attachment with a receipt-page link
    const before = smtp.messages.length;
    await page.getByTestId('email-input').fill('signer@example.org');
    await page.getByTestId('send-code').click();
    await page.getByTestId('code-sent').waitFor();
    expect(await page.getByTestId('code-countdown').textContent()).toMatch(/^(10:00|9:[0-5]\d)$/);
    expect(await page.getByTestId('send-code').isDisabled()).toBe(true); // resend after a minute
    expect(await page.getByTestId('send-code').textContent()).toMatch(/Send a new code in 0:[0-5]\d|1:00/);
    const codeMail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject ?? ''),
    );
    await shots(page, '3-email-code');
    await page.getByTestId('code-input').fill((codeMail.subject ?? '').match(/(\d{6})/)?.[1] as string);
    await page.getByTestId('send-receipt').click();
    await page.getByTestId('email-sent').waitFor({ timeout: 20_000 });
    const mail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) > before && /receipt/i.test(m.subject ?? ''),
    );
    const attachment = mail.attachments.find((a) => a.contentType === 'application/pdf');
    expect(
      (
        await verifyReceiptCli(files.write('emailed.pdf', attachment?.content as Buffer), {
          service: t.baseUrl,
        })
      ).code,
    ).toBe(0);
    const link = (mail.text ?? '').match(/(http:\/\/\S+\/r\/[\w-]{43})/)?.[1] as string;
    const linkPage = await context.newPage();
    expect((await linkPage.goto(link))?.status()).toBe(200);
    await shots(linkPage, '4-link-page');

    // close online access: downloaded here, so no warning; the note about deliveries in flight is there
    await page.getByTestId('close-access').click();
    await page.getByTestId('close-confirm').waitFor();
    expect(await page.getByTestId('no-download-warning').count()).toBe(0);
    expect(await page.getByTestId('close-confirm').textContent()).toContain('may still arrive');
    await shots(page, '5-close-confirm');
    await page.getByTestId('confirm-close').click();
    await page.getByTestId('access-closed').waitFor();
    await shots(page, '6-closed');

    // every link is refused now, the emailed one included
    const get = (p: string) => context.request.get(new URL(p, t.baseUrl).toString());
    expect((await get(`/t/sessions/${session.id}/receipt.pdf`)).status()).toBe(410);
    expect((await get(`/t/sessions/${session.id}/originals/0`)).status()).toBe(410);
    expect((await get(`/t/sessions/${session.id}/documents/0`)).status()).toBe(410);
    const read = await get(`/v1/sessions/${session.id}/receipt`);
    expect(read.status()).toBe(410);
    expect((await read.json()).code).toBe('receipt_access_closed');
    expect((await linkPage.goto(link))?.status()).toBe(410);
    expect(await linkPage.textContent('body')).toContain('closed');
    await shots(linkPage, '7-link-closed');
    expect((await get(`${link}/receipt.pdf`)).status()).toBe(410);
    await context.close();
  });

  it('warns before closing when no receipt was downloaded in this browser', async () => {
    const { apiKey } = await createBusiness(t, 'Ελληνική Εταιρεία');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      receiver.url,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('step-identify').waitFor();
    await shareAs(page);
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    await page.getByTestId('close-access').click();
    await page.getByTestId('no-download-warning').waitFor();
    await shots(page, '8-close-warning');
    await context.close();
  });

  it('gives a German browser in Berlin its receipt in German with local times', async () => {
    const { apiKey } = await createBusiness(t, 'Musterfirma GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name', 'family_name'] }],
      receiver.url,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const context = await browser.newContext({
      acceptDownloads: true,
      locale: 'de-DE',
      timezoneId: 'Europe/Berlin',
    });
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('step-identify').waitFor();
    await shareAs(page);
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    const file = await download(page, 'download-receipt', 'beleg.pdf');
    const beleg = pdftotext(file);
    expect(beleg).toContain('Vorname: Erika');
    expect(beleg).toMatch(/Abgeschlossen: \d{1,2}\. \S+ \d{4} um \d\d:\d\d (MEZ|MESZ)/);
    expect(beleg).not.toContain('given_name');
    expect((await verifyReceiptCli(file, { service: t.baseUrl })).code).toBe(0);

    // the emails asked for from this German page in Berlin: German, naming the business, local times
    const to = 'erika@example.de';
    const before = smtp.messages.length;
    await page.getByTestId('email-input').fill(to);
    await page.getByTestId('send-code').click();
    await page.getByTestId('code-sent').waitFor();
    const toThis = (m: ParsedMail) =>
      smtp.messages.indexOf(m) >= before && (Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address === to;
    const codeMail = await smtp.waitFor(toThis);
    expect(codeMail.subject).toMatch(/^Ihr Bestätigungscode für Musterfirma GmbH: \d{6}$/);
    expect(codeMail.text).toContain('Ihren Beleg von Musterfirma GmbH per E-Mail');
    const after = smtp.messages.length;
    await page.getByTestId('code-input').fill((codeMail.subject ?? '').match(/(\d{6})/)?.[1] as string);
    await page.getByTestId('send-receipt').click();
    await page.getByTestId('email-sent').waitFor({ timeout: 20_000 });
    const mail = await smtp.waitFor((m) => toThis(m) && smtp.messages.indexOf(m) >= after);
    expect(mail.subject).toBe('Ihr Beleg von Musterfirma GmbH');
    expect(mail.text).toContain('Anbei Ihr Beleg von Musterfirma GmbH');
    expect(mail.text).toMatch(/Die Seite ist bis \d{1,2}\. \S+ \d{4} um \d\d:\d\d (MEZ|MESZ) erreichbar/);
    const attached = mail.attachments.find((a) => a.contentType === 'application/pdf');
    expect(pdftotext(files.write('beleg-email.pdf', attached?.content as Buffer))).toContain(
      'Vorname: Erika',
    );
    await context.close();
  });
});
