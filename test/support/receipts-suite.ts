// The receipts suites' service (test/api/receipts.*.test.ts): MariaDB, a real SMTP server, a webhook receiver
// and the injected clock; a four-step workflow (identify, age, sign two documents, attestation) and an
// identify-only one; the signer's browser and the helpers the suites read mail and answers with.
import { createHash } from 'node:crypto';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, expect } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { Api, createBusiness, type Json, startTestService, type TestService } from './harness';
import { SignerBrowser, scratch } from './receipts';
import { createSignSession, pdfPart, setUpSignWorkflow, textPart } from './sign-workflow';
import { shareWithReferenceWallet } from './signer';
import { startSmtpServer, type TestSmtpServer } from './smtp';
import { WebhookReceiver } from './webhook-receiver';
import { minimalPdf, publishWorkflow } from './workflows';

export const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
export const TERMS =
  'Ich bestätige den Empfang. Я подтверждаю. Επιβεβαιώνω. Onaylıyorum. Potwierdzam odbiór.';
export const HOUR = 3600_000;

/** Starts the service (in the caller's describe) and returns what the receipts suites are written with. */
export function receiptsSuite(label: string) {
  const clock = new ManualClock(Date.parse('2026-11-23T08:00:00.000Z'));
  let t: TestService;
  let smtp: TestSmtpServer;
  let api: Api;
  let fourStep: string;
  let identifyOnly: string;
  const receiver = new WebhookReceiver();
  const files = scratch();
  const contract = minimalPdf('Mietvertrag Nr. 7');
  const annex = 'Anhang A: Preisliste\n';

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label, clock, smtpUrl: smtp.url, workers: false });
    await receiver.start();
    const biz = await createBusiness(t, 'Łukasz & Şule Sp. z o.o.');
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: fourStep } = await setUpSignWorkflow(api, {
      identifyBefore: ['given_name', 'family_name', 'birth_date'],
      before: [{ primitive: 'age_verify', threshold: 18 }],
      documents: 2,
      after: [{ primitive: 'attestation', terms: TERMS }],
      webhookUrl: receiver.url,
      name: 'Договор аренды · Σύμβαση μίσθωσης',
    }));
    ({ workflowId: identifyOnly } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name'] }],
      undefined,
      'Identify',
    ));
  });
  afterAll(async () => {
    files.done();
    await receiver.stop();
    await smtp?.stop();
    await t?.stop();
  });

  async function newFourStep(): Promise<SignerBrowser> {
    const created = await createSignSession(api, fourStep, [
      pdfPart('Mietvertrag.pdf', contract),
      textPart('Anhang.txt', annex),
    ]);
    expect(created.status).toBe(201);
    const b = new SignerBrowser(t.baseUrl, created.body.id);
    await b.start();
    return b;
  }
  async function newIdentify(): Promise<SignerBrowser> {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identifyOnly, expires_in: 3600 });
    const b = new SignerBrowser(t.baseUrl, created.body.id);
    await b.start();
    return b;
  }
  const share = async (b: SignerBrowser) => {
    const res = await shareWithReferenceWallet(t.svc, b.client);
    expect(res.status).toBe(200);
    return res;
  };
  const jwks = async () =>
    (await new Api(t.baseUrl).rest('GET', '/.well-known/service-audit-jwks.json')).body;
  const codeMail = (to: string, after: number) =>
    smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= after && /verification code/.test(m.subject ?? '') && addr(m) === to,
    );
  const addr = (m: ParsedMail) => (Array.isArray(m.to) ? m.to[0] : m.to)?.value[0]?.address;
  const codeOf = (m: ParsedMail) => (m.subject ?? '').match(/(\d{6})/)?.[1] as string;
  const errCode = (r: { errors?: Json[] }) => r.errors?.[0]?.extensions?.code;

  return {
    clock,
    files,
    contract,
    annex,
    get t() {
      return t;
    },
    get api() {
      return api;
    },
    get smtp() {
      return smtp;
    },
    get identifyOnly() {
      return identifyOnly;
    },
    newFourStep,
    newIdentify,
    share,
    jwks,
    codeMail,
    addr,
    codeOf,
    errCode,
  };
}
