// The signer's record as the signer and an auditor observe it, over real HTTP on MariaDB with a real SMTP
// server and the injected clock: the receipt read (binding cookie only), partial and final receipt PDFs read
// back with poppler and verified with verify-receipt and openssl, the signed originals, the emailed receipt
// after the six-digit code (validity, resend delay, hourly limit, wrong tries), closing online access, and the
// 48-hour window.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { canonicalDigest, canonicalJson } from '../../server/src/modules/audit/canonical-json';
import { type ReceiptData, renderReceiptPdf } from '../../server/src/modules/receipt/receipt.document';
import { ReceiptDeliveryEntity } from '../../server/src/modules/receipt/receipt.entities';
import { Api, createBusiness, type Json, startTestService, type TestService } from '../support/harness';
import { opensslVerifyAudit } from '../support/openssl';
import {
  pdfdetachJson,
  pdftotext,
  SignerBrowser,
  scratch,
  verifyReceiptCli,
  withLineOnPage,
  withReceiptJson,
} from '../support/receipts';
import { shareWithReferenceWallet } from '../support/signer';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createMultipart, minimalPdf, publishWorkflow } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const TERMS = 'Ich bestätige den Empfang. Я подтверждаю. Επιβεβαιώνω. Onaylıyorum. Potwierdzam odbiór.';
const HOUR = 3600_000;

/**
 * What a forger with the project's renderer does: another given name, every audit record re-signed (digests
 * and chain recomputed) with a fresh key under the service's kid, the keys inside the file replaced by the
 * fresh one, re-rendered and sealed with it.
 */
async function forge(json: Json, givenName: string): Promise<Uint8Array> {
  const fresh = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const data = structuredClone(json) as ReceiptData;
  const first = data.steps[0] as ReceiptData['steps'][number];
  first.result = { ...first.result, claims: { ...(first.result.claims as object), given_name: givenName } };
  let previous: string | null = null;
  for (const step of data.steps) {
    const { service_signature: sig, ...content } = step.audit_record;
    const signed = {
      ...content,
      result_digest: `sha-256:${canonicalDigest(step.result).toString('base64url')}`,
      previous_audit_hash: previous,
    };
    const bytes = Buffer.from(canonicalJson(signed));
    step.audit_digest = sha256Hex(bytes);
    const value = sign('sha256', bytes, { key: fresh.privateKey, dsaEncoding: 'der' }).toString('base64url');
    step.audit_record = { ...signed, service_signature: { kid: sig.kid, value } };
    previous = step.audit_digest;
  }
  const freshJwk = fresh.publicKey.export({ format: 'jwk' });
  data.keys = { keys: data.keys.keys.map((k) => ({ ...freshJwk, kid: k.kid, alg: 'ES256', use: 'sig' })) };
  return renderReceiptPdf(data, async (zeroed) =>
    sign('sha256', zeroed, { key: fresh.privateKey, dsaEncoding: 'der' }),
  );
}

