// Composition root: builds every service by hand from config and the true edges (clock, logger, KMS
// master key), mounts REST, GraphQL, the hosted page and the internal transport, and runs the workers.
// main.ts and the black-box tests build the same graph through createService().
import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import { Redis } from 'ioredis';
import type { NonEmptyArray } from 'type-graphql';
import type { DataSource } from 'typeorm';
import { type Clock, systemClock } from './common/clock';
import type { Ctx } from './common/context';
import { AppError } from './common/errors';
import { type HeaderSink, type LaneAuth, type LaneRead, withFastLane } from './common/fast-lane';
import {
  API_JSON_LIMIT,
  type AppRequest,
  type AuthDecision,
  ERROR_TYPE_BASE,
  errorHandler,
  notFoundHandler,
  pathEncodingGuard,
  RouteRegistry,
  requestContext,
  sendProblem,
} from './common/http';
import { createLogger, type Logger } from './common/logger';
import { apiKeyBudget, RateLimiter, rateLimitByApiKey } from './common/rate-limit';
import { startTracing, traceRequests } from './common/tracing';
import type { Config } from './config/config';
import { DatabaseAvailability } from './db/availability';
import { createDataSource } from './db/data-source';
import { buildGraphqlSchema, graphqlMiddleware } from './graphql/server';
import { graphqlUploads } from './graphql/uploads';
import { createAccountsResolver } from './modules/accounts/accounts.resolver';
import { dashboardAuth, dashboardCtx, registerAccountRoutes } from './modules/accounts/accounts.rest';
import { AccountsService } from './modules/accounts/accounts.service';
import { requireScope, scopeForRoute } from './modules/accounts/roles';
import { createAuditResolver } from './modules/audit/audit.resolver';
import { registerAuditRoutes } from './modules/audit/audit.rest';
import { AuditService } from './modules/audit/audit.service';
import { createBrandingResolver } from './modules/branding/branding.resolver';
import { registerBrandingRoutes } from './modules/branding/branding.rest';
import { BrandingService } from './modules/branding/branding.service';
import { createCatalogResolver } from './modules/catalog/catalog.resolver';
import { registerCatalogRoutes } from './modules/catalog/catalog.rest';
import { CatalogService } from './modules/catalog/catalog.service';
import { FilesystemBlobStore } from './modules/document/blob-store';
import { TransientUploadCleanup } from './modules/document/cleanup';
import { DocumentService } from './modules/document/document.service';
import { registerErrorReferenceRoutes } from './modules/errors/error-reference.rest';
import { EvidenceService } from './modules/evidence/evidence.service';
import { createKmsProvider, type KmsClientOverrides } from './modules/kms/kms.factory';
import { loadOrCreateLocalMasterKey } from './modules/kms/local-kms.provider';
import { registerDevMailRoutes } from './modules/mail/dev-mail.rest';
import { createMailSender, type MailSender } from './modules/mail/mail';
import { routeTemplateOf, ServiceMetrics } from './modules/ops/metrics';
import { registerOpsRoutes } from './modules/ops/ops.rest';
import { OpsService } from './modules/ops/ops.service';
import { readOutboxBacklog } from './modules/ops/outbox-backlog';
import { createReceiptResolver } from './modules/receipt/receipt.resolver';
import { registerReceiptRoutes } from './modules/receipt/receipt.rest';
import { ReceiptService } from './modules/receipt/receipt.service';
import { ensureMdocSeeded } from './modules/sandbox/mdoc/mdoc-issuer';
import { ReferenceWallet } from './modules/sandbox/reference-wallet';
import { registerSandboxRoutes } from './modules/sandbox/sandbox.rest';
import { SandboxIssuer } from './modules/sandbox/sandbox-issuer';
import {
  registerSandboxCrossDeviceRoute,
  SignedRequestWallet,
} from './modules/sandbox/signed-request-wallet';
import { loadBrowserBinding } from './modules/session/browser-binding';
import { createSessionResolver } from './modules/session/session.resolver';
import { registerSessionRoutes, registerTransportRoutes } from './modules/session/session.rest';
import { SessionService } from './modules/session/session.service';
import { SessionTransport } from './modules/session/session.transport';
import { registerWalletRoutes, walletBodyParser } from './modules/session/session.wallet-routes';
import { WALLET_PATH, WalletTransports } from './modules/session/session.wallet-transports';
import { mountStartPage } from './modules/start/start-page';
import { createSupportResolver } from './modules/support/support.resolver';
import { SupportService } from './modules/support/support.service';
import { bearerToken, TenancyService } from './modules/tenancy/tenancy.service';
import { allowInsecureWalletUrls } from './modules/verification/jar';
import { MdocTrustStore } from './modules/verification/mdoc/mdoc-trust';
import { MdocPresentationVerifier } from './modules/verification/mdoc/mdoc-verifier';
import { PresentationVerifier } from './modules/verification/presentation-verifier';
import { KeySealer, ResponseEncryption } from './modules/verification/response-encryption';
import { cachingStatusListFetcher, httpStatusListFetcher } from './modules/verification/status-list-fetch';
import { TrustStore } from './modules/verification/trust';
import { VerifierIdentityService } from './modules/verification/verifier-identity';
import { registerDevReceiver } from './modules/webhook/dev-receiver';
import { sealClearWebhookSecrets, WebhookSecretBox } from './modules/webhook/secret-box';
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
  /** Cloud KMS client options beyond config (tests: credentials for the wire-protocol fakes). */
  kmsClients?: KmsClientOverrides;
  /** Graceful shutdown: how long close() waits for in-flight requests before cutting connections. */
  shutdownGraceMs?: number;
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
  /** Seals and opens webhook signing secrets at rest (ADR 0028). */
  webhookSecrets: WebhookSecretBox;
  relay: WebhookRelay;
  sessions: SessionService;
  transport: SessionTransport;
  audit: AuditService;
  /** Encrypted step evidence (tests and auditors open it; no API does). */
  evidence: EvidenceService;
  documents: DocumentService;
  sandboxIssuer: SandboxIssuer;
  wallet: ReferenceWallet;
  catalog: CatalogService;
  /** Signed DC API and cross-device wallet requests (session.wallet-routes.ts). */
  walletTransports: WalletTransports;
  /** The reference wallet speaking the signed transports (sandbox tooling and tests). */
  signedWallet: SignedRequestWallet;
  /** Health, readiness and the /metrics answer (ops, issue 11). */
  ops: OpsService;
  metrics: ServiceMetrics;
  /** One expiry-sweeper pass, counted in /metrics (the workers run it every 30 s; tests call it). */
  sweep(): Promise<number>;
  /** Outgoing mail (receipts, sign-in links, invitations): SMTP, or .eml files under DATA_DIR/mail. */
  mail: MailSender;
  /** Dashboard users, sign-in, invitations, API key management (modules/accounts). */
  accounts: AccountsService;
  /** The signer's record: receipt PDF, originals, emailed receipt, close online access. */
  receipts: ReceiptService;
  /** Removes transient uploads of sign steps that never completed (worker pass; tests call pass()). */
  cleanup: TransientUploadCleanup;
  /** Sessions for support: list and timeline (dashboard). */
  support: SupportService;
  /** Listens on config.host:config.port (0 = any free port); resolves to the bound URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function createService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const tracing = await startTracing(config);
  const ds = await createDataSource(config);
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  // A database that goes away: 503 service_unavailable + Retry-After, logged once (db/availability.ts).
  const availability = new DatabaseAvailability({ ds, logger });
  const isOutage = (e: unknown) => availability.classify(e) !== undefined;

  const masterKey = loadOrCreateLocalMasterKey(config.dataDir);
  const sealer = new KeySealer(masterKey);
  // Webhook signing secrets are sealed under the master key (ADR 0028): clear ones left by an earlier version
  // are sealed here, and a node whose master key is not the one they were sealed under refuses to start.
  const webhookSecrets = new WebhookSecretBox(sealer);
  try {
    await sealClearWebhookSecrets(ds, webhookSecrets);
  } catch (e) {
    await ds.destroy();
    throw e;
  }
  const kmsProvider = createKmsProvider({ config, ds, clock, masterKey, overrides: opts.kmsClients });
  const kms = kmsProvider.kms;
  await kms.currentKeyVersion('audit-signing');
  const audit = new AuditService({ ds, kms });
  const tenancy = new TenancyService({ ds, clock });
  const workflows = new WorkflowService({ ds });
  const webhooks = new WebhookService({
    ds,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    secrets: webhookSecrets,
    onQueued: () => relay.kick(),
  });
  // scale-out (ADR 0014): on MySQL the relay has its own small pool, so a delivery burst never takes the
  // API's connections (and the reverse); SQLite has one writer, so it shares the one DataSource.
  const relayDs = config.databaseUrl
    ? await createDataSource(config, { poolSize: 6, multipleStatements: true })
    : ds;
  if (relayDs !== ds) await relayDs.initialize();
  const metrics = new ServiceMetrics({ outbox: () => readOutboxBacklog(ds, clock) });
  const ops = new OpsService({ ds, metrics, metricsToken: config.metricsToken });
  const relay = new WebhookRelay({
    ds: relayDs,
    clock,
    logger,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    secrets: webhookSecrets,
    metrics,
    isOutage,
  });
  const kick = () => relay.kick();
  const sandboxIssuer = new SandboxIssuer({ ds, config, clock });
  const wallet = new ReferenceWallet({ ds, clock });
  if (config.seedSandbox) {
    await sandboxIssuer.ensureSeeded();
    await ensureMdocSeeded({ ds, clock }); // IACA + document signer, the personas' mdoc documents
  }
  const catalog = new CatalogService({ ds, clock });
  await catalog.ensureSeeded({
    sandboxIssuerIdentifier: sandboxIssuer.issuerId,
    sandboxEnabled: config.seedSandbox,
  });
  const verifier = new PresentationVerifier({
    trust: new TrustStore(ds),
    fetchStatusList: cachingStatusListFetcher(httpStatusListFetcher(), clock),
    mdoc: new MdocPresentationVerifier({ trust: new MdocTrustStore(ds) }),
  });
  // Verification outcomes for /metrics, counted here so the verifier itself stays unaware of metrics.
  const verify = verifier.verify.bind(verifier);
  verifier.verify = (input) =>
    verify(input).then(
      (r) => {
        metrics.verification('verified');
        return r;
      },
      (e: unknown) => {
        metrics.verification(e instanceof AppError ? e.code : 'internal_error');
        throw e;
      },
    );
  // Sign-step documents (content-addressed, write-once blobs) and envelope-encrypted step evidence.
  const blobs = new FilesystemBlobStore(path.join(config.dataDir, 'blobs'));
  const documents = new DocumentService({ blobs });
  // Transient uploads of sign steps that never completed: removed by a worker pass (modules/document/cleanup.ts).
  const cleanup = new TransientUploadCleanup({ ds, blobs, logger });
  const evidence = new EvidenceService({ kms });
  const sessions = new SessionService({
    ds,
    config,
    clock,
    workflows,
    webhooks,
    catalog,
    documents,
    onEventsQueued: kick,
  });
  // Signed DC API and cross-device requests (verifier certificate, per-request response encryption).
  if (config.appEnv !== 'production' && config.hostedUrl.startsWith('http://'))
    await allowInsecureWalletUrls();
  const verifierIdentity = new VerifierIdentityService({ ds, hostedUrl: config.hostedUrl, sealer, clock });
  const walletTransports = new WalletTransports({
    ds,
    clock,
    hostedUrl: config.hostedUrl,
    identity: verifierIdentity,
    encryption: new ResponseEncryption(sealer),
  });
  const signedWallet = new SignedRequestWallet({
    wallet,
    clock,
    trustedRoots: async () => [(await verifierIdentity.current()).rootCertificate],
    allowedOrigins: [new URL(config.hostedUrl).origin],
  });
  const transport = new SessionTransport({
    ds,
    config,
    binding: await loadBrowserBinding(ds, clock, sealer),
    clock,
    workflows,
    audit,
    verifier,
    documents,
    evidence,
    sandboxPersonas: config.seedSandbox ? (request) => wallet.personas(request) : undefined,
    wallets: walletTransports,
    onEventsQueued: kick,
    signerAccess: { assertSignerAccessOpen: (s): Promise<void> => receipts.assertSignerAccessOpen(s) },
  });

  const mail = createMailSender(config);
  const accounts = new AccountsService({ ds, clock, logger, tenancy, mail, dashboardUrl: config.baseUrl });
  // The signer's record (receipt PDF, originals, emailed receipt, close access); modules/receipt.
  const receipts: ReceiptService = new ReceiptService({
    ds,
    clock,
    config,
    logger,
    audit,
    workflows,
    documents,
    transport,
    mail,
  });

  const services: ApiServices = {
    config,
    ds,
    clock,
    logger,
    tenancy,
    workflows,
    webhooks,
    webhookSecrets,
    relay,
    sessions,
    transport,
    audit,
    evidence,
    documents,
    sandboxIssuer,
    wallet,
    catalog,
    walletTransports,
    signedWallet,
    ops,
    metrics,
    mail,
    accounts,
    receipts,
    cleanup,
    support: new SupportService({ ds }),
  };
  const { routes, resolvers } = declareApi(services);
  // Shared rate-limit counters when REDIS_URL is set (ADR 0016); commands fail fast while Redis is away
  // (no offline queue), and the limiter's memory insurance answers instead.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true })
    : undefined;
  redis?.on('error', (e: Error) => logger.warn('redis unavailable', { error: e.message }));
  await redis?.connect().catch(() => {}); // logged above; ioredis keeps reconnecting
  const limiter = new RateLimiter(clock, config.rateLimit, {
    redis,
    keyPrefix: config.rateLimitKeyPrefix,
  });
  const limitByApiKey = rateLimitByApiKey(limiter);
  const takeBudget = apiKeyBudget(limiter);

  /**
   * The `api_key` decision for a /v1 route (Express and the lean lane): the key, then the scope the route needs
   * (403 api_key_scope_missing), then one request of the key's budget (rate-limit headers set on `res`).
   */
  const authorizeApiKey = async (
    req: http.IncomingMessage,
    res: HeaderSink,
    route: string,
    read?: LaneRead,
  ): Promise<LaneAuth> => {
    const header = req.headers.authorization;
    const presented = bearerToken(Array.isArray(header) ? header[0] : header);
    const authed: LaneAuth = read
      ? await read(presented)
      : { actor: await tenancy.authenticate(presented), rows: [] };
    try {
      const scope = scopeForRoute(req.method ?? '', route);
      if (scope) requireScope(authed.actor, scope);
      await takeBudget(authed.actor.apiKeyId, res);
    } catch (e) {
      // a key recognised from memory may have been revoked since: that is the answer, as on a read key
      await authed.confirm?.();
      throw e;
    }
    return authed;
  };
  const apiKeyAuth: RequestHandler = (req, res, next) => {
    authorizeApiKey(req, res, (req.route as { path?: string } | undefined)?.path ?? req.path)
      .then(({ actor }) => {
        const r = req as AppRequest;
        r.ctx = { ...r.ctx, actor };
        next();
      })
      .catch((e: unknown) =>
        e instanceof AppError && e.code === 'rate_limited'
          ? sendProblem(res, e, (req as AppRequest).ctx.requestId)
          : next(e),
      );
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
    dashboard: dashboardAuth(accounts),
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  // problem `type` URIs point at the error reference this service serves (modules/errors)
  app.locals[ERROR_TYPE_BASE] = `${config.baseUrl.replace(/\/+$/, '')}/errors/`;
  // No automatic ETags on API answers: hashing every JSON body cost CPU on each request and no API client
  // revalidates them; routes that want revalidation set their own (the audit JWKS does).
  app.set('etag', false);
  app.use(requestContext(clock));
  app.use(metrics.http());
  app.use((_req, res, next) => {
    // While shutting down, answers close their connection so clients reconnect to another node.
    if (ops.isDraining) res.setHeader('Connection', 'close');
    next();
  });
  app.use(pathEncodingGuard());
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  app.use('/dev/webhook-receiver', express.raw({ type: '*/*', limit: '1mb' }));
  app.use(WALLET_PATH, walletBodyParser());
  app.use(
    ['/v1', '/t', '/sandbox'],
    express.json({ limit: API_JSON_LIMIT, type: ['application/json', 'application/*+json'] }),
  );
  app.use('/auth', express.json({ limit: '64kb' })); // dashboard sign-in (modules/accounts)

  const router = express.Router();
  routes.mount(router, auth);
  app.use(router);

  const gqlContext = async (req: express.Request): Promise<Ctx> => {
    const base = (req as AppRequest).ctx;
    if (base.actor.kind === 'api_key' || base.actor.kind === 'dashboard') return base; // already resolved (graphqlActor)
    const key = bearerToken(req.header('authorization'));
    // No API key: a dashboard session cookie, whose requests must carry its CSRF token (accounts).
    if (!key) return (await dashboardCtx(accounts, req, base, true)) ?? base;
    try {
      return { ...base, actor: await tenancy.authenticate(key) };
    } catch (e) {
      // A wrong key is not an internal error: the request stays anonymous and every @Authorized
      // operation answers `unauthenticated`, exactly as without a key.
      if (e instanceof AppError && e.code === 'unauthenticated') return base;
      throw e;
    }
  };
  const schema = await buildGraphqlSchema(resolvers);
  const gql = await graphqlMiddleware(schema, logger, gqlContext, {
    classify: (e) => availability.classify(e),
  });
  // GraphQL multipart requests (createSession with documents): CSRF header and API key checked before the
  // body is read, then parsed by graphql-upload-ts with the REST upload limits (graphql/uploads.ts).
  const uploads = graphqlUploads({
    param: 'documents',
    authenticate: async (req) => {
      const ctx = await gqlContext(req);
      (req as AppRequest).ctx = ctx;
      return ctx.actor.kind === 'api_key' || ctx.actor.kind === 'dashboard'; // dashboard: CSRF already checked
    },
  });
  // The API key of a GraphQL request is resolved once, up front, and draws on the same per-key budget as /v1.
  const graphqlActor: RequestHandler = (req, res, next) => {
    gqlContext(req)
      .then((ctx) => {
        (req as AppRequest).ctx = ctx;
        if (ctx.actor.kind === 'api_key') limitByApiKey(req, res, next);
        else next();
      })
      .catch(next);
  };
  app.use(
    '/graphql',
    graphqlActor,
    express.json({ limit: '256kb' }),
    ...uploads.before,
    gql.handler,
    uploads.onError,
  );

  mountHostedPage(app, config);
  mountDashboardPage(app, config); // dashboard app (issue 10, ADR 0017)
  mountStartPage(app, config); // `/`: the development start page, or the product page (issue 20)
  app.use(notFoundHandler);
  app.use(errorHandler(logger, { classify: (e) => availability.classify(e) }));

  let server: http.Server | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let receiptWorker: NodeJS.Timeout | undefined;
  const service: Service = {
    ...services,
    app,
    routes,
    sweep() {
      return sessions.sweepOverdue().then(
        (n) => {
          metrics.sweep('ok', n);
          return n;
        },
        (e: unknown) => {
          metrics.sweep('error');
          throw e;
        },
      );
    },
    async listen() {
      // the lean lane answers the hottest /v1 routes in their plain shape, Express everything else (ADR 0023)
      const listener = withFastLane(app, routes.lanes(), {
        clock,
        logger,
        authorize: (req, res, route, read) => authorizeApiKey(req, res, route, read),
        classify: (e) => availability.classify(e),
        isDraining: () => ops.isDraining,
        observe: (method, route, status, seconds) => metrics.request(method, route, status, seconds, true),
        errorTypeBase: app.locals[ERROR_TYPE_BASE] as string,
      });
      server = http.createServer(tracing ? traceRequests(listener, routeTemplateOf) : listener);
      await new Promise<void>((resolve) => server?.listen(config.port, config.host, resolve));
      if (opts.workers !== false) {
        relay.start();
        sweeper = setInterval(() => {
          // an outage is logged once by DatabaseAvailability, not by every pass
          const failed = (what: string) => (e: unknown) => {
            if (!isOutage(e)) logger.error(`${what} failed`, { error: String(e) });
          };
          service.sweep().catch(failed('expiry sweep')); // counted in /metrics
          // boundaries (issue 7): gate reminders on the same beat (an Idempotency-Key is released lazily after
          // its 24 h by the next request with it, so there is no purge pass: ADR 0024)
          sessions.sweepDecisionsDue().catch(failed('decision sweep'));
        }, 30_000);
        // transient-upload cleanup and receipt emails left pending by a failed send (bounded batches)
        receiptWorker = setInterval(() => {
          cleanup
            .pass()
            .then(() => receipts.deliverPending())
            .catch((e) => {
              if (!isOutage(e)) logger.error('cleanup/receipt pass failed', { error: String(e) });
            });
        }, 60_000);
      }
      const { port } = server.address() as AddressInfo;
      return `http://${config.host}:${port}`;
    },
    async close() {
      // Graceful: readiness fails and new connections are refused at once; requests in flight and the
      // relay's in-flight deliveries (whose outcome writes release their leases) finish; then the pool closes.
      ops.drain();
      if (sweeper) clearInterval(sweeper);
      availability.stop();
      if (receiptWorker) clearInterval(receiptWorker);
      const drained = server ? drainHttp(server, opts.shutdownGraceMs ?? 10_000) : Promise.resolve();
      await relay.stop();
      await drained;
      await gql.stop();
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server?.close(() => resolve()));
      }
      if (relayDs !== ds) await relayDs.destroy();
      await kmsProvider.close();
      redis?.disconnect();
      await ds.destroy();
      await tracing?.shutdown();
    },
  };
  return service;
}

