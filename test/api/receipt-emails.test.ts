// The two emails of the signer's receipt (issue 17): the six-digit code email and the emailed receipt are
// written in the hosted page's language (en/de/fr) with local times in the browser's zone, both name the
// business asking, the attached PDF is in that language too, and a retry by the worker keeps it. Real SMTP
// server (smtp-server + mailparser), real HTTP and GraphQL, pdftotext on the attachment.
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { ReceiptDeliveryEntity } from '../../server/src/modules/receipt/receipt.entities';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';
import { pdftotext, SIGNER_RECEIPT_FIELDS, SignerBrowser, scratch } from '../support/receipts';
import { shareWithReferenceWallet } from '../support/signer';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { WebhookReceiver } from '../support/webhook-receiver';
import { publishWorkflow } from '../support/workflows';

const BUSINESS = 'Müller & Fils GmbH';

describe('the receipt emails in the signer’s language', () => {
  // the session ends at 08:00 UTC on 23 November 2026: online access until 08:00 UTC on the 25th
  const clock = new ManualClock(Date.parse('2026-11-23T08:00:00.000Z'));
  let t: TestService;
  let smtp: TestSmtpServer;
  let api: Api;
  let workflowId: string;
  const files = scratch();
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label: 'receipt_emails', clock, smtpUrl: smtp.url, workers: false });
    await receiver.start();
    const biz = await createBusiness(t, BUSINESS);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      receiver.url,
      'Mietvertrag',
    ));
  });
  afterAll(async () => {
    files.done();
    await receiver.stop();
    await smtp?.stop();
    await t?.stop();
  });

  const addr = (m: ParsedMail) => (Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address;
  const nextMail = (to: string, after: number) =>
    smtp.waitFor((m) => smtp.messages.indexOf(m) >= after && addr(m) === to);

  async function endedSession(): Promise<SignerBrowser> {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, expires_in: 3600 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const b = new SignerBrowser(t.baseUrl, created.body.id);
    await b.start();
    expect((await shareWithReferenceWallet(t.svc, b.client)).status).toBe(200);
    return b;
  }

  /** The hosted page's two mutations, with the page's language and the browser's zone when given. */
  const requestCode = (b: SignerBrowser, email: string, lang?: string, timeZone?: string) =>
    b.gql(
      `mutation($sessionId: ID!, $email: String!, $lang: String, $timeZone: String) {
        requestReceiptEmailCode(sessionId: $sessionId, email: $email, lang: $lang, timeZone: $timeZone) { ${SIGNER_RECEIPT_FIELDS} } }`,
      { email, lang, timeZone },
    );
  const sendEmail = (b: SignerBrowser, code: string, lang?: string, timeZone?: string) =>
    b.gql(
      `mutation($sessionId: ID!, $code: String!, $lang: String, $timeZone: String) {
        sendReceiptEmail(sessionId: $sessionId, code: $code, lang: $lang, timeZone: $timeZone) { ${SIGNER_RECEIPT_FIELDS} } }`,
      { code, lang, timeZone },
    );

  /** Code email, then the receipt email, as a signer on a page in `lang` and `timeZone` receives them. */
  async function bothMails(to: string, lang?: string, timeZone?: string, refuseReceipt = false) {
    const b = await endedSession();
    const n = smtp.messages.length;
    const asked = await requestCode(b, to, lang, timeZone);
    expect(asked.errors).toBeUndefined();
    const codeMail = await nextMail(to, n);
    const code = (codeMail.subject ?? '').match(/(\d{6})/)?.[1] as string;
    expect(code).toMatch(/^\d{6}$/);
    const n2 = smtp.messages.length;
    if (refuseReceipt) smtp.refusing = true;
    const sent = await sendEmail(b, code, lang, timeZone);
    smtp.refusing = false;
    expect(sent.errors).toBeUndefined();
    return { codeMail, receiptMail: () => nextMail(to, n2) };
  }

  const pdfText = (m: ParsedMail, name: string) => {
    const att = m.attachments.find((a) => a.contentType === 'application/pdf');
    expect(att).toBeDefined();
    return pdftotext(files.write(name, att?.content as Buffer));
  };

  it('German: both emails in German, naming the business, the time in the signer’s zone, the PDF in German', async () => {
    const { codeMail, receiptMail } = await bothMails('erika@example.org', 'de', 'Europe/Berlin');
    expect(codeMail.subject).toMatch(new RegExp(`^Ihr Bestätigungscode für ${BUSINESS}: \\d{6}$`));
    expect(codeMail.text).toContain(`Ihren Beleg von ${BUSINESS} per E-Mail`);
    expect(codeMail.text).toContain('10 Minuten gültig');

    const mail = await receiptMail();
    // the business by its public name, never the workflow's internal name (issue 29)
    expect(mail.subject).toBe(`Ihr Beleg von ${BUSINESS}`);
    expect(mail.text).toContain(`Anbei Ihr Beleg von ${BUSINESS}.`);
    expect(mail.text).not.toContain('Mietvertrag');
    // 48 hours after the end (08:00 UTC), in Berlin's winter time
    expect(mail.text).toContain('Die Seite ist bis 25. November 2026 um 09:00 MEZ erreichbar');
    expect(mail.text).not.toContain('2026-11-25T08:00');
    const pdf = pdfText(mail, 'de.pdf');
    expect(pdf).toContain('Beleg');
    expect(pdf).toContain('Abgeschlossen: 23. November 2026 um 09:00 MEZ');
    expect(pdf).not.toContain('Completed');
  });

  it('French: both emails in French, naming the business, the PDF in French', async () => {
    const { codeMail, receiptMail } = await bothMails('marie@example.org', 'fr', 'America/Montreal');
    expect(codeMail.subject).toMatch(new RegExp(`^Votre code de vérification pour ${BUSINESS} : \\d{6}$`));
    expect(codeMail.text).toContain(`votre reçu de ${BUSINESS}`);

    const mail = await receiptMail();
    expect(mail.subject).toBe(`Votre reçu de ${BUSINESS}`);
    expect(mail.text).toContain(`votre reçu de ${BUSINESS}.`);
    // 08:00 UTC is 03:00 in Montreal (UTC−5)
    expect(mail.text).toMatch(/jusqu'au 25 novembre 2026 à 03:00 (UTC−5|HNE|UTC-5)/);
    const pdf = pdfText(mail, 'fr.pdf');
    expect(pdf).toContain('Reçu');
    expect(pdf).toContain('Prénom');
    expect(pdf).not.toContain('Given name');
  });

  it('no language (or an unknown one) is English in UTC, never an error', async () => {
    // an unknown language and zone on the code request: English, no error
    const { codeMail, receiptMail } = await bothMails('alex@example.org', 'xx', 'Mars/Olympus_Mons');
    expect(codeMail.subject).toMatch(new RegExp(`^Your verification code for ${BUSINESS}: \\d{6}$`));
    expect(codeMail.text).toContain(`your receipt from ${BUSINESS} by email`);
    const mail = await receiptMail();
    expect(mail.subject).toBe(`Your receipt from ${BUSINESS}`);
    expect(mail.text).toContain(`Attached is your receipt from ${BUSINESS}.`);
    expect(mail.text).toContain('The page works until 25 November 2026 at 08:00 UTC');
    expect(pdfText(mail, 'en-unknown.pdf')).toContain('Given name');

    // none at all (an older page): English, UTC
    const plain = await bothMails('sam@example.org');
    expect(plain.codeMail.subject).toMatch(new RegExp(`^Your verification code for ${BUSINESS}: \\d{6}$`));
    const plainReceipt = await plain.receiptMail();
    expect(plainReceipt.text).toContain('The page works until 25 November 2026 at 08:00 UTC');
    expect(pdfText(plainReceipt, 'en.pdf')).toContain('Given name');
  });

  it('a retry by the worker after a failed send keeps the language, zone and PDF language', async () => {
    const to = 'jonas@example.org';
    const { receiptMail } = await bothMails(to, 'de', 'Europe/Berlin', true);
    const row = await t.svc.ds.getRepository(ReceiptDeliveryEntity).findOneByOrFail({ email: to });
    expect(row.state).toBe('pending');
    clock.advance(31_000);
    expect(await t.svc.receipts.deliverPending()).toBeGreaterThanOrEqual(1);
    const mail = await receiptMail();
    expect(mail.subject).toBe(`Ihr Beleg von ${BUSINESS}`);
    expect(mail.text).toContain(`Anbei Ihr Beleg von ${BUSINESS}`);
    expect(mail.text).toContain('Die Seite ist bis 25. November 2026 um 09:00 MEZ erreichbar');
    expect(pdfText(mail, 'retry.pdf')).toContain('Abgeschlossen: 23. November 2026 um 09:00 MEZ');
  });
});
