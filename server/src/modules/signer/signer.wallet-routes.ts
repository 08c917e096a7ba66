// Owns the routes a wallet calls directly (the verifier root, request_uri, response_uri; the unguessable
// request id is the capability); the hosted page's signed, cross-device and Annex C requests are in signer.rest.ts.
// The requests themselves are built in signer.wallet-transports.ts;
// every answer completes through SessionTransport's one completion path.
import express, { type Response } from 'express';
import { AppError } from '../../common/errors';
import { type RouteRegistry, sendJson } from '../../common/http';
import { JAR_CONTENT_TYPE } from '../relying-party/jar';
import { browserTokenOf } from './browser-cookie';
import type { SessionTransport } from './signer.transport';
import { WALLET_PATH, type WalletTransports } from './signer.wallet-transports';
import type { WalletRedirects } from './wallet-redirect';

type Json = Record<string, unknown>;

const isRequestId = (v: string) => /^wreq_[0-9a-z]{26}$/.test(v);

export function registerWalletRoutes(
  reg: RouteRegistry,
  deps: { transport: SessionTransport; wallets: WalletTransports; redirects: WalletRedirects },
): void {
  const _token = browserTokenOf;
  const noStore = (res: Response) => res.setHeader('Cache-Control', 'no-store');

  reg.add({
    method: 'get',
    path: `${WALLET_PATH}/verifier-root.pem`,
    auth: 'public',
    summary: 'Wallet: the verifier root certificate (trust anchor of the x5c chains of our signed requests)',
    handler: async (_req, res) => {
      res
        .status(200)
        .type('application/x-pem-file')
        .send(await deps.wallets.rootPem());
    },
  });

  reg.add({
    method: 'get',
    path: `${WALLET_PATH}/requests/:rid`,
    auth: 'public',
    summary: 'Wallet: the signed request object (JAR) behind a request_uri (application/oauth-authz-req+jwt)',
    handler: async (req, res) => {
      noStore(res);
      const rid = String(req.params.rid);
      if (!isRequestId(rid)) throw new AppError('request_not_found');
      res
        .status(200)
        .type(JAR_CONTENT_TYPE)
        .send(await deps.wallets.requestObject(rid));
    },
  });

  reg.add({
    method: 'post',
    path: `${WALLET_PATH}/requests/:rid`,
    auth: 'public',
    summary:
      'Wallet: request_uri_method=post — form fields wallet_metadata (JSON) and wallet_nonce; answers the request object with wallet_nonce (signed, or encrypted to the wallet when it asks)',
    handler: async (req, res) => {
      noStore(res);
      if (!req.is('application/x-www-form-urlencoded')) {
        throw new AppError(
          'unsupported_media_type',
          'Post wallet_metadata and wallet_nonce as application/x-www-form-urlencoded.',
        );
      }
      const rid = String(req.params.rid);
      if (!isRequestId(rid)) throw new AppError('request_not_found');
      res
        .status(200)
        .type(JAR_CONTENT_TYPE)
        .send(await deps.wallets.requestObjectForWallet(rid, (req.body ?? {}) as Json));
    },
  });

  reg.add({
    method: 'post',
    path: `${WALLET_PATH}/responses/:rid`,
    auth: 'public',
    summary:
      'Wallet: direct_post.jwt response (form field `response`, a JWE); answers {redirect_uri} back to the hosted page (same-device redirect, bound to the session browser)',
    handler: async (req, res) => {
      noStore(res);
      if (!req.is('application/x-www-form-urlencoded')) {
        throw new AppError(
          'unsupported_media_type',
          'Post the response as application/x-www-form-urlencoded.',
        );
      }
      const rid = String(req.params.rid);
      if (!isRequestId(rid)) throw new AppError('request_not_found');
      const body = (req.body ?? {}) as Json;
      await deps.transport.submitDirectWalletResponse(rid, body);
      // the step completed at this POST; the redirect only shows the outcome to the bound browser (a wallet on
      // another device opens it in a browser that is refused: the starting browser learns of it by itself)
      sendJson(res, 200, { redirect_uri: await deps.redirects.issue(rid) });
    },
  });
}

/** Body parser for the wallet-facing routes (direct_post is form-encoded). */
export const walletBodyParser = () => express.urlencoded({ extended: false, limit: '256kb' });
