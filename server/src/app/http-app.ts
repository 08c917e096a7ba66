// The HTTP listener: the pipeline (app/pipeline.ts) for every /v1 and /t route, with the API-key decision (key,
// the route's scope, the per-key budget) or the signer's binding cookie; Express for the rest (GraphQL, /auth,
// /sandbox, /oid4vp, /dev, /.well-known, /r, /errors, the hosted page, the dashboard and static files).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import type { NonEmptyArray } from 'type-graphql';
import type { Clock } from '../common/clock';
import { AppError } from '../common/errors';
import {
  API_JSON_LIMIT,
  API_JSON_TYPES,
  type ApiRoute,
  type AppRequest,
  type AuthDecision,
  ERROR_TYPE_BASE,
  errorHandler,
  isPipelinePath,
  type KeyAuth,
  notFoundHandler,
  pathEncodingGuard,
  type RouteRegistry,
  requestContext,
  sendProblem,
} from '../common/http';
import type { Logger } from '../common/logger';
import { apiKeyBudget, type HeaderSink, type RateLimiter, rateLimitByApiKey } from '../common/rate-limit';
import { requireScope } from '../common/roles';
import { traceRequests } from '../common/tracing';
import type { Config } from '../config/config';
import type { DatabaseAvailability } from '../db/availability';
import { dashboardAuth } from '../modules/accounts/accounts.rest';
import type { AccountsService } from '../modules/accounts/accounts.service';
import { routeTemplateOf, type ServiceMetrics } from '../modules/ops/metrics';
import type { OpsService } from '../modules/ops/ops.service';
import { walletBodyParser } from '../modules/signer/signer.wallet-routes';
import { WALLET_PATH } from '../modules/signer/signer.wallet-transports';
import { mountStartPage } from '../modules/start/start-page';
import { bearerToken, type TenancyService } from '../modules/tenancy/tenancy.service';
import { mountFavicon } from './favicon';
import { type GraphqlDeps, mountGraphql } from './graphql';
import { createPipeline, type ReadKey } from './pipeline';
import { mountVerifyPage } from './verify-page';

export interface HttpAppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  routes: RouteRegistry;
  // biome-ignore lint/complexity/noBannedTypes: TypeGraphQL takes resolver classes as Function values
  resolvers: NonEmptyArray<Function>;
  /** The signer page's compiled reads, answered before Apollo (ADR 0062). */
  pageReads?: GraphqlDeps['pageReads'];
  tenancy: TenancyService;
  accounts: AccountsService;
  ops: OpsService;
  metrics: ServiceMetrics;
  limiter: RateLimiter;
  availability: DatabaseAvailability;
}

export interface HttpApp {
  app: express.Express;
  /** Stops Apollo (shutdown). */
  stopGraphql(): Promise<void>;
  /** Builds the node:http listener: the pipeline for /v1 and /t, Express for the rest (ADR 0037, 0056). */
  createServer(tracing: boolean): http.Server;
}

