// Thin REST side of the signer's record: the spec's signer receipt read (GET /v1/sessions/{id}/receipt,
// binding cookie, no API key) and the receipt page behind an emailed link (/r/{token}, an opaque capability),
// over ReceiptService. The bound browser's /t downloads (receipt PDF, signed originals) are in signer.rest.ts.
import type { Request, Response } from 'express';
import { z } from 'zod';
import { readCookie } from '../../common/cookies';
import { isAppError } from '../../common/errors';
import type { RouteRegistry } from '../../common/http';
import type { BrowserBinding } from '../signer/browser-binding';
import { BROWSER_COOKIE, setBrowserCookie } from '../signer/browser-cookie';
import { completedStepCount } from './receipt.document';
import { type ReceiptService, receiptFilename } from './receipt.service';
import {
  LANG_NAMES,
  localTime,
  RECEIPT_LANGS,
  RECEIPT_LINK_PAGE_WORDS,
  type ReceiptLang,
} from './receipt.words';

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
const _token = (req: Request) => readCookie(req, BROWSER_COOKIE);

/** A download that is never rendered as part of a page. */
export function sendDownload(
  res: Response,
  bytes: Uint8Array,
  type: string,
  filename: string,
  sha256?: string,
) {
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

/** What the receipt page of an emailed link shows above its content: the business's branding and the languages. */
interface PageFrame {
  lang: ReceiptLang;
  business?: string;
  accent?: string;
  logoUrl?: string;
}

function page(res: Response, status: number, title: string, body: string, frame: PageFrame): void {
  noStore(res);
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  // the business's accent (AA against white, checked when set) and its logo, as on the hosted page
  const accent = frame.accent && /^#[0-9a-fA-F]{6}$/.test(frame.accent) ? frame.accent : '#1f4fd1';
  const logo =
    frame.logoUrl && /^\/branding\/logos\/[0-9a-f]{64}$/.test(frame.logoUrl)
      ? `<img class="logo" src="${frame.logoUrl}" alt="${esc(frame.business ?? '')}" data-testid="business-logo">`
      : '';
  const w = RECEIPT_LINK_PAGE_WORDS[frame.lang];
  // no script on this page: the language choice is a link per language (the token stays in the path)
  const langs = RECEIPT_LANGS.map((l) =>
    l === frame.lang
      ? `<a href="?lang=${l}" lang="${l}" hreflang="${l}" aria-current="true">${LANG_NAMES[l]}</a>`
      : `<a href="?lang=${l}" lang="${l}" hreflang="${l}">${LANG_NAMES[l]}</a>`,
  ).join(' ');
  res
    .status(status)
    .type('text/html')
    .send(
      `<!doctype html><html lang="${frame.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="robots" content="noindex"><title>${esc(title)}</title>` +
        '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1f}' +
        `a{color:${accent}}a.button{display:block;text-align:center;padding:.75rem 1rem;background:${accent};color:#fff;border-radius:10px;text-decoration:none;font-weight:600}` +
        'nav.langs{text-align:right;font-size:.9rem}nav.langs a{display:inline-block;padding:.5rem}nav.langs a[aria-current]{font-weight:700;color:#1a1a1f;text-decoration:none}' +
        'header{display:flex;align-items:center;gap:.75rem;margin:1rem 0}header .logo{max-height:3rem;max-width:10rem}header p{margin:0;font-weight:700;font-size:1.2rem}</style>' +
        `</head><body><nav class="langs" aria-label="${esc(w.language)}" data-testid="receipt-langs">${langs}</nav>` +
        (frame.business
          ? `<header>${logo}<p data-testid="receipt-business">${esc(frame.business)}</p></header>`
          : '') +
        `<main>${body}</main></body></html>`,
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
    answer: async (_ctx, input) => {
      input.setHeader('Cache-Control', 'no-store');
      const id = String(input.params.id);
      const cookie = opts.binding.verified(readCookie(input.req, BROWSER_COOKIE));
      if (!cookie && split && input.header('host') === base.host)
        return { status: 307, location: `${hosted.origin}/v1/sessions/${encodeURIComponent(id)}/receipt` };
      const read = await receipts.read(id, cookie);
      // a use of the cookie renews its lifetime (ADR 0028)
      if (cookie) setBrowserCookie(input, cookie);
      return { status: 200, body: read };
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
      const asked = RECEIPT_LANGS.find((l) => l === req.query.lang);
      try {
        const { data, accessUntil, presentation, brand } = await receipts.byLink(
          String(req.params.token),
          req.query.lang,
        );
        const w = RECEIPT_LINK_PAGE_WORDS[presentation.lang];
        const pdf = `${esc(String(req.params.token))}/receipt.pdf${asked ? `?lang=${asked}` : ''}`;
        page(
          res,
          200,
          w.title,
          // the business as branded in the header; the workflow's internal name is not the signer's business
          `<h1>${esc(w.title)}${data.partial ? ` ${esc(w.partial)}` : ''}${data.example ? ` ${esc(w.example)}` : ''}</h1>` +
            `<p>${esc(w.stepsDone(completedStepCount(data), data.session.total_steps))}</p>` +
            `<p><a class="button" href="${pdf}" download>${esc(w.download)}</a></p>` +
            `<p>${accessUntil ? `<time datetime="${accessUntil.toISOString()}">${esc(w.worksUntil(localTime(accessUntil.toISOString(), presentation)))}</time>` : esc(w.worksUntilDefault)}${esc(w.afterwards)}</p>`,
          {
            lang: presentation.lang,
            business: brand.displayName ?? data.business.name,
            ...(brand.accentColor ? { accent: brand.accentColor } : {}),
            ...(brand.logoUrl ? { logoUrl: brand.logoUrl } : {}),
          },
        );
      } catch (e) {
        if (!isAppError(e)) throw e;
        const status = e.status;
        const w = RECEIPT_LINK_PAGE_WORDS[asked ?? 'en'];
        const text =
          e.code === 'receipt_access_closed'
            ? w.closed
            : e.code === 'receipt_access_ended'
              ? w.ended
              : w.invalid;
        page(
          res,
          status,
          w.unavailableTitle,
          `<h1>${esc(w.unavailableTitle)}</h1><p data-code="${e.code}">${esc(text)}</p>`,
          { lang: asked ?? 'en' },
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
      const { data } = await receipts.byLink(String(req.params.token), req.query.lang);
      sendDownload(res, await receipts.renderPdf(data), 'application/pdf', receiptFilename(data));
    },
  });
}
