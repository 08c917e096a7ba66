// `/`: in development a small start page with the ways in (dashboard, development mailbox and webhook receiver,
// API and error reference); in production a plain page that says what the service is and links the dashboard.
// Static markup, no data, no script. Also serves the committed OpenAPI contract at /openapi.v1.json (the API
// reference the start page links; schema/openapi.v1.json, the same file `pnpm schema:check` keeps current).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type express from 'express';
import type { Config } from '../../config/config';

const OPENAPI_FILE = fileURLToPath(new URL('../../../../schema/openapi.v1.json', import.meta.url));

const STYLE = `:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5;color:#1a1a1a}
body{margin:0;background:#f6f7f9}main{max-width:44rem;margin:0 auto;padding:2rem 1.25rem}
h1{font-size:1.6rem;margin:0 0 .5rem}p{margin:.5rem 0 1rem}ul{list-style:none;padding:0;margin:1.5rem 0;display:grid;gap:.75rem}
li a{display:block;padding:.9rem 1rem;background:#fff;border:1px solid #d5d9e0;border-radius:8px;color:#0b4fb3;text-decoration:none;font-weight:600}
li a:hover,li a:focus{border-color:#0b4fb3;text-decoration:underline}li span{display:block;font-weight:400;color:#444;font-size:.95rem}
code{background:#eceef2;padding:.1rem .3rem;border-radius:4px;overflow-wrap:anywhere}footer{color:#555;font-size:.9rem}`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

const link = (href: string, label: string, what: string) =>
  `<li><a href="${href}">${label}<span>${what}</span></a></li>`;

export function developmentStartPage(): string {
  return page(
    'Credential verification service (development)',
    `<h1>Credential verification service</h1>
<p>Running on the development defaults. <code>pnpm start</code> printed a sandbox API key, a workflow, a ready
<code>curl</code> and a one-time dashboard link for the quickstart business.</p>
<ul>
${link('/dashboard', 'Dashboard', 'Sessions, workflows, webhooks and API keys of your business. Open the link pnpm start printed to sign in the first time.')}
${link('/dev/mail', 'Development mailbox', 'Every email the service sent (invitations, sign-in links, receipts), readable here.')}
${link('/dev/webhook-receiver', 'Webhook receiver', 'The deliveries to the quickstart business, with their signature checks.')}
${link('/openapi.v1.json', 'API reference (OpenAPI 3.1)', 'Every /v1 route with its auth, inputs, answers and errors.')}
${link('/errors', 'Error reference', 'Every error code the API answers with, and what to do about it.')}
</ul>
<footer>This page and the development tools exist only when <code>APP_ENV=development</code>.</footer>`,
  );
}

export function productPage(): string {
  return page(
    'Credential verification service',
    `<h1>Credential verification service</h1>
<p>Businesses ask people to prove facts about themselves (identity, age, a signature) with the digital
credentials in their wallets. Each answer is verified, recorded and signed.</p>
<ul>
${link('/dashboard', 'Dashboard', 'Sign in to your business.')}
${link('/errors', 'Error reference', 'The error codes of the API.')}
</ul>`,
  );
}

export function mountStartPage(app: express.Express, config: Pick<Config, 'appEnv'>): void {
  const html = config.appEnv === 'development' ? developmentStartPage() : productPage();
  app.get('/', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    res.setHeader('X-Frame-Options', 'DENY');
    res.status(200).type('text/html; charset=utf-8').send(html);
  });
  app.get('/openapi.v1.json', (_req, res) => {
    if (!fs.existsSync(OPENAPI_FILE)) {
      res.status(404).type('text/plain').send('schema/openapi.v1.json is not in this deployment.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).type('application/json').send(fs.readFileSync(OPENAPI_FILE));
  });
}
