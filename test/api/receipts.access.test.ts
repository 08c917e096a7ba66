import { describe, expect, it } from 'vitest';
import { SignerBrowser } from '../support/receipts';
import { HOUR, receiptsSuite } from '../support/receipts-suite';

describe('the signer’s record (receipts): access', () => {
  const s = receiptsSuite('receipts_access');
  const { clock, newFourStep, newIdentify, share, codeMail, codeOf, errCode } = s;

  it('closes online access for good: every download, read, email and link is refused', async () => {
    const b = await newIdentify();
    await share(b);
    const created = await s.api.rest('POST', '/v1/sessions', { workflow_id: s.identifyOnly });
    const running = new SignerBrowser(s.t.baseUrl, created.body.id);
    await running.start();
    expect(errCode(await running.close())).toBe('session_state_conflict');

    // a receipt link emailed before closing
    const n = s.smtp.messages.length;
    await b.requestCode('signer@example.org');
    const code = codeOf(await codeMail('signer@example.org', n));
    await b.sendEmail(code);
    const mail = await s.smtp.waitFor(
      (m) => s.smtp.messages.indexOf(m) > n && /receipt/i.test(m.subject ?? ''),
    );
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
    const biz = await s.api.rest('GET', `/v1/sessions/${b.sessionId}`);
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
      expect((await fetch(`${s.t.baseUrl}${p}`)).status).toBe(404);
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