export async function buildHttpApp(d: HttpAppDeps): Promise<HttpApp> {
  const { config, clock, logger, ops, metrics, availability } = d;
  const limitByApiKey = rateLimitByApiKey(d.limiter);
  const takeBudget = apiKeyBudget(d.limiter);

  /**
   * The `api_key` decision of a /v1 route: the key (through the route's combined read when it has one), then
   * the scope the route declares (403 api_key_scope_missing), then one request of the key's budget
   * (rate-limit headers on `sink`). A refusal here confirms a remembered key first: a revoked key is told 401.
   */
  const authorizeApiKey = async (
    req: http.IncomingMessage,
    sink: HeaderSink,
    route: ApiRoute,
    read?: ReadKey,
  ): Promise<KeyAuth> => {
    const header = req.headers.authorization;
    const presented = bearerToken(Array.isArray(header) ? header[0] : header);
    const authed: KeyAuth = read
      ? await read(presented)
      : { actor: await d.tenancy.authenticate(presented), rows: [] };
    try {
      if (route.scope) requireScope(authed.actor, route.scope);
      await takeBudget(authed.actor.apiKeyId, sink);
    } catch (e) {
      await authed.confirm?.();
      throw e;
    }
    return authed;
  };
  const pass: RequestHandler = (_req, _res, next) => next();
  const sandboxOnly: RequestHandler = (req, res, next) =>
    config.seedSandbox
      ? next()
      : sendProblem(res, new AppError('not_found'), (req as AppRequest).ctx.requestId);
  const auth: Record<Exclude<AuthDecision, 'api_key'>, RequestHandler> = {
    public: pass,
    signer: pass,
    sandbox: sandboxOnly,
    dashboard: dashboardAuth(d.accounts),
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // problem `type` URIs point at the error reference this service serves (modules/errors)
  app.locals[ERROR_TYPE_BASE] = `${config.baseUrl.replace(/\/+$/, '')}/errors/`;
  // No automatic ETags on API answers: hashing every JSON body cost CPU on each request and no API client
  // revalidates them; routes that want revalidation set their own (the audit JWKS does).
  app.set('etag', false);
  app.use(requestContext(clock, () => ops.isDraining));
  app.use(metrics.http());
  app.use(pathEncodingGuard());
  app.use('/dev/webhook-receiver', express.raw({ type: '*/*', limit: '1mb' }));
  app.use(WALLET_PATH, walletBodyParser());
  app.use('/sandbox', express.json({ limit: API_JSON_LIMIT, type: API_JSON_TYPES }));
  app.use('/auth', express.json({ limit: '64kb' })); // dashboard sign-in (modules/accounts)

  const router = express.Router();
  d.routes.mount(router, auth);
  app.use(router);

  const gql = await mountGraphql(app, {
    resolvers: d.resolvers,
    pageReads: d.pageReads,
    logger,
    tenancy: d.tenancy,
    accounts: d.accounts,
    availability,
    limitByApiKey,
  });

  mountHostedPage(app, config);
  mountFavicon(app);
  mountDashboardPage(app, config); // dashboard app (issue 10, ADR 0017)
  mountVerifyPage(app, config); // receipt verification page (ADR 0047)
  mountStartPage(app, config); // `/`: the development start page, or the product page (issue 20)
  app.use(notFoundHandler);
  app.use(errorHandler(logger, { classify: (e) => availability.classify(e) }));

  return {
    app,
    stopGraphql: () => gql.stop(),
    createServer(tracing) {
      const pipeline = createPipeline(d.routes.apiRoutes(), {
        clock,
        logger,
        authorize: authorizeApiKey,
        classify: (e) => availability.classify(e),
        isDraining: () => ops.isDraining,
        observe: (method, route, status, seconds) => metrics.request(method, route, status, seconds),
        errorTypeBase: app.locals[ERROR_TYPE_BASE] as string,
      });
      const listener: http.RequestListener = (req, res) =>
        isPipelinePath(req.url ?? '') ? pipeline(req, res) : app(req, res);
      return http.createServer(tracing ? traceRequests(listener, routeTemplateOf) : listener);
    },
  };
}

/**
 * Serves the dashboard entry of the same build (ADR 0017): dashboard.html for /dashboard and every path under
 * it (client-side routes); it shares /assets with the hosted page. The page itself is public markup: all data
 * comes from /auth and /graphql, which carry their own auth decisions.
 */
function mountDashboardPage(app: express.Express, config: Config): void {
  const page = path.join(config.hostedWebDist, 'dashboard.html');
  app.get(['/dashboard', '/dashboard/*splat'], (_req, res) => {
    if (!fs.existsSync(page)) {
      res
        .status(503)
        .type('text/plain')
        .send('The dashboard is not built: run `pnpm --filter hosted-web build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.sendFile(page);
  });
}

/** Serves the built Solid SPA: index.html for /s/:id (and its wallet return /s/:id/return), hashed assets under /assets. */
function mountHostedPage(app: express.Express, config: Config): void {
  const index = path.join(config.hostedWebDist, 'index.html');
  app.use(
    '/assets',
    express.static(path.join(config.hostedWebDist, 'assets'), {
      immutable: true,
      maxAge: '365d',
      fallthrough: false,
    }),
  );
  app.get(['/s/:id', '/s/:id/return'], (_req, res) => {
    if (!fs.existsSync(index)) {
      res
        .status(503)
        .type('text/plain')
        .send('The hosted page is not built: run `pnpm --filter hosted-web build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    );
    res.setHeader('X-Frame-Options', 'DENY');
    res.sendFile(index);
  });
}
