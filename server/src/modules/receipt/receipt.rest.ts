// Thin REST side of the signer's record: the spec's signer receipt read (GET /v1/sessions/{id}/receipt,
// binding cookie, no API key), the receipt PDF and signed-original downloads of the bound browser, and the
// receipt page behind an emailed link (/r/{token}, an opaque capability). All over ReceiptService.
import type { Request, Response } from 'express';
import { z } from 'zod';
import { isAppError } from '../../common/errors';
import { type RouteRegistry, sendJson } from '../../common/http';
import type { BrowserBinding } from '../session/browser-binding';
import { BROWSER_COOKIE, readCookie, setBrowserCookie } from '../session/browser-cookie';
import { type ReceiptService, receiptFilename } from './receipt.service';
import { presentationOf } from './receipt.words';

export const SignerReceiptReadSchema = z
  .object({
    session_id: z.string(),
    status: z.string(),
    partial: z.boolean().describe('true until the session completed every step.'),
    access_until: z
      .string()
      .nullable()
      .describe('When online access ends: 48 hours after the terminal state (null while the session runs).'),
    results: z
      .array(
        z
          .object({
            stage: z.number().int(),
            primitive: z.string(),
            audit_id: z.string(),
            completed_at: z.string(),
          })
          .catchall(z.unknown()),
      )
      .describe('The completed prefix of the session results, as GET /v1/sessions/{id} shows them.'),
  })
  .meta({ title: 'SignerReceiptRead' });

const noStore = (res: Response) => res.setHeader('Cache-Control', 'no-store');
const token = (req: Request) => readCookie(req, BROWSER_COOKIE);

/** A download that is never rendered as part of a page. */
function sendDownload(res: Response, bytes: Uint8Array, type: string, filename: string, sha256?: string) {
  noStore(res);
  res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
  res.setHeader(
    'Content-Disposition',
    `attachment; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
  );
  if (sha256) res.setHeader('X-Document-SHA256', sha256);
  res.status(200).type(type).send(Buffer.from(bytes));
}

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

function page(res: Response, status: number, title: string, body: string): void {
  noStore(res);
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res
    .status(status)
    .type('text/html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="robots" content="noindex"><title>${esc(title)}</title>` +
        '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1f}' +
        'a.button{display:inline-block;padding:.6rem 1rem;background:#1f4fd1;color:#fff;border-radius:.4rem;text-decoration:none}</style>' +
        `</head><body><main>${body}</main></body></html>`,
    );
}

/**
 * Where the signer's receipt read is answered (ADR 0028). The binding cookie is host-only on `{hosted_url}`'s
 * host. When `{base_url}` is another origin, a browser's read at `{base_url}` carries no binding cookie: it is
 * redirected (307) to the same path at `{hosted_url}`, where its cookie is sent. Only a request that arrived for
 * `{base_url}`'s host is redirected, so the hosted host never redirects to itself.
 */
export interface ReceiptRouteOptions {
  baseUrl: string;
  hostedUrl: string;
  binding: BrowserBinding;
}

