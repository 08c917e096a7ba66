// Thin /v1 controllers for sessions over SessionService, and the hosted transport routes over
// SessionTransport (cookie-bound browser).
import type { Response } from 'express';
import { AppError } from '../../common/errors';
import { jsonObject, jsonObjectBody, type RouteRegistry, sendJson } from '../../common/http';
import type { UploadedFile } from '../document/multipart';
import { readMultipart } from '../document/multipart';
import type { TenancyService } from '../tenancy/tenancy.service';
import { browserTokenOf, setBrowserCookie } from './browser-cookie';
import type { SessionService } from './session.service';
import type { SessionTransport } from './session.transport';

export function registerSessionRoutes(
  reg: RouteRegistry,
  sessions: SessionService,
  tenancy: TenancyService,
): void {
  reg.add({
    method: 'post',
    path: '/v1/sessions',
    auth: 'api_key',
    summary: 'Create a session of a published workflow',
    handler: async (req, res) => {
      let body: Record<string, unknown>;
      let uploads: UploadedFile[] | null = null;
      if (req.is('multipart/form-data')) {
        // A workflow with a sign step: file parts "file" plus workflow_id, metadata (a JSON string), expires_in,
        // return_url.
        const form = await readMultipart(req, ['workflow_id', 'metadata', 'expires_in', 'return_url']);
        body = createInputFromForm(form.fields);
        uploads = form.files;
      } else if (req.is('application/json')) {
        body = jsonObjectBody(req);
      } else {
        throw new AppError(
          'unsupported_media_type',
          'Send the body as application/json, or as multipart/form-data for a workflow with a sign step.',
        );
      }
      const key = req.header('Idempotency-Key') ?? undefined;
      const out = await sessions.create(req.ctx, body, key, uploads);
      if (out.replayed) res.setHeader('Idempotent-Replayed', 'true');
      sendJson(res, out.statusCode, out.session);
    },
    // A JSON create in its plain shape (ADR 0023); multipart and every other shape take the handler above.
    // A key this process verified before is not read again: the create's guarded INSERT checks that it is
    // not revoked, and any other path confirms it first (ADR 0025).
    lane: {
      read: (presented) => tenancy.authenticateRemembered(presented),
      handle: async (ctx, req, _params, body, auth) => {
        const key = req.headers['idempotency-key'];
        const idem = Array.isArray(key) ? key[0] : key;
        const out = await sessions.create(ctx, jsonObject(body), idem, null, auth.confirm);
        return {
          status: out.statusCode,
          body: out.session,
          headers: out.replayed ? { 'Idempotent-Replayed': 'true' } : undefined,
        };
      },
    },
  });
  reg.add({
    method: 'get',
    path: '/v1/sessions/:id',
    auth: 'api_key',
    summary: 'Read a session with the results produced so far (reconciliation)',
    handler: async (req, res) => sendJson(res, 200, await sessions.get(req.ctx, String(req.params.id))),
    // the key and the tenant's session in one statement (ADR 0023)
    lane: {
      read: (presented, params) => tenancy.authenticateAnd(presented, sessions.getJoin(params.id)),
      handle: async (ctx, _req, params, _body, auth) => ({
        status: 200,
        body: await sessions.viewOfJoin(ctx, params.id, auth.rows),
      }),
    },
  });
  reg.add({
    method: 'post',
    path: '/v1/sessions/:id/continue',
    auth: 'api_key',
    summary: 'Continue a session waiting in awaiting_decision',
    handler: async (req, res) => sendJson(res, 200, await sessions.continue(req.ctx, String(req.params.id))),
  });
  reg.add({
    method: 'post',
    path: '/v1/sessions/:id/stop',
    auth: 'api_key',
    summary: 'Stop a session that has not ended',
    handler: async (req, res) => sendJson(res, 200, await sessions.stop(req.ctx, String(req.params.id))),
  });
}

/**
 * Form fields as create input. Values that do not convert stay strings, so the service's one validation
 * refuses them with the same errors as a JSON create (a repeat of a key that created a session replays it).
 */
function createInputFromForm(fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields.workflow_id !== undefined) out.workflow_id = fields.workflow_id;
  if (fields.return_url !== undefined) out.return_url = fields.return_url;
  if (fields.expires_in !== undefined)
    out.expires_in = /^\d{1,9}$/.test(fields.expires_in) ? Number(fields.expires_in) : fields.expires_in;
  if (fields.metadata !== undefined) {
    try {
      out.metadata = JSON.parse(fields.metadata) as unknown;
    } catch {
      out.metadata = fields.metadata; // not JSON: refused as "metadata must be a JSON object"
    }
  }
  return out;
}

export function registerTransportRoutes(reg: RouteRegistry, transport: SessionTransport): void {
  const token = browserTokenOf;
  const noStore = (res: Response) => res.setHeader('Cache-Control', 'no-store');
  reg.add({
    method: 'get',
    path: '/t/sessions/:id',
    auth: 'signer',
    summary: 'Hosted page: status projection (no results)',
    handler: async (req, res) => {
      noStore(res);
      const out = await transport.projection(String(req.params.id), token(req));
      // a browser without a server-issued cookie gets one on opening the page (Start binds to it); one that
      // has one gets it again, which renews its lifetime
      setBrowserCookie(res, out.cookie);
      sendJson(res, 200, out.projection);
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/start',
    auth: 'signer',
    summary: 'Hosted page: explicit start, binds this browser',
    handler: async (req, res) => {
      noStore(res);
      const out = await transport.start(String(req.params.id), token(req));
      setBrowserCookie(res, out.cookie);
      sendJson(res, 200, out.projection);
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/wallet-request',
    auth: 'signer',
    summary: 'Hosted page: OpenID4VP request for the current step',
    handler: async (req, res) => {
      noStore(res);
      sendJson(res, 200, await transport.walletRequest(String(req.params.id), token(req)));
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/wallet-response',
    auth: 'signer',
    summary: 'Hosted page: submit the wallet response for the current step',
    handler: async (req, res) => {
      noStore(res);
      sendJson(
        res,
        200,
        await transport.submitWalletResponse(String(req.params.id), token(req), jsonObjectBody(req)),
      );
    },
  });
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/documents/:position/shown',
    auth: 'signer',
    summary: 'Hosted page: a document of the current sign step was shown to its end (recorded, never "read")',
    handler: async (req, res) => {
      noStore(res);
      const position = /^\d{1,2}$/.test(String(req.params.position)) ? Number(req.params.position) : -1;
      sendJson(res, 200, await transport.documentShown(String(req.params.id), token(req), position));
    },
  });
  reg.add({
    method: 'get',
    path: '/t/sessions/:id/documents/:position',
    auth: 'signer',
    summary: 'Hosted page: download an original document of a sign step (bound browser only)',
    handler: async (req, res) => {
      const position = /^\d{1,2}$/.test(String(req.params.position)) ? Number(req.params.position) : -1;
      const { doc, bytes } = await transport.documentFile(String(req.params.id), token(req), position);
      noStore(res);
      // Served as a download in a sandboxed context: never rendered as part of the hosted page.
      res.setHeader('Content-Security-Policy', "sandbox; default-src 'none'");
      res.setHeader(
        'Content-Disposition',
        `attachment; filename="${doc.label.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(doc.label)}`,
      );
      res.setHeader('X-Document-SHA256', doc.sha256);
      res.status(200).type(doc.contentType).send(bytes);
    },
  });
}
