// Composition root: builds every service by hand from config and the true edges (clock, logger, KMS
// master key), mounts REST, GraphQL, the hosted page and the internal transport, and runs the workers.
// main.ts and the black-box tests build the same graph through createService().
import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { type Clock, systemClock } from './common/clock';
import type { Ctx } from './common/context';
import { AppError } from './common/errors';
import {
  type AppRequest,
  type AuthDecision,
  errorHandler,
  notFoundHandler,
  RouteRegistry,
  requestContext,
  sendProblem,
} from './common/http';
import { createLogger, type Logger } from './common/logger';
import type { Config } from './config/config';
import { createDataSource } from './db/data-source';
import { buildGraphqlSchema, graphqlMiddleware } from './graphql/server';
import { registerAuditRoutes } from './modules/audit/audit.rest';
import { AuditService } from './modules/audit/audit.service';
import { LocalKmsProvider, loadOrCreateLocalMasterKey } from './modules/kms/local-kms.provider';
import { ReferenceWallet } from './modules/sandbox/reference-wallet';
import { registerSandboxRoutes } from './modules/sandbox/sandbox.rest';
import { SandboxIssuer } from './modules/sandbox/sandbox-issuer';
import { registerSessionRoutes, registerTransportRoutes } from './modules/session/session.rest';
import { SessionService } from './modules/session/session.service';
import { SessionTransport } from './modules/session/session.transport';
import { bearerToken, TenancyService } from './modules/tenancy/tenancy.service';
import { PresentationVerifier } from './modules/verification/presentation-verifier';
import { httpStatusListFetcher } from './modules/verification/status-list-fetch';
import { TrustStore } from './modules/verification/trust';
import { registerDevReceiver } from './modules/webhook/dev-receiver';
import { WebhookRelay } from './modules/webhook/webhook.relay';
import { createWebhookResolver } from './modules/webhook/webhook.resolver';
import { WebhookService } from './modules/webhook/webhook.service';
import { createWorkflowResolver } from './modules/workflow/workflow.resolver';
import { WorkflowService } from './modules/workflow/workflow.service';

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  /** Start the webhook relay and expiry sweeper loops (tests may drive them by hand). */
  workers?: boolean;
}

export interface Service {
  config: Config;
  ds: DataSource;
  clock: Clock;
  logger: Logger;
  app: express.Express;
  routes: RouteRegistry;
  tenancy: TenancyService;
  workflows: WorkflowService;
  webhooks: WebhookService;
  relay: WebhookRelay;
  sessions: SessionService;
  transport: SessionTransport;
  audit: AuditService;
  sandboxIssuer: SandboxIssuer;
  wallet: ReferenceWallet;
  /** Listens on config.host:config.port (0 = any free port); resolves to the bound URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function createService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const ds = await createDataSource(config);
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });

  const kms = new LocalKmsProvider({
    ds,
    keyRing: config.kmsKeyRing,
    masterKey: loadOrCreateLocalMasterKey(config.dataDir),
    clock,
  });
  await kms.currentKeyVersion('audit-signing');
  const audit = new AuditService({ ds, kms });
  const tenancy = new TenancyService({ ds, clock });
  const workflows = new WorkflowService({ ds });
  const webhooks = new WebhookService({ ds, allowPrivateTargets: config.webhookAllowPrivateTargets });
  const relay = new WebhookRelay({
    ds,
    clock,
    logger,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
  });
  const kick = () => relay.kick();
  const sandboxIssuer = new SandboxIssuer({ ds, config, clock });
  const wallet = new ReferenceWallet({ ds, clock });
  if (config.seedSandbox) await sandboxIssuer.ensureSeeded();
  const verifier = new PresentationVerifier({
    trust: new TrustStore(ds),
    fetchStatusList: httpStatusListFetcher(),
  });
  const sessions = new SessionService({ ds, config, clock, workflows, webhooks, onEventsQueued: kick });
  const transport = new SessionTransport({
    ds,
    config,
    clock,
    workflows,
    audit,
    verifier,
    sandboxPersonas: config.seedSandbox ? () => wallet.personas() : undefined,
    onEventsQueued: kick,
  });

  const routes = new RouteRegistry();
  registerSessionRoutes(routes, sessions);
  registerTransportRoutes(routes, transport);
  registerAuditRoutes(routes, audit);
  if (config.seedSandbox) {
    registerSandboxRoutes(routes, { issuer: sandboxIssuer, wallet });
    registerDevReceiver(routes, { ds, logger, clock });
  }

  const apiKeyAuth: RequestHandler = (req, _res, next) => {
    tenancy
      .authenticate(bearerToken(req.header('authorization')))
      .then((actor) => {
        const r = req as AppRequest;
        r.ctx = { ...r.ctx, actor };
        next();
      })
      .catch(next);
  };
  const pass: RequestHandler = (_req, _res, next) => next();
  const sandboxOnly: RequestHandler = (req, res, next) =>
    config.seedSandbox
      ? next()
      : sendProblem(res, new AppError('not_found'), (req as AppRequest).ctx.requestId);
  const auth: Record<AuthDecision, RequestHandler> = {
    api_key: apiKeyAuth,
    public: pass,
    signer: pass,
    sandbox: sandboxOnly,
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestContext(clock));
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  app.use('/dev/webhook-receiver', express.raw({ type: '*/*', limit: '1mb' }));
  app.use(
    ['/v1', '/t', '/sandbox'],
    express.json({ limit: '256kb', type: ['application/json', 'application/*+json'] }),
  );

  const router = express.Router();
  routes.mount(router, auth);
  app.use(router);

  const gqlContext = async (req: express.Request): Promise<Ctx> => {
    const base = (req as AppRequest).ctx;
    const key = bearerToken(req.header('authorization'));
    if (!key) return base;
    return { ...base, actor: await tenancy.authenticate(key) };
  };
  const schema = await buildGraphqlSchema([
    createWorkflowResolver(workflows),
    createWebhookResolver(webhooks),
  ]);
  const gql = await graphqlMiddleware(schema, logger, gqlContext);
  app.use('/graphql', express.json({ limit: '256kb' }), gql.handler);

  mountHostedPage(app, config);
  app.use(notFoundHandler);
  app.use(errorHandler(logger));

  let server: http.Server | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  const service: Service = {
    config,
    ds,
    clock,
    logger,
    app,
    routes,
    tenancy,
    workflows,
    webhooks,
    relay,
    sessions,
    transport,
    audit,
    sandboxIssuer,
    wallet,
    async listen() {
      server = http.createServer(app);
      await new Promise<void>((resolve) => server?.listen(config.port, config.host, resolve));
      if (opts.workers !== false) {
        relay.start();
        sweeper = setInterval(() => {
          sessions.sweepOverdue().catch((e) => logger.error('expiry sweep failed', { error: String(e) }));
        }, 30_000);
      }
      const { port } = server.address() as AddressInfo;
      return `http://${config.host}:${port}`;
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await relay.stop();
      await gql.stop();
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server?.close(() => resolve()));
      }
      await ds.destroy();
    },
  };
  return service;
}

/** Serves the built Solid SPA: index.html for /s/:id, hashed assets under /assets. */
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
  app.get('/s/:id', (_req, res) => {
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