describe('the signer’s record (receipts)', () => {
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
    t = await startTestService({ label: 'receipts', clock, smtpUrl: smtp.url, workers: false });
    await receiver.start();
    const biz = await createBusiness(t, 'Łukasz & Şule Sp. z o.o.');
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: fourStep } = await publishWorkflow(
      api,
      [
        { primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'] },
        { primitive: 'age_verify', threshold: 18 },
        { primitive: 'sign', documents: 2 },
        { primitive: 'attestation', terms: TERMS },
      ],
      receiver.url,
      'Договор аренды · Σύμβαση μίσθωσης',
    ));
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
    const created = await createMultipart(api, { workflow_id: fourStep }, [
      { filename: 'Mietvertrag.pdf', type: 'application/pdf', bytes: contract },
      { filename: 'Anhang.txt', type: 'text/plain', bytes: annex },
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

  it('gives the bound browser a partial receipt midway and the final one, verifiable offline', async () => {
    const b = await newFourStep();
    expect((await b.read()).json.results).toEqual([]);
    expect((await b.pdf()).json.code).toBe('receipt_not_available');
    await share(b); // identify

    // the spec's signer read: binding cookie, no API key; the completed prefix only; nothing advances
    const read = await b.read();
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      session_id: b.sessionId,
      status: 'in_progress',
      partial: true,
      access_until: null,
    });
    expect(read.json.results).toHaveLength(1);
    expect(read.json.results[0]).toMatchObject({
      stage: 0,
      primitive: 'identify',
      claims: { given_name: 'Erika' },
    });
    expect((await b.client.projection()).body.current_stage).toBe(1);
    // another browser, and a business API key without the cookie, are refused
    const other = new SignerBrowser(t.baseUrl, b.sessionId);
    expect((await other.read()).json.code).toBe('session_bound_elsewhere');
    expect((await other.pdf()).status).toBe(403);
    expect((await api.rest('GET', `/v1/sessions/${b.sessionId}/receipt`)).body.code).toBe(
      'session_bound_elsewhere',
    );
    expect((await new SignerBrowser(t.baseUrl, 'sess_doesnotexist0000000000').read()).status).toBe(404);

    const partial = await b.pdf();
    expect(partial.status).toBe(200);
    expect(partial.headers.get('content-type')).toBe('application/pdf');
    const partialFile = files.write('partial.pdf', partial.bytes);
    const partialText = pdftotext(partialFile);
    expect(partialText).toContain('PARTIAL');
    expect(partialText).toContain('EXAMPLE');
    expect(partialText).toContain('1 of 4 steps completed');
    expect(partialText).toContain('Łukasz & Şule');
    expect(partialText).toContain('Договор аренды');
    expect(partialText).toContain('Σύμβαση μίσθωσης');
    expect(partialText).toContain('not a new');
    // verified the way the PDF says: keys fetched from the address printed on it (http only for this machine)
    const partialCli = await verifyReceiptCli(partialFile);
    expect(partialCli.out).toContain(
      `RECEIPT VERIFIED against the key set published at ${t.baseUrl}/.well-known/service-audit-jwks.json`,
    );
    expect(partialCli.out).toMatch(
      /plain http accepted only because (127\.0\.0\.1|localhost) is this machine/,
    );
    expect(partialCli.code).toBe(0);

    await share(b); // age_verify
    await share(b); // sign
    await share(b); // attestation
    const final = await b.pdf();
    const finalFile = files.write('final.pdf', final.bytes);
    const text = pdftotext(finalFile);
    expect(text).not.toContain('PARTIAL');
    expect(text).toContain('EXAMPLE');
    expect(text).toContain('Over 18: yes');
    expect(text).toContain(sha256Hex(contract));
    expect(text).toContain('Mietvertrag.pdf');
    expect(text).toContain('Onaylıyorum');
    const json = pdfdetachJson(finalFile);
    expect(json).toMatchObject({ type: 'service.receipt', partial: false, example: true });
    expect(json.steps.map((s: Json) => s.primitive)).toEqual([
      'identify',
      'age_verify',
      'sign',
      'attestation',
    ]);
    expect(json.steps[2].result.documents.map((d: Json) => d.sha256)).toEqual([
      sha256Hex(contract),
      sha256Hex(annex),
    ]);
    expect(json.steps[3].terms).toBe(TERMS);
    // the same records the business reads, verified with openssl against the published key set
    const live = await jwks();
    for (const step of json.steps) {
      expect(opensslVerifyAudit(step.audit_record, live)).toBe(true);
      expect((await api.rest('GET', `/v1/audits/${step.audit_id}`)).body).toEqual(step.audit_record);
    }
    const cli = await verifyReceiptCli(finalFile, {
      jwks: files.write('saved-jwks.json', Buffer.from(JSON.stringify(live))),
    });
    expect(cli.out).toContain('OK   step 3 (attestation): signature verified with the published key');
    expect(cli.out).toContain('OK   seal over the whole file: the file is exactly as the service made it');
    expect(cli.out).toMatch(/RECEIPT VERIFIED against the saved key set \S+saved-jwks\.json\n$/);
    expect(cli.code).toBe(0);

    // an altered attachment fails: the identify step's name changed in receipt.json, the pages untouched
    const altered = structuredClone(json);
    expect(altered.steps[0].result.claims.given_name).toBe('Erika');
    altered.steps[0].result.claims.given_name = 'Erikb';
    const bad = await verifyReceiptCli(
      files.write('tampered.pdf', await withReceiptJson(final.bytes, altered)),
    );
    expect(bad.out).toContain('FAIL step 0 (identify): result does not match the signed result_digest');
    expect(bad.out).toContain(
      'FAIL seal over the whole file: the file was changed after the service sealed it',
    );
    expect(bad.out).toMatch(/RECEIPT NOT VERIFIED\n$/);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe(''); // a verdict, not pnpm's lifecycle error lines

    // in the signer's language and time zone, as the hosted page asks for it: names and values, local times
    // with the zone, the technical part on its own last page; it verifies like any other
    const german = await b.get(`/t/sessions/${b.sessionId}/receipt.pdf?lang=de&tz=Europe%2FBerlin`);
    const germanFile = files.write('beleg.pdf', german.bytes);
    const de = pdftotext(germanFile);
    for (const s of [
      'BEISPIEL',
      'Vorname: Erika',
      'Über 18: ja',
      'Abgeschlossen: 23. November 2026 um 09:00 MEZ',
    ])
      expect(de).toContain(s);
    expect(de).not.toContain('given_name');
    const pages = de.split('\f').filter((page) => page.trim());
    expect(pages[0]).not.toContain('service_signature');
    expect(pages.at(-1)).toContain('Technische Angaben');
    expect(pages.at(-1)).toContain('service_signature');
    expect((await verifyReceiptCli(germanFile)).code).toBe(0);
    // unknown language or zone: English and UTC, never an error
    const fallback = await b.get(`/t/sessions/${b.sessionId}/receipt.pdf?lang=xx&tz=Mars%2FOlympus`);
    expect(fallback.status).toBe(200);
    expect(pdftotext(files.write('fallback.pdf', fallback.bytes))).toContain(
      'Completed: 23 November 2026 at 08:00 UTC',
    );

    // signed originals: exact bytes with their hash, next to their links
    const state = (await b.state()).data.signerReceipt;
    expect(state).toMatchObject({
      sessionStatus: 'completed',
      partial: false,
      completedSteps: 4,
      totalSteps: 4,
      access: 'open',
      pdfDownloaded: true,
      canClose: true,
    });
    expect(state.accessUntil).toBe(new Date(clock.now().getTime() + 48 * HOUR).toISOString());
    expect(state.originals.map((o: Json) => [o.label, o.sha256])).toEqual([
      ['Mietvertrag.pdf', sha256Hex(contract)],
      ['Anhang.txt', sha256Hex(annex)],
    ]);
    for (const o of state.originals) {
      const got = await b.get(o.url);
      expect(got.status).toBe(200);
      expect(sha256Hex(got.bytes)).toBe(o.sha256);
      expect(got.headers.get('x-document-sha256')).toBe(o.sha256);
    }
  });

  it('refuses a forged receipt in every mode but the self-consistency check, and an edited page', async () => {
    const b = await newFourStep();
    for (let i = 0; i < 4; i++) await share(b);
    const final = await b.pdf();
    const finalFile = files.write('genuine.pdf', final.bytes);
    const json = pdfdetachJson(finalFile);
    const live = await jwks();
    if (process.env.RECEIPT_FIXTURE_DIR) {
      // how test/fixtures/receipts was made (see its README)
      fs.writeFileSync(path.join(process.env.RECEIPT_FIXTURE_DIR, 'receipt.pdf'), final.bytes);
      fs.writeFileSync(
        path.join(process.env.RECEIPT_FIXTURE_DIR, 'service-audit-jwks.json'),
        `${JSON.stringify(live, null, 2)}\n`,
      );
    }

    // another name, every record re-signed with a fresh key under the service's kid, the keys inside the file
    // replaced, re-rendered and sealed with the project's renderer
    const forged = files.write('forged.pdf', await forge(json, 'Max'));
    expect(pdftotext(forged)).toContain('Given name: Max');
    const saved = files.write('published-jwks.json', Buffer.from(JSON.stringify(live)));
    for (const opts of [{}, { jwks: saved }, { jwks: `${t.baseUrl}/.well-known/service-audit-jwks.json` }]) {
      const r = await verifyReceiptCli(forged, opts);
      expect(r.out).toContain('FAIL step 0 (identify): the signature does not match the record');
      expect(r.out).toContain('FAIL seal over the whole file');
      expect(r.out).not.toContain('RECEIPT VERIFIED');
      expect(r.out).toMatch(/RECEIPT NOT VERIFIED\n$/);
      expect(r.code).toBe(1);
      expect(r.err).toBe('');
    }
    const self = await verifyReceiptCli(forged, { selfConsistentOnly: true });
    expect(self.out).toContain(
      'SELF-CONSISTENT ONLY: the file agrees with itself. This does not prove that the service signed it',
    );
    expect(self.out).not.toMatch(/VERIFIED/);
    expect(self.code).toBe(0);

    // an edited page: one more line drawn on it, the attachment and its signed data unchanged
    const edited = files.write('edited.pdf', await withLineOnPage(final.bytes, 'given_name: Max'));
    expect(pdftotext(edited)).toMatch(/given_name:\s+Max/);
    const e = await verifyReceiptCli(edited);
    expect(e.out).toContain('OK   step 0 (identify): signature verified with the published key');
    expect(e.out).toContain(
      'FAIL seal over the whole file: the file was changed after the service sealed it',
    );
    expect(e.out).toMatch(/RECEIPT NOT VERIFIED\n$/);
    expect(e.code).toBe(1);
    expect(e.err).toBe('');
  });

  it('emails the receipt after a six-digit code: countdown, resend delay, hourly limit, wrong tries', async () => {
    const b = await newIdentify();
    await share(b);
    const to = 'ирина@example.org'.replace('ирина', 'irina');
    expect(errCode(await b.requestCode('not-an-email'))).toBe('validation_failed');
    const before = smtp.messages.length;
    const requested = await b.requestCode(to);
    expect(requested.errors).toBeUndefined();
    expect(requested.data.requestReceiptEmailCode.email).toMatchObject({
      codeSentTo: 'i***@example.org',
      codeExpiresAt: new Date(clock.now().getTime() + 10 * 60_000).toISOString(),
      resendAvailableAt: new Date(clock.now().getTime() + 60_000).toISOString(),
      codesLeftThisHour: 4,
    });
    const first = codeOf(await codeMail(to, before));
    expect(first).toMatch(/^\d{6}$/);

    // resend: refused within the minute, offered after it; the new code replaces the old one
    expect(errCode(await b.requestCode(to))).toBe('receipt_code_too_soon');
    clock.advance(61_000);
    const n2 = smtp.messages.length;
    expect((await b.requestCode(to)).errors).toBeUndefined();
    const second = codeOf(await codeMail(to, n2));
    if (second !== first) expect(errCode(await b.sendEmail(first))).toBe('receipt_code_invalid');

    // validity: ten minutes
    clock.advance(10 * 60_000 + 1);
    expect(errCode(await b.sendEmail(second))).toBe('receipt_code_expired');

    // wrong tries void the code: three wrong answers, then even the right one is refused
    const n3 = smtp.messages.length;
    expect((await b.requestCode(to)).errors).toBeUndefined();
    const third = codeOf(await codeMail(to, n3));
    const wrong = third === '000000' ? '111111' : '000000';
    const w1 = await b.sendEmail(wrong);
    expect(errCode(w1)).toBe('receipt_code_invalid');
    expect(w1.errors?.[0]?.message).toContain('2 tries left');
    await b.sendEmail(wrong);
    await b.sendEmail(wrong);
    expect(errCode(await b.sendEmail(third))).toBe('receipt_code_expired');

    // hourly limit: five codes per hour per session (three used so far)
    clock.advance(61_000);
    expect((await b.requestCode(to)).errors).toBeUndefined();
    clock.advance(61_000);
    const n5 = smtp.messages.length;
    const fifth = await b.requestCode(to);
    expect(fifth.data.requestReceiptEmailCode.email.codesLeftThisHour).toBe(0);
    const code5 = codeOf(await codeMail(to, n5));
    clock.advance(61_000);
    const limited = await b.requestCode(to);
    expect(errCode(limited)).toBe('receipt_code_limit');

    // the right code: the PDF arrives as an attachment with a receipt-page link
    const n6 = smtp.messages.length;
    const sent = await b.sendEmail(code5);
    expect(sent.errors).toBeUndefined();
    expect(sent.data.sendReceiptEmail.email.sentTo).toEqual(['i***@example.org']);
    const mail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= n6 && /receipt/i.test(m.subject ?? ''),
    );
    expect(addr(mail)).toBe(to);
    const att = mail.attachments.find((a) => a.contentType === 'application/pdf');
    expect(att).toBeDefined();
    const emailed = files.write('emailed.pdf', att?.content as Buffer);
    expect((await verifyReceiptCli(emailed)).code).toBe(0);
    expect(pdfdetachJson(emailed).steps).toHaveLength(1);
    // single use
    expect(errCode(await b.sendEmail(code5))).toBe('receipt_code_expired');
    const link = (mail.text ?? '').match(/(http:\/\/\S+\/r\/[\w-]{43})/)?.[1] as string;
    expect(link).toBeDefined();
    const pageRes = await fetch(link);
    expect(pageRes.status).toBe(200);
    expect(await pageRes.text()).toContain('Download receipt');
    const linkPdf = await fetch(`${link}/receipt.pdf`);
    expect(linkPdf.status).toBe(200);
    expect(
      (await verifyReceiptCli(files.write('linked.pdf', Buffer.from(await linkPdf.arrayBuffer())))).code,
    ).toBe(0);
    expect((await fetch(`${link.slice(0, -3)}AAA`)).status).toBe(404);

    // A sender that died between its claim (link minted) and the send: the worker pass frees the stale
    // claim and sends it (at least once), with a fresh link.
    const deliveries = t.svc.ds.getRepository(ReceiptDeliveryEntity);
    const done = await deliveries.findOneByOrFail({ state: 'sent' });
    const stuck = Object.assign(new ReceiptDeliveryEntity(), {
      ...done,
      id: `${done.id.slice(0, -4)}dead`,
      state: 'pending',
      linkHash: 'f'.repeat(64),
      sentAt: null,
      createdAt: new Date(clock.now().getTime() - 5 * 60_000),
    });
    await deliveries.insert(stuck);
    const n7 = smtp.messages.length;
    expect(await t.svc.receipts.deliverPending()).toBe(0); // claimed 5 minutes ago: maybe still in flight
    clock.advance(6 * 60_000);
    expect(await t.svc.receipts.deliverPending()).toBe(1);
    await smtp.waitFor((m) => smtp.messages.indexOf(m) >= n7 && /receipt/i.test(m.subject ?? ''));
    const retried = await deliveries.findOneByOrFail({ id: stuck.id });
    expect(retried.state).toBe('sent');
    expect(retried.linkHash).not.toBe('f'.repeat(64));

    // an hour after the first code, new codes can be sent again
    clock.advance(HOUR);
    expect((await b.requestCode(to)).errors).toBeUndefined();
  });

  it('a mail server that refuses: the code costs nothing and a verified receipt stays queued', async () => {
    const b = await newIdentify();
    await share(b);
    const to = 'ana@example.org';
    smtp.refusing = true;
    const refused = await b.requestCode(to);
    expect(errCode(refused)).toBe('service_unavailable');
    expect(refused.errors?.[0]?.message).toContain('could not be sent');
    // nobody got that code: no resend delay, no hourly budget spent
    smtp.refusing = false;
    const n = smtp.messages.length;
    const again = await b.requestCode(to);
    expect(again.errors).toBeUndefined();
    expect(again.data.requestReceiptEmailCode.email.codesLeftThisHour).toBe(4);
    const code = codeOf(await codeMail(to, n));

    // the code is right but the receipt email bounces: accepted (authorized and committed), sent later
    smtp.refusing = true;
    const sent = await b.sendEmail(code);
    expect(sent.errors).toBeUndefined();
    expect(sent.data.sendReceiptEmail.email.sentTo).toEqual(['a***@example.org']);
    smtp.refusing = false;
    const n2 = smtp.messages.length;
    clock.advance(31_000);
    expect(await t.svc.receipts.deliverPending()).toBeGreaterThanOrEqual(1);
    const mail = await smtp.waitFor(
      (m) => smtp.messages.indexOf(m) >= n2 && /receipt/i.test(m.subject ?? '') && addr(m) === to,
    );
    expect(mail.attachments.some((a) => a.contentType === 'application/pdf')).toBe(true);
  });

  it('closes online access for good: every download, read, email and link is refused', async () => {
    const b = await newIdentify();
    await share(b);
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: identifyOnly });
    const running = new SignerBrowser(t.baseUrl, created.body.id);
    await running.start();
    expect(errCode(await running.close())).toBe('session_state_conflict');

    // a receipt link emailed before closing
    const n = smtp.messages.length;
    await b.requestCode('signer@example.org');
    const code = codeOf(await codeMail('signer@example.org', n));
    await b.sendEmail(code);
    const mail = await smtp.waitFor((m) => smtp.messages.indexOf(m) > n && /receipt/i.test(m.subject ?? ''));
    const link = (mail.text ?? '').match(/(http:\/\/\S+\/r\/[\w-]{43})/)?.[1] as string;
    expect((await fetch(link)).status).toBe(200);

    const before = (await b.state()).data.signerReceipt;
    expect(before).toMatchObject({ pdfDownloaded: false, canClose: true, access: 'open' });
    const closed = await b.close();
    expect(closed.errors).toBeUndefined();
    expect(closed.data.closeReceiptAccess).toMatchObject({
      access: 'closed',
      canClose: false,
      originals: [],
    });
    expect((await b.close()).data.closeReceiptAccess.access).toBe('closed'); // idempotent

    expect((await b.read()).json.code).toBe('receipt_access_closed');
    expect((await b.pdf()).json.code).toBe('receipt_access_closed');
    expect((await b.pdf()).status).toBe(410);
    expect(errCode(await b.requestCode('signer@example.org'))).toBe('receipt_access_closed');
    const page = await fetch(link);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('closed');
    expect((await fetch(`${link}/receipt.pdf`)).status).toBe(410);
    // the outcome is unchanged for the business
    const biz = await api.rest('GET', `/v1/sessions/${b.sessionId}`);
    expect(biz.body.status).toBe('completed');
    expect(biz.body.results).toHaveLength(1);
  });

  it('answers bad input with a clear 4xx and a stable code', async () => {
    const b = await newIdentify();
    await share(b);
    expect((await b.get(`/t/sessions/${b.sessionId}/originals/abc`)).json.code).toBe('not_found');
    expect((await b.get(`/t/sessions/${b.sessionId}/originals/0`)).json.code).toBe('not_found'); // no sign step
    expect((await b.get('/t/sessions/not-a-session/receipt.pdf')).status).toBe(404);
    expect((await b.get('/v1/sessions/sess_x/receipt')).json.code).toBe('not_found');
    expect(errCode(await b.sendEmail('12345'))).toBe('validation_failed');
    expect(errCode(await b.sendEmail('abcdef'))).toBe('validation_failed');
    expect(errCode(await b.sendEmail('123456'))).toBe('receipt_code_expired'); // no code requested
    expect(errCode(await b.requestCode('a'.repeat(300)))).toBe('validation_failed');
    expect(errCode(await b.requestCode('two@at@example.org'))).toBe('validation_failed');
    const wrongId = await b.gql('query { signerReceipt(sessionId: "sess_nope") { access } }');
    expect(errCode(wrongId)).toBe('not_found');
    for (const p of ['/r/short', `/r/${'A'.repeat(43)}`, `/r/${'A'.repeat(43)}/receipt.pdf`])
      expect((await fetch(`${t.baseUrl}${p}`)).status).toBe(404);
  });

  it('ends access 48 hours after the terminal state, also for the originals route', async () => {
    const b = await newFourStep();
    await share(b);
    await share(b);
    await share(b);
    await share(b);
    const endedAt = clock.now().getTime();
    clock.advance(48 * HOUR - 1000);
    expect((await b.read()).status).toBe(200);
    expect((await b.get(`/t/sessions/${b.sessionId}/documents/0`)).status).toBe(200);
    clock.advance(1000);
    const read = await b.read();
    expect(read.status).toBe(410);
    expect(read.json).toMatchObject({
      code: 'receipt_access_ended',
      access_until: new Date(endedAt + 48 * HOUR).toISOString(),
    });
    expect((await b.pdf()).json.code).toBe('receipt_access_ended');
    expect((await b.get(`/t/sessions/${b.sessionId}/originals/0`)).json.code).toBe('receipt_access_ended');
    expect((await b.get(`/t/sessions/${b.sessionId}/documents/0`)).json.code).toBe('receipt_access_ended');
    expect(errCode(await b.requestCode('late@example.org'))).toBe('receipt_access_ended');
    const state = (await b.state()).data.signerReceipt;
    expect(state).toMatchObject({
      access: 'ended',
      accessUntil: new Date(endedAt + 48 * HOUR).toISOString(),
      canClose: false,
    });
  });
});