export function registerReceiptRoutes(
  reg: RouteRegistry,
  receipts: ReceiptService,
  opts: ReceiptRouteOptions,
): void {
  const base = new URL(opts.baseUrl);
  const hosted = new URL(opts.hostedUrl);
  const split = base.origin !== hosted.origin;
  reg.add({
    method: 'get',
    path: '/v1/sessions/:id/receipt',
    auth: 'signer',
    summary:
      'Signer receipt read: the completed prefix of the results, for the bound browser (binding cookie, no API key). ' +
      'When the hosted page has its own origin, a read at the API origin without the cookie is redirected (307) there.',
    contract: {
      operationId: 'getSignerReceipt',
      response: { status: 200, description: 'completed results', schema: SignerReceiptReadSchema },
      errors: [
        'not_found',
        'session_bound_elsewhere',
        'receipt_not_available',
        'receipt_access_ended',
        'receipt_access_closed',
      ],
    },
    handler: async (req, res) => {
      noStore(res);
      const cookie = opts.binding.verified(token(req));
      if (!cookie && split && req.headers.host === base.host) {
        res.redirect(
          307,
          `${hosted.origin}/v1/sessions/${encodeURIComponent(String(req.params.id))}/receipt`,
        );
        return;
      }
      const read = await receipts.read(String(req.params.id), cookie);
      // a use of the cookie renews its lifetime (ADR 0028)
      if (cookie) setBrowserCookie(res, cookie);
      sendJson(res, 200, read);
    },
  });
  reg.add({
    method: 'get',
    path: '/t/sessions/:id/receipt.pdf',
    auth: 'signer',
    summary: 'Hosted page: the receipt PDF (partial until the session completed), bound browser only',
    handler: async (req, res) => {
      // the page in the signer's language and time zone (the hosted page adds them; unknown values: en, UTC)
      const presentation = presentationOf(req.query.lang, req.query.tz);
      const { bytes, filename } = await receipts.pdf(String(req.params.id), token(req), presentation);
      sendDownload(res, bytes, 'application/pdf', filename);
    },
  });
  reg.add({
    method: 'get',
    path: '/t/sessions/:id/originals/:position',
    auth: 'signer',
    summary: 'Hosted page: a signed original (exact bytes) of a completed sign step, bound browser only',
    handler: async (req, res) => {
      const position = /^\d{1,2}$/.test(String(req.params.position)) ? Number(req.params.position) : -1;
      const { doc, bytes } = await receipts.original(String(req.params.id), token(req), position);
      sendDownload(res, bytes, doc.contentType, doc.label, doc.sha256);
    },
  });
  // The receipt page of an emailed link: a server-rendered page without script (the token in the path is the
  // capability; Referrer-Policy no-referrer keeps it out of other sites' logs).
  reg.add({
    method: 'get',
    path: '/r/:token',
    auth: 'signer',
    summary: 'Receipt page of an emailed receipt link (opaque capability)',
    handler: async (req, res) => {
      try {
        const { data, accessUntil } = await receipts.byLink(String(req.params.token));
        page(
          res,
          200,
          'Your receipt',
          `<h1>Your receipt</h1><p>${esc(data.business.name)}: ${esc(data.workflow.name)}` +
            `${data.partial ? ' (partial)' : ''}${data.example ? ' (example, sandbox)' : ''}</p>` +
            `<p>${data.steps.length} of ${data.session.total_steps} steps completed.</p>` +
            `<p><a class="button" href="${esc(String(req.params.token))}/receipt.pdf" download>Download receipt (PDF)</a></p>` +
            `<p>${accessUntil ? `This page works until <time datetime="${accessUntil.toISOString()}">${esc(accessUntil.toUTCString())}</time>` : 'This page works until 48 hours after the session ends'}, unless online access is closed. The PDF stays yours after that.</p>`,
        );
      } catch (e) {
        if (!isAppError(e)) throw e;
        const status = e.status;
        const text =
          e.code === 'receipt_access_closed'
            ? 'Online access to this receipt was closed. A PDF you saved stays valid.'
            : e.code === 'receipt_access_ended'
              ? 'Online access to this receipt has ended (48 hours after the session ended). A PDF you saved stays valid.'
              : 'This receipt link is not valid.';
        page(
          res,
          status,
          'Receipt unavailable',
          `<h1>Receipt unavailable</h1><p data-code="${e.code}">${esc(text)}</p>`,
        );
      }
    },
  });
  reg.add({
    method: 'get',
    path: '/r/:token/receipt.pdf',
    auth: 'signer',
    summary: 'Receipt PDF of an emailed receipt link (opaque capability)',
    handler: async (req, res) => {
      const { data } = await receipts.byLink(String(req.params.token));
      sendDownload(res, await receipts.renderPdf(data), 'application/pdf', receiptFilename(data));
    },
  });
}
