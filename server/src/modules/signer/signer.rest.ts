// Every `/t` route: the hosted page's transport, answered by the node:http pipeline (app/pipeline.ts) like `/v1`,
// with the `signer` auth decision (no key: the browser's binding cookie, which the pipeline reads as
// `input.browserToken` and the transport judges). Contracts from signer.contract.ts (ADR 0043): the mutations
// answer an ack, the session is read over GraphQL (`signerSession`), or, when Start or the wallet response
// carries the page's read, answered by the mutation from its own round trips (ADR 0062 amendment). ADR 0056.
// Open the link first: it gives the browser its server-issued binding cookie (or renews the one it holds) and
// records the support timeline's `opened` once, and answers the page's first signerSession read when its body
// carries it (ADR 0062); the receipt downloads are the receipt module's answers, bound
// to the same browser.

import { AppError } from '../../common/errors';
import { type ApiAnswer, type ApiInput, jsonObject, type RouteRegistry } from '../../common/http';
import { setBrowserCookie } from './browser-cookie';
import {
  AnyWalletRequestSchema,
  type DocumentsShown,
  DocumentsShownSchema,
  parseWalletResponse,
  type TransportAck,
  TransportAckSchema,
  UnsignedWalletRequestSchema,
  WALLET_REQUEST_ERRORS,
  WalletResponseRequestSchema,
} from './signer.contract';
import type { SignerPageReads } from './signer.page-reads';
import type { SessionTransport } from './signer.transport';
import type { WalletRequestKind } from './signer.wallet-transports';
import {
  WalletRedirectOutcomeSchema,
  WalletRedirectRequestSchema,
  type WalletRedirects,
} from './wallet-redirect';

/** The receipt module's answers to the bound browser (receipt.service.ts), as the `/t` downloads need them. */
export interface SignerReceipts {
  /** The receipt PDF in the signer's language and time zone (`lang`, `tz` as the page sent them). */
  pdf(
    id: string,
    cookie: string | undefined,
    lang: string | undefined,
    tz: string | undefined,
  ): Promise<{ bytes: Uint8Array; filename: string }>;
  original(
    id: string,
    cookie: string | undefined,
    position: number,
  ): Promise<{ doc: { contentType: string; label: string; sha256: string }; bytes: Uint8Array }>;
}

export interface SignerRouteDeps {
  transport: Pick<
    SessionTransport,
    'openLink' | 'start' | 'walletRequest' | 'submitWalletResponse' | 'documentShown' | 'documentFile'
  >;
  redirects: Pick<WalletRedirects, 'redeem'>;
  receipts: SignerReceipts;
  /** The page's fixed reads, compiled (an open carrying the page's first read answers it, ADR 0062). */
  pageReads: Pick<SignerPageReads, 'readOf' | 'answer'>;
}

const noStore = (input: ApiInput) => input.setHeader('Cache-Control', 'no-store');
const positionOf = (v: string | undefined) => (/^\d{1,2}$/.test(String(v)) ? Number(v) : -1);

const kindOf = (v: unknown): WalletRequestKind => {
  if (
    v === undefined ||
    v === 'dc_api' ||
    v === 'dc_api_signed' ||
    v === 'cross_device' ||
    v === 'org_iso_mdoc'
  )
    return v ?? 'dc_api';
  throw new AppError(
    'validation_failed',
    'transport must be dc_api, dc_api_signed, cross_device or org_iso_mdoc.',
    { param: 'transport' },
  );
};

