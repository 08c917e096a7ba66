// Owns the sandbox HTTP surface: the sandbox issuer's status lists and the reference wallet. Mounted only when
// sandbox tooling is enabled (auth 'sandbox'); nothing here decides anything about production sessions.
import type { Response } from 'express';
import { AppError } from '../../common/errors';
import {
  type AppRequest,
  jsonObjectBody,
  type RouteRegistry,
  requireString,
  sendJson,
} from '../../common/http';
import { isAnnexCRequestData } from '../verification/mdoc/annex-c';
import type { SandboxMdocIssuer } from './mdoc/mdoc-issuer';
import { IDENTIFIER_LIST_TYPE } from './mdoc/mdoc-status-lists';
import type { ReferenceWallet } from './reference-wallet';
import type { SandboxIssuer } from './sandbox-issuer';

export function registerSandboxRoutes(
  reg: RouteRegistry,
  deps: { issuer: SandboxIssuer; mdocIssuer?: SandboxMdocIssuer; wallet: ReferenceWallet },
): void {
  const mdocIssuer = deps.mdocIssuer;
  if (mdocIssuer) registerMdocStatusRoutes(reg, mdocIssuer);
  reg.add({
    method: 'get',
    path: '/sandbox/status-lists/:id',
    auth: 'sandbox',
    summary: 'Token Status List of the sandbox issuer (application/statuslist+jwt).',
    handler: async (req: AppRequest, res: Response) => {
      const token = await deps.issuer.statusListJwt(String(req.params.id));
      res.status(200).type('application/statuslist+jwt').send(token);
    },
  });
  reg.add({
    method: 'get',
    path: '/sandbox/wallet/personas',
    auth: 'sandbox',
    summary: 'Personas of the sandbox reference wallet.',
    handler: async (_req: AppRequest, res: Response) => {
      sendJson(res, 200, { personas: await deps.wallet.personas() });
    },
  });
  reg.add({
    method: 'post',
    path: '/sandbox/wallet/respond',
    auth: 'sandbox',
    summary:
      'The reference wallet answers an OpenID4VP request, or an ISO 18013-7 Annex C request ({deviceRequest, encryptionInfo}), as the given persona.',
    handler: async (req: AppRequest, res: Response) => {
      const body = jsonObjectBody(req);
      const persona = requireString(body, 'persona');
      const origin = requireString(body, 'origin');
      const request = body.request;
      if (request === null || typeof request !== 'object' || Array.isArray(request)) {
        throw new AppError('validation_failed', 'request must be the OpenID4VP request object.', {
          param: 'request',
        });
      }
      const response = isAnnexCRequestData(request as Record<string, unknown>)
        ? await deps.wallet.respondAnnexC({
            persona,
            request: request as { deviceRequest: string; encryptionInfo: string },
            origin,
          })
        : await deps.wallet.respond({ persona, request: request as Record<string, unknown>, origin });
      sendJson(res, 200, { response });
    },
  });
}

/** The sandbox mdoc issuer's lists: the Token Status List in CWT form and the ISO 18013-5 identifier list. */
function registerMdocStatusRoutes(reg: RouteRegistry, issuer: SandboxMdocIssuer): void {
  reg.add({
    method: 'get',
    path: '/sandbox/mdoc-status-lists/:id',
    auth: 'sandbox',
    summary: 'Token Status List of the sandbox mdoc issuer (application/statuslist+cwt, COSE_Sign1 CWT).',
    handler: async (req: AppRequest, res: Response) => {
      const cwt = await issuer.statusListCwt(String(req.params.id));
      res.status(200).type('application/statuslist+cwt').send(Buffer.from(cwt));
    },
  });
  reg.add({
    method: 'get',
    path: '/sandbox/mdoc-identifier-lists/:id',
    auth: 'sandbox',
    summary: 'ISO/IEC 18013-5 identifier list of the sandbox mdoc issuer (application/cwt, COSE_Sign1 CWT).',
    handler: async (req: AppRequest, res: Response) => {
      const cwt = await issuer.identifierListCwt(String(req.params.id));
      res.status(200).type(IDENTIFIER_LIST_TYPE).send(Buffer.from(cwt));
    },
  });
}
