// The one mail sender: SMTP through nodemailer to a real SMTP server, or .eml files in the embedded default.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailSender, listOutbox, mailOutboxDir } from '../../server/src/modules/mail/mail';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

const pdf = Buffer.from('%PDF-1.7\n%test\n');
const message = {
  to: 'Łucja Şahin <lucja@example.test>',
  subject: 'Your receipt – Квитанция',
  text: 'Hello Łucja, Γειά σου.',
  attachments: [{ filename: 'receipt.pdf', contentType: 'application/pdf', content: pdf }],
};

describe('mail sender', () => {
  let smtp: TestSmtpServer;
  let dataDir: string;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-test-'));
  });
  afterAll(async () => {
    await smtp.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('sends over SMTP with nodemailer; the recipient gets text and attachment intact', async () => {
    const sender = createMailSender({ smtpUrl: smtp.url, mailFrom: 'Service <no-reply@svc.test>', dataDir });
    await sender.send(message);
    const got = await smtp.waitFor((m) => m.subject === message.subject);
    expect(got.text?.trim()).toBe(message.text);
    expect(got.from?.text).toContain('no-reply@svc.test');
    expect(got.attachments).toHaveLength(1);
    expect(got.attachments[0]?.filename).toBe('receipt.pdf');
    expect(Buffer.compare(got.attachments[0]?.content as Buffer, pdf)).toBe(0);
    expect(fs.existsSync(mailOutboxDir(dataDir))).toBe(false); // SMTP configured: nothing written locally
  });

  it('without SMTP_URL writes each message as an .eml file under DATA_DIR/mail', async () => {
    const sender = createMailSender({ smtpUrl: undefined, mailFrom: 'no-reply@localhost', dataDir });
    await sender.send(message);
    await sender.send({ ...message, subject: 'second' });
    const files = listOutbox(dataDir);
    expect(files).toHaveLength(2);
    const parsed = await Promise.all(
      files.map((f) => simpleParser(fs.readFileSync(path.join(mailOutboxDir(dataDir), f.name)))),
    );
    const first = parsed.find((p) => p.subject === message.subject);
    expect(first?.text?.trim()).toBe(message.text);
    expect(first?.attachments[0]?.content.equals(pdf)).toBe(true);
  });
});
