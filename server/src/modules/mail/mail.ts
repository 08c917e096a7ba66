// Owns outgoing mail (receipts, sign-in links, invitations): one sender for every feature. SMTP through
// nodemailer when SMTP_URL is set; in the embedded default each message is written as an .eml file under
// DATA_DIR/mail/ (the development pages list them), so a newcomer's first run sends nothing anywhere.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type { Config } from '../../config/config';

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
}

export interface MailSender {
  send(message: MailMessage): Promise<{ messageId: string }>;
}

/** Where the embedded default writes messages: `<DATA_DIR>/mail/<time>-<random>.eml`. */
export const mailOutboxDir = (dataDir: string): string => path.join(dataDir, 'mail');

export function createMailSender(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): MailSender {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
    return { send: (m) => sendWith(transport, config.mailFrom, m) };
  }
  const dir = mailOutboxDir(config.dataDir);
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(m) {
      const info = await transport.sendMail(toNodemailer(config.mailFrom, m));
      fs.mkdirSync(dir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
      // written once, never overwritten (wx); the name is unique
      fs.writeFileSync(path.join(dir, name), info.message as Buffer, { flag: 'wx', mode: 0o600 });
      // what the development mailbox shows, beside the raw message: no MIME parsing needed to read it
      const summary: OutboxSummary = {
        to: m.to,
        subject: m.subject,
        date: new Date().toISOString(),
        text: m.text,
        attachments: (m.attachments ?? []).map((a) => a.filename),
      };
      fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(summary), { flag: 'wx', mode: 0o600 });
      return { messageId: info.messageId };
    },
  };
}

async function sendWith(
  transport: Transporter,
  from: string,
  m: MailMessage,
): Promise<{ messageId: string }> {
  const info = await transport.sendMail(toNodemailer(from, m));
  return { messageId: info.messageId };
}

function toNodemailer(from: string, m: MailMessage): SendMailOptions {
  return {
    from,
    to: m.to,
    subject: m.subject,
    text: m.text,
    ...(m.html ? { html: m.html } : {}),
    attachments: m.attachments?.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
  };
}

/** What the embedded outbox keeps beside each .eml (`<name>.eml.json`) for the development mailbox. */
export interface OutboxSummary {
  to: string;
  subject: string;
  /** ISO 8601, when it was sent. */
  date: string;
  text: string;
  attachments: string[];
}

export interface OutboxEntry {
  name: string;
  size: number;
  modified: Date;
  /** Null for a message written before summaries were kept (its .eml is still there). */
  summary: OutboxSummary | null;
}

/** The summary beside one .eml, or null. */
export function readOutboxSummary(dataDir: string, name: string): OutboxSummary | null {
  try {
    return JSON.parse(
      fs.readFileSync(path.join(mailOutboxDir(dataDir), `${name}.json`), 'utf8'),
    ) as OutboxSummary;
  } catch {
    return null;
  }
}

/** The .eml files of the embedded outbox with their summaries, newest first (development pages). */
export function listOutbox(dataDir: string): OutboxEntry[] {
  const dir = mailOutboxDir(dataDir);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.eml'))
    .map((name) => {
      const st = fs.statSync(path.join(dir, name));
      return { name, size: st.size, modified: st.mtime, summary: readOutboxSummary(dataDir, name) };
    })
    .sort((a, b) => b.modified.getTime() - a.modified.getTime() || b.name.localeCompare(a.name));
}
