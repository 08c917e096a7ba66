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
import type { ReferenceWallet } from './reference-wallet';
import type { SandboxIssuer } from './sandbox-issuer';

export function registerSandboxRoutes(
  reg: RouteRegistry,
  deps: { issuer: SandboxIssuer; wallet: ReferenceWallet },
): void {
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
