// Dashboard sign-in over REST (ADR 0012): the cookie is set and cleared here, so these few routes are plain
// HTTP rather than GraphQL. Thin over AccountsService. The `dashboard` auth decision (cookie session, CSRF
// header on unsafe methods, X-Environment) is implemented by dashboardActor() below.
import type { Request, RequestHandler, Response } from 'express';
import type { Ctx } from '../../common/context';
import { readCookie } from '../../common/cookies';
import { safeEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { type AppRequest, jsonObjectBody, type RouteRegistry, sendJson } from '../../common/http';
import { isEnvironment } from '../../common/roles';
import type { Environment } from '../../config/config';
import { type AccountsService, csrfFor, SESSION_ABSOLUTE_MS, type SignedIn } from './accounts.service';

export const DASHBOARD_COOKIE = 'svc_dashboard';
export const CSRF_HEADER = 'x-csrf-token';
export const ENVIRONMENT_HEADER = 'x-environment';

const setSessionCookie = (res: Response, s: SignedIn): void => {
  // A new session always lives SESSION_ABSOLUTE_MS at most (the server decides the real end, idle included).
  const maxAge = Math.floor(SESSION_ABSOLUTE_MS / 1000);
  res.setHeader(
    'Set-Cookie',
    `${DASHBOARD_COOKIE}=${s.token}; Path=/; Max-Age=${maxAge}; HttpOnly; Secure; SameSite=Strict`,
  );
};

const clearSessionCookie = (res: Response): void => {
  res.setHeader('Set-Cookie', `${DASHBOARD_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`);
};

const signedInBody = (s: SignedIn) => ({
  user: { id: s.user.id, email: s.user.email, role: s.user.role, business_id: s.user.businessId },
  session_id: s.sessionId,
  csrf_token: s.csrfToken,
  expires: s.expiresAt.toISOString(),
});

/** The environment a dashboard request acts in: X-Environment, default sandbox. */
export function requestedEnvironment(req: Request): Environment {
  const raw = req.header(ENVIRONMENT_HEADER);
  if (raw === undefined || raw === '') return 'sandbox';
  if (!isEnvironment(raw))
    throw new AppError('validation_failed', 'X-Environment must be sandbox or production.', {
      param: 'X-Environment',
    });
  return raw;
}

/**
 * Resolves the dashboard cookie into a `dashboard` actor. `requireCsrf`: the X-CSRF-Token header must equal
 * the session's CSRF token (constant-time). Returns null when there is no valid session.
 */
export async function dashboardCtx(
  accounts: AccountsService,
  req: Request,
  base: Ctx,
  requireCsrf: boolean,
): Promise<Ctx | null> {
  const token = readCookie(req, DASHBOARD_COOKIE);
  if (!token) return null;
  const found = await accounts.signIn.resolveSession(token);
  if (!found) return null;
  if (requireCsrf && !safeEqual(req.header(CSRF_HEADER) ?? '', csrfFor(token)))
    throw new AppError('csrf_token_invalid');
  return {
    ...base,
    actor: {
      kind: 'dashboard',
      userId: found.user.id,
      businessId: found.user.businessId,
      environment: requestedEnvironment(req),
      role: found.user.role,
      sessionId: found.session.id,
    },
  };
}

/** The `dashboard` auth decision for REST routes: a valid session cookie, and CSRF on unsafe methods. */
export function dashboardAuth(accounts: AccountsService): RequestHandler {
  return (req, _res, next) => {
    const r = req as AppRequest;
    dashboardCtx(accounts, req, r.ctx, req.method !== 'GET' && req.method !== 'HEAD')
      .then((ctx) => {
        if (!ctx) throw new AppError('unauthenticated', 'Sign in to the dashboard first.');
        r.ctx = ctx;
        next();
      })
      .catch(next);
  };
}

export function registerAccountRoutes(routes: RouteRegistry, accounts: AccountsService): void {
  const ua = (req: Request) => req.header('user-agent') ?? undefined;
  routes.add({
    method: 'post',
    path: '/auth/email-link',
    auth: 'public',
    summary:
      'Mails a one-time sign-in link to a dashboard user. Always 202: the answer never tells whether the address has an account.',
    handler: async (req, res) => {
      await accounts.signIn.requestSignInLink(jsonObjectBody(req).email, req.headers['accept-language']);
      sendJson(res, 202, {});
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/email-link/verify',
    auth: 'public',
    summary: 'Signs in with the token of an emailed link (once); sets the session cookie.',
    handler: async (req, res) => {
      const s = await accounts.signIn.verifySignInLink(jsonObjectBody(req).token, ua(req));
      setSessionCookie(res, s);
      sendJson(res, 200, signedInBody(s));
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/invitations/describe',
    auth: 'public',
    summary:
      'The business name and role of a pending invitation, for its page before accepting; the token stays usable.',
    handler: async (req, res) => {
      sendJson(res, 200, await accounts.invitations.describeInvitation(jsonObjectBody(req).token));
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/invitations/accept',
    auth: 'public',
    summary:
      'Accepts an invitation with the token of its link (once, within 24 h); creates the user and signs in.',
    handler: async (req, res) => {
      const s = await accounts.invitations.acceptInvitation(jsonObjectBody(req).token, ua(req));
      setSessionCookie(res, s);
      sendJson(res, 201, signedInBody(s));
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/passkeys/authenticate/options',
    auth: 'public',
    summary: 'WebAuthn request options (discoverable credentials) and the id of their one-time challenge.',
    handler: async (_req, res) => {
      const o = await accounts.signIn.passkeyAuthenticationOptions();
      sendJson(res, 200, { challenge_id: o.challengeId, options: o.options });
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/passkeys/authenticate',
    auth: 'public',
    summary: 'Signs in with a passkey assertion; sets the session cookie.',
    handler: async (req, res) => {
      const b = jsonObjectBody(req);
      const s = await accounts.signIn.passkeySignIn(b.challenge_id, b.response, ua(req));
      setSessionCookie(res, s);
      sendJson(res, 200, signedInBody(s));
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/passkeys/register/options',
    auth: 'dashboard',
    summary: 'WebAuthn creation options for a new passkey of the signed-in user.',
    handler: async (req, res) => {
      const o = await accounts.signIn.passkeyRegistrationOptions((req as AppRequest).ctx);
      sendJson(res, 200, { challenge_id: o.challengeId, options: o.options });
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/passkeys/register',
    auth: 'dashboard',
    summary: 'Registers a passkey for the signed-in user from a WebAuthn attestation.',
    handler: async (req, res) => {
      const b = jsonObjectBody(req);
      sendJson(
        res,
        201,
        await accounts.signIn.passkeyRegister((req as AppRequest).ctx, b.challenge_id, b.response),
      );
    },
  });
  routes.add({
    method: 'get',
    path: '/auth/session',
    auth: 'dashboard',
    summary: 'The signed-in user and the CSRF token of this session (for a reloaded dashboard page).',
    handler: async (req, res) => {
      const ctx = (req as AppRequest).ctx;
      const user = await accounts.members.me(ctx);
      const token = readCookie(req, DASHBOARD_COOKIE) as string;
      sendJson(res, 200, {
        user: { id: user.id, email: user.email, role: user.role, business_id: user.businessId },
        session_id: ctx.actor.kind === 'dashboard' ? ctx.actor.sessionId : undefined,
        csrf_token: csrfFor(token),
      });
    },
  });
  routes.add({
    method: 'post',
    path: '/auth/sign-out',
    auth: 'dashboard',
    summary: 'Ends this session (server-side) and clears the cookie.',
    handler: async (req, res) => {
      await accounts.signIn.signOut(readCookie(req, DASHBOARD_COOKIE));
      clearSessionCookie(res);
      res.status(204).end();
    },
  });
}