/** A download that is never rendered as part of a page (sandboxed, attachment, not stored). */
function download(data: Uint8Array, contentType: string, filename: string, sha256?: string): ApiAnswer {
  const headers: Record<string, string> = {
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'Content-Disposition': `attachment; filename="${filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
  };
  if (sha256) headers['X-Document-SHA256'] = sha256;
  return { status: 200, headers, bytes: { contentType, data } };
}

export function registerSignerRoutes(reg: RouteRegistry, deps: SignerRouteDeps): void {
  const { transport, redirects, receipts, pageReads } = deps;
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/start',
    auth: 'signer',
    summary:
      'Hosted page: explicit start, binds this browser; with the page’s signerSession read as its body, answers that read',
    contract: {
      operationId: 'transportStart',
      response: {
        status: 200,
        description:
          'where the session is now. A body carrying the page’s signerSession read (the GraphQL request: query, operationName, variables) answers that read’s GraphQL response instead, read in the Start’s own round trip (ADR 0062 amendment)',
        schema: TransportAckSchema,
      },
      errors: ['not_found', 'validation_failed', 'session_bound_elsewhere', 'session_expired'],
    },
    answer: async (_ctx, input) => {
      noStore(input);
      const id = String(input.params.id);
      // the page's read after Start, carried by it: checked before anything is written
      const op = input.body === undefined ? undefined : pageReads.readOf(input.body, id);
      const out = await transport.start(id, input.browserToken, { read: op !== undefined });
      setBrowserCookie(input, out.cookie);
      if (!op || !out.read) return { status: 200, body: out.ack satisfies TransportAck };
      return { status: 200, body: await pageReads.answer(op, out.read) };
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/wallet-request',
    auth: 'signer',
    summary: 'Hosted page: OpenID4VP request for the current step',
    contract: {
      operationId: 'transportWalletRequest',
      response: { status: 200, description: 'single-use request', schema: UnsignedWalletRequestSchema },
      errors: WALLET_REQUEST_ERRORS,
    },
    answer: async (_ctx, input) => {
      noStore(input);
      return {
        status: 200,
        body: await transport.walletRequest(String(input.params.id), input.browserToken),
      };
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/wallet-response',
    auth: 'signer',
    summary: 'Hosted page: submit the wallet response for the current step',
    contract: {
      operationId: 'transportWalletResponse',
      request: WalletResponseRequestSchema,
      response: {
        status: 200,
        description:
          'where the session is now; with `read` (the page’s signerSession read), that read’s GraphQL response instead, read in the completion’s own round trip (ADR 0062 amendment)',
        schema: TransportAckSchema,
      },
      errors: [
        'not_found',
        'validation_failed',
        'session_bound_elsewhere',
        'session_expired',
        'session_state_conflict',
        'request_not_found',
        'step_window_expired',
      ],
    },
    answer: async (_ctx, input) => {
      noStore(input);
      const id = String(input.params.id);
      const { read, ...body } = parseWalletResponse(jsonObject(input.body));
      // the page's read after the answer, carried by it: checked before anything is verified or written
      const op = read === undefined ? undefined : pageReads.readOf(read, id, 'read');
      const out = await transport.submitWalletResponse(id, input.browserToken, body, {
        read: op !== undefined,
      });
      if (!op || !out.read) return { status: 200, body: out.ack satisfies TransportAck };
      return { status: 200, body: await pageReads.answer(op, out.read) };
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/documents/:position/shown',
    auth: 'signer',
    summary: 'Hosted page: a document of the current sign step was shown to its end (recorded, never "read")',
    contract: {
      operationId: 'transportDocumentShown',
      response: { status: 200, description: 'positions shown so far', schema: DocumentsShownSchema },
      errors: ['not_found', 'session_bound_elsewhere', 'session_expired', 'session_state_conflict'],
    },
    answer: async (_ctx, input) => {
      noStore(input);
      const shown: DocumentsShown = await transport.documentShown(
        String(input.params.id),
        input.browserToken,
        positionOf(input.params.position),
      );
      return { status: 200, body: shown };
    },
  });
  reg.add({
    method: 'get',
    path: '/t/sessions/:id/documents/:position',
    auth: 'signer',
    summary: 'Hosted page: download an original document of a sign step (bound browser only)',
    answer: async (_ctx, input) => {
      const { doc, bytes } = await transport.documentFile(
        String(input.params.id),
        input.browserToken,
        positionOf(input.params.position),
      );
      // Served as a download in a sandboxed context: never rendered as part of the hosted page.
      return download(bytes, doc.contentType, doc.label, doc.sha256);
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/open',
    auth: 'signer',
    summary:
      'Hosted page: open the link (binding cookie issued or renewed); with the page’s signerSession read as its body, answers that read',
    contract: {
      operationId: 'transportOpen',
      response: {
        status: 204,
        description:
          'cookie set; read the session with GraphQL signerSession. A body carrying that read (the GraphQL request: query, operationName, variables) answers 200 with its GraphQL response instead (ADR 0062)',
      },
      errors: ['not_found', 'validation_failed'],
    },
    answer: async (_ctx, input) => {
      noStore(input);
      const id = String(input.params.id);
      // the page's first read, carried by the open: checked before anything is written
      const op = input.body === undefined ? undefined : pageReads.readOf(input.body, id);
      const out = await transport.openLink(id, input.browserToken, { read: op !== undefined });
      setBrowserCookie(input, out.cookie);
      if (!op || !out.read) return { status: 204 };
      return { status: 200, body: await pageReads.answer(op, out.read) };
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/wallet-request/:transport',
    auth: 'signer',
    summary:
      'Hosted page: a signed (dc_api_signed), cross-device (cross_device) or ISO 18013-7 Annex C (org_iso_mdoc) request for the current step',
    contract: {
      operationId: 'transportWalletRequestOf',
      response: { status: 200, description: 'single-use request', schema: AnyWalletRequestSchema },
      errors: WALLET_REQUEST_ERRORS,
    },
    answer: async (_ctx, input) => {
      noStore(input);
      const kind = kindOf(String(input.params.transport));
      return {
        status: 200,
        body: await transport.walletRequest(String(input.params.id), input.browserToken, kind),
      };
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/wallet-redirect',
    auth: 'signer',
    summary:
      'Hosted page: the same-device redirect came back — JSON {response_code}; the outcome for the bound browser only',
    contract: {
      operationId: 'transportWalletRedirect',
      request: WalletRedirectRequestSchema,
      response: {
        status: 200,
        description: 'the outcome, to the bound browser only',
        schema: WalletRedirectOutcomeSchema,
      },
      errors: ['request_not_found', 'redirect_other_browser'],
    },
    answer: async (_ctx, input) => {
      noStore(input);
      const body = (input.body ?? {}) as { response_code?: unknown };
      return {
        status: 200,
        body: await redirects.redeem(String(input.params.id), body.response_code, input.browserToken),
      };
    },
  });
  // The receipt's downloads (receipt module, ADR 0047): the browser token, judged by the receipt's access check.
  reg.add({
    method: 'get',
    path: '/t/sessions/:id/receipt.pdf',
    auth: 'signer',
    summary: 'Hosted page: the receipt PDF (partial until the session completed), bound browser only',
    answer: async (_ctx, input) => {
      // the page in the signer's language and time zone (the hosted page adds them; unknown values: en, UTC)
      const { bytes, filename } = await receipts.pdf(
        String(input.params.id),
        input.browserToken,
        input.query('lang'),
        input.query('tz'),
      );
      return download(bytes, 'application/pdf', filename);
    },
  });
  reg.add({
    method: 'get',
    path: '/t/sessions/:id/originals/:position',
    auth: 'signer',
    summary: 'Hosted page: a signed original (exact bytes) of a completed sign step, bound browser only',
    answer: async (_ctx, input) => {
      const { doc, bytes } = await receipts.original(
        String(input.params.id),
        input.browserToken,
        positionOf(input.params.position),
      );
      return download(bytes, doc.contentType, doc.label, doc.sha256);
    },
  });
}
