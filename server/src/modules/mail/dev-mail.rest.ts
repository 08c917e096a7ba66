// Development pages of the embedded mail outbox (sandbox tooling, development only, like the dev webhook
// receiver): GET /dev/mail lists the .eml files written under DATA_DIR/mail/, GET /dev/mail/<name> returns one.
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../common/errors';
import { type RouteRegistry, sendJson } from '../../common/http';
import { listOutbox, mailOutboxDir } from './mail';

export const DEV_MAIL_PATH = '/dev/mail';
const EML_NAME = /^[\w.-]{1,120}\.eml$/;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function registerDevMailRoutes(reg: RouteRegistry, deps: { dataDir: string }): void {
  reg.add({
    method: 'get',
    path: DEV_MAIL_PATH,
    auth: 'sandbox',
    summary: 'Development mail outbox: the messages the embedded default wrote as .eml files.',
    handler: (req, res) => {
      const files = listOutbox(deps.dataDir);
      if (req.query.format === 'json') {
        sendJson(res, 200, {
          messages: files.map((f) => ({ name: f.name, size: f.size, modified: f.modified.toISOString() })),
        });
        return;
      }
      const rows = files
        .map(
          (f) =>
            `<li><a href="${DEV_MAIL_PATH}/${encodeURIComponent(f.name)}">${escapeHtml(f.name)}</a> (${f.size} bytes)</li>`,
        )
        .join('');
      res
        .status(200)
        .type('text/html')
        .send(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mail outbox</title></head><body><h1>Mail outbox</h1><p>Messages written by the embedded mail sender (no SMTP_URL set).</p>${rows ? `<ul>${rows}</ul>` : '<p>No messages yet.</p>'}</body></html>`,
        );
    },
  });
  reg.add({
    method: 'get',
    path: `${DEV_MAIL_PATH}/:name`,
    auth: 'sandbox',
    summary: 'Development mail outbox: one message as message/rfc822.',
    handler: (req, res) => {
      const name = String(req.params.name);
      const file = path.join(mailOutboxDir(deps.dataDir), name);
      if (!EML_NAME.test(name) || !fs.existsSync(file)) throw new AppError('not_found', 'No such message.');
      res.status(200).type('message/rfc822').send(fs.readFileSync(file));
    },
  });
}
