// Owns the error reference the service serves itself: `GET /errors` (every code) and `GET /errors/<code>`,
// generated from the one closed list in common/errors.ts, so every problem's `type` URI
// (`{base_url}/errors/<code>`) resolves to a page that describes exactly that code. HTML for people, JSON for
// a client that asks for it (Accept: application/json). Public: it holds nothing but the list itself.
import type { Request, Response } from 'express';
import { z } from 'zod';
import { AppError, ERROR_CODES, type ErrorCode } from '../../common/errors';
import { type RouteRegistry, sendJson } from '../../common/http';

export const ERRORS_PATH = '/errors';

export const ErrorReferenceEntrySchema = z
  .object({
    code: z.string().describe('The stable `code` of a problem.'),
    status: z.number().int().describe('The HTTP status it is answered with (and GraphQL extensions.status).'),
    title: z.string().describe('The problem `title`.'),
    type: z.string().describe('This entry’s own URI: the problem `type`.'),
  })
  .meta({ title: 'ErrorReferenceEntry' });

export const ErrorReferenceSchema = z
  .object({ errors: z.array(ErrorReferenceEntrySchema) })
  .meta({ title: 'ErrorReference' });

const isErrorCode = (c: string): c is ErrorCode => Object.hasOwn(ERROR_CODES, c);

const entryOf = (base: string, code: ErrorCode) => ({
  code,
  status: ERROR_CODES[code].status,
  title: ERROR_CODES[code].title,
  type: `${base}${ERRORS_PATH}/${code}`,
});

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a problem with this code means for the caller, by its status class. */
function advice(status: number): string {
  if (status === 401) return 'Send a valid API key as "Authorization: Bearer &lt;key&gt;".';
  if (status === 429 || status === 503)
    return 'Temporary: wait the number of seconds in the Retry-After header, then repeat the request.';
  if (status >= 500) return 'Not caused by the request. Quote the request_id to support.';
  if (status === 422)
    return 'The wallet’s response was refused; the person can try again with another credential.';
  return 'Caused by the request: change it as `detail` (and `param`, when present) say before repeating it.';
}

/** What some codes mean beyond their title (HTML entry); most codes need no more than `detail`. */
const NOTES: Partial<Record<ErrorCode, string>> = {
  validation_failed:
    'A parameter breaks a rule, or the operation does not have it: an unknown parameter (a misspelt ' +
    '<code>expires_in</code>, a field the API does not define) is refused, never ignored, with ' +
    '<code>param</code> naming it and the detail "Received unknown parameter: &lt;name&gt;". This holds for ' +
    'every <code>/v1</code> route with a body, JSON or multipart, and for GraphQL input fields.',
};

/** Readable on a phone too (issue 29): long codes wrap, the table never pushes the page sideways. */
const STYLE =
  'body{color:#1d2430;line-height:1.5}table{width:100%;border-collapse:collapse;table-layout:fixed}' +
  'th,td{text-align:left;vertical-align:top;padding:.35rem .4rem;border-bottom:1px solid #d0d5dd;' +
  'overflow-wrap:anywhere}th:nth-child(2),td:nth-child(2){width:4.5rem}code{overflow-wrap:anywhere}' +
  'pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f5f8;padding:.75rem;border-radius:6px}' +
  'a{color:#0b57d0}';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body style="font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem">
${body}
</body></html>
`;
}

const wantsJson = (req: Request): boolean =>
  req.accepts(['text/html', 'application/json', 'application/problem+json']) !== 'text/html';

function sendHtml(res: Response, html: string): void {
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  res.status(200).type('text/html; charset=utf-8').send(html);
}

/** The `{base_url}` of the type URIs (config.baseUrl); errors are listed in the order of the closed list. */
export function registerErrorReferenceRoutes(reg: RouteRegistry, opts: { baseUrl: string }): void {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  reg.add({
    method: 'get',
    path: ERRORS_PATH,
    auth: 'public',
    summary: 'Error reference: every problem code (HTML, or JSON with Accept: application/json)',
    contract: {
      operationId: 'listErrorCodes',
      response: { status: 200, description: 'every error code', schema: ErrorReferenceSchema },
      errors: [],
    },
    handler: (req, res) => {
      if (wantsJson(req)) {
        res.setHeader('Cache-Control', 'public, max-age=300');
        sendJson(res, 200, { errors: codes.map((c) => entryOf(base, c)) });
        return;
      }
      const rows = codes
        .map(
          (c) =>
            `<tr><td><a href="${ERRORS_PATH}/${c}"><code>${c}</code></a></td><td>${ERROR_CODES[c].status}</td><td>${escapeHtml(ERROR_CODES[c].title)}</td></tr>`,
        )
        .join('\n');
      sendHtml(
        res,
        page(
          'Error reference',
          `<h1>Error reference</h1>
<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>) whose <code>code</code> is one of
the codes below and whose <code>type</code> is the link to the code's entry. GraphQL errors carry the same
<code>code</code> and <code>status</code> in <code>extensions</code>. Match on <code>code</code>; <code>detail</code>
is for people and may change.</p>
<table><thead><tr><th>code</th><th>status</th><th>title</th></tr></thead><tbody>
${rows}
</tbody></table>`,
        ),
      );
    },
  });
  reg.add({
    method: 'get',
    path: `${ERRORS_PATH}/:code`,
    auth: 'public',
    summary: 'Error reference: one problem code (the `type` URI of its problems)',
    contract: {
      operationId: 'getErrorCode',
      response: { status: 200, description: 'one error code', schema: ErrorReferenceEntrySchema },
      errors: ['not_found'],
    },
    handler: (req, res) => {
      const code = String(req.params.code);
      if (!isErrorCode(code)) throw new AppError('not_found', 'No such error code.', { param: 'code' });
      const e = entryOf(base, code);
      if (wantsJson(req)) {
        res.setHeader('Cache-Control', 'public, max-age=300');
        sendJson(res, 200, e);
        return;
      }
      sendHtml(
        res,
        page(
          `${code}: ${e.title}`,
          `<p><a href="${ERRORS_PATH}">Error reference</a></p>
<h1><code>${code}</code></h1>
<p><strong>HTTP ${e.status}</strong>: ${escapeHtml(e.title)}.</p>
<p>${advice(e.status)}</p>
${NOTES[code] ? `<p>${NOTES[code]}</p>\n` : ''}<p>A problem with this code looks like:</p>
<pre>${escapeHtml(
            JSON.stringify(
              {
                type: e.type,
                title: e.title,
                status: e.status,
                detail: '…',
                code,
                request_id: 'req_…',
              },
              null,
              2,
            ),
          )}</pre>`,
        ),
      );
    },
  });
}