/**
 * Stops accepting connections, closes keep-alive connections as they turn idle, and resolves when every
 * request in flight has been answered, or after `graceMs`, when the remaining connections are cut.
 */
async function drainHttp(server: http.Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 50);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  server.closeIdleConnections();
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}

/** The services the HTTP surfaces are declared over. */
export type ApiServices = Omit<Service, 'app' | 'routes' | 'listen' | 'close' | 'sweep'>;

/**
 * Declares every REST route (with its auth decision) and every GraphQL resolver, once. createService mounts
 * them; the contract generator (tools/generate-schema.ts) calls this with hollow stand-ins, because
 * registration only keeps references to the services and calls them per request. Add new routes here.
 */
export function declareApi(s: ApiServices): {
  routes: RouteRegistry;
  // biome-ignore lint/complexity/noBannedTypes: TypeGraphQL takes resolver classes as Function values
  resolvers: NonEmptyArray<Function>;
} {
  const routes = new RouteRegistry();
  // branding and return_url (issue 10): a stateless service over the data source; changes go to account_audit
  const branding = new BrandingService({ ds: s.ds, audit: (m, e) => s.accounts.audit(m, e) });
  registerSessionRoutes(routes, s.sessions, s.tenancy);
  registerTransportRoutes(routes, s.transport);
  registerWalletRoutes(routes, { transport: s.transport, wallets: s.walletTransports });
  registerAuditRoutes(routes, s.audit);
  registerCatalogRoutes(routes, s.catalog);
  registerOpsRoutes(routes, s.ops);
  registerAccountRoutes(routes, s.accounts);
  registerErrorReferenceRoutes(routes, { baseUrl: s.config.baseUrl });
  registerReceiptRoutes(routes, s.receipts, {
    baseUrl: s.config.baseUrl,
    hostedUrl: s.config.hostedUrl,
    binding: s.transport.binding,
  });
  registerBrandingRoutes(routes, branding);
  if (s.config.seedSandbox) {
    registerSandboxRoutes(routes, { issuer: s.sandboxIssuer, wallet: s.wallet });
    registerSandboxCrossDeviceRoute(routes, s.signedWallet);
  }
  // The development receiver shows delivery bodies (claims included) to anyone who can reach it: never in a
  // production deployment, even one that serves sandbox keys.
  if (s.config.seedSandbox && s.config.appEnv === 'development') {
    registerDevReceiver(routes, { ds: s.ds, logger: s.logger, clock: s.clock, secrets: s.webhookSecrets });
    registerDevMailRoutes(routes, { dataDir: s.config.dataDir });
  }
  // biome-ignore lint/complexity/noBannedTypes: TypeGraphQL takes resolver classes as Function values
  const resolvers: NonEmptyArray<Function> = [
    createWorkflowResolver(s.workflows),
    createWebhookResolver(s.webhooks),
    createSessionResolver(s.sessions),
    createCatalogResolver(s.catalog),
    createAccountsResolver(s.accounts),
    createReceiptResolver(s.receipts),
    createSupportResolver(s.support),
    createAuditResolver(s.audit),
    createBrandingResolver(branding),
  ];
  return { routes, resolvers };
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
