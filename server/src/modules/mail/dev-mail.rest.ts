// Development pages of the embedded mail outbox (sandbox tooling, development only, like the dev webhook
// receiver). GET /dev/mail lists the messages written under DATA_DIR/mail/ (subject, recipient, time), GET
// /dev/mail/<name> shows one rendered (its text, with its links clickable), GET /dev/mail/<name>?format=eml
// returns the raw message/rfc822. Every value from a message is HTML-escaped; a link is made only of an
// http(s) URL, and its href is escaped too.
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../common/errors';
import { type RouteRegistry, sendJson } from '../../common/http';
import { listOutbox, mailOutboxDir, type OutboxEntry, type OutboxSummary, readOutboxSummary } from './mail';

export const DEV_MAIL_PATH = '/dev/mail';
const EML_NAME = /^[\w.-]{1,120}\.eml$/;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const URL_RE = /https?:\/\/[^\s<>"']+/g;

/** Plain text as HTML: escaped, http(s) URLs as links (a trailing full stop or bracket stays text). */
export function textToHtml(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    let url = m[0];
    const trail = /[.,;:!?)\]]+$/.exec(url)?.[0] ?? '';
    url = url.slice(0, url.length - trail.length);
    const at = m.index ?? 0;
    out += escapeHtml(text.slice(last, at));
    out += `<a href="${escapeHtml(url)}" rel="noreferrer">${escapeHtml(url)}</a>`;
    last = at + url.length;
  }
  return out + escapeHtml(text.slice(last));
}

const STYLE = `:root{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5;color:#1a1a1a}
body{margin:0;background:#f6f7f9}main{max-width:56rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.5rem;margin:.25rem 0 .75rem}
ol{list-style:none;padding:0;margin:1rem 0;display:grid;gap:.5rem}li a{display:block;padding:.75rem 1rem;background:#fff;border:1px solid #d5d9e0;border-radius:8px;color:inherit;text-decoration:none}
li a:hover,li a:focus{border-color:#0b4fb3}.subject{display:block;font-weight:600;color:#0b4fb3;overflow-wrap:anywhere}
.meta{display:block;color:#444;font-size:.9rem;overflow-wrap:anywhere}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
dt{color:#444}dd{margin:0;overflow-wrap:anywhere}.body{background:#fff;border:1px solid #d5d9e0;border-radius:8px;padding:1rem;white-space:pre-wrap;overflow-wrap:anywhere;font-family:inherit;margin:0}
.body a{color:#0b4fb3}nav a{color:#0b4fb3}`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

const summaryOf = (e: OutboxEntry): OutboxSummary =>
  e.summary ?? { to: '', subject: e.name, date: e.modified.toISOString(), text: '', attachments: [] };

function listPage(entries: OutboxEntry[]): string {
  const rows = entries
    .map((e) => {
      const s = summaryOf(e);
      return `<li><a href="${DEV_MAIL_PATH}/${encodeURIComponent(e.name)}"><span class="subject">${escapeHtml(s.subject || '(no subject)')}</span><span class="meta">To ${escapeHtml(s.to || 'unknown')} · <time datetime="${escapeHtml(s.date)}">${escapeHtml(when(s.date))}</time></span></a></li>`;
    })
    .join('');
  return page(
    'Mail outbox',
    `<nav><a href="/">Start page</a></nav><h1>Mail outbox</h1><p>Messages the service sent while no <code>SMTP_URL</code> is set, newest first. Nothing left this machine.</p>${rows ? `<ol>${rows}</ol>` : '<p>No messages yet.</p>'}`,
  );
}

function messagePage(name: string, s: OutboxSummary): string {
  const attachments = s.attachments.length
    ? `<dt>Attachments</dt><dd>${s.attachments.map(escapeHtml).join(', ')}</dd>`
    : '';
  return page(
    s.subject || 'Message',
    `<nav><a href="${DEV_MAIL_PATH}">All messages</a></nav><h1>${escapeHtml(s.subject || '(no subject)')}</h1><dl><dt>To</dt><dd>${escapeHtml(s.to)}</dd><dt>Sent</dt><dd><time datetime="${escapeHtml(s.date)}">${escapeHtml(when(s.date))}</time></dd>${attachments}<dt>Raw</dt><dd><a href="${DEV_MAIL_PATH}/${encodeURIComponent(name)}?format=eml">${escapeHtml(name)}</a></dd></dl><pre class="body">${textToHtml(s.text)}</pre>`,
  );
}

const htmlHeaders = (res: import('express').Response) => {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  );
};

export function registerDevMailRoutes(reg: RouteRegistry, deps: { dataDir: string }): void {
  reg.add({
    method: 'get',
    path: DEV_MAIL_PATH,
    auth: 'sandbox',
    summary:
      'Development mail outbox: the messages the embedded default wrote, with subject, recipient and time.',
    handler: (req, res) => {
      const entries = listOutbox(deps.dataDir);
      if (req.query.format === 'json') {
        sendJson(res, 200, {
          messages: entries.map((e) => ({
            name: e.name,
            size: e.size,
            modified: e.modified.toISOString(),
            to: e.summary?.to ?? null,
            subject: e.summary?.subject ?? null,
          })),
        });
        return;
      }
      htmlHeaders(res);
      res.status(200).type('text/html').send(listPage(entries));
    },
  });
  reg.add({
    method: 'get',
    path: `${DEV_MAIL_PATH}/:name`,
    auth: 'sandbox',
    summary: 'Development mail outbox: one message rendered, or as message/rfc822 with ?format=eml.',
    handler: (req, res) => {
      const name = String(req.params.name);
      const file = path.join(mailOutboxDir(deps.dataDir), name);
      if (!EML_NAME.test(name) || !fs.existsSync(file)) throw new AppError('not_found', 'No such message.');
      const summary = readOutboxSummary(deps.dataDir, name);
      if (req.query.format === 'eml' || !summary) {
        res.status(200).type('message/rfc822').send(fs.readFileSync(file));
        return;
      }
      htmlHeaders(res);
      res.status(200).type('text/html').send(messagePage(name, summary));
    },
  });
}
