// Composition root: builds every service by hand from config and the true edges (clock, logger, KMS
// master key) and hands them to app/ (routes and resolvers, the Express app and GraphQL, workers, shutdown).
// main.ts and the black-box tests build the same graph through createService().
import 'reflect-metadata';
import path from 'node:path';
import { declareApi } from './app/api';
import { createDataSource } from './app/database';
import { buildHttpApp } from './app/http-app';
import { createRateLimiter } from './app/rate-limits';
import type { ApiServices, Service, ServiceOptions } from './app/service-types';
import { countingVerifier } from './app/verification-metrics';
import { nodeLifecycle } from './app/workers';
import { systemClock } from './common/clock';
import { createLogger } from './common/logger';
import { startTracing } from './common/tracing';
import type { Config } from './config/config';
import { DatabaseAvailability } from './db/availability';
import { enableBatchedTransactions } from './db/batched-transaction';
import { guardDataSource } from './db/pool-guard';
import { AccountsService } from './modules/accounts/accounts.service';
import { AuditService } from './modules/audit/audit.service';
import { CatalogService } from './modules/catalog/catalog.service';
import { FilesystemBlobStore } from './modules/document/blob-store';
import { TransientUploadCleanup } from './modules/document/cleanup';
import { DocumentService } from './modules/document/document.service';
import { EvidenceService } from './modules/evidence/evidence.service';
import { KeySealer } from './modules/kms/key-sealer';
import { createKmsProvider } from './modules/kms/kms.factory';
import { loadMasterKey } from './modules/kms/master-key';
import { createMailSender } from './modules/mail/mail';
import { ServiceMetrics } from './modules/ops/metrics';
import { OpsService } from './modules/ops/ops.service';
import { readOutboxBacklog } from './modules/ops/outbox-backlog';
import { ReceiptService } from './modules/receipt/receipt.service';
import { GoogleRpMetadata } from './modules/relying-party/gw-rp-metadata';
import { allowInsecureWalletUrls } from './modules/relying-party/jar';
import { ReaderCertificates, readerCertWarnings } from './modules/relying-party/reader-certificates';
import {
  loadRegistrationAnchors,
  RegistrationCertificates,
} from './modules/relying-party/registration-certificates';
import { ResponseEncryption } from './modules/relying-party/response-encryption';
import { VerifierIdentityService } from './modules/relying-party/verifier-identity';
import { SandboxMdocIssuer } from './modules/sandbox/mdoc/mdoc-issuer';
import { ReferenceWallet } from './modules/sandbox/reference-wallet';
import { SandboxIssuer } from './modules/sandbox/sandbox-issuer';
import { SignedRequestWallet } from './modules/sandbox/signed-request-wallet';
import { SessionService } from './modules/session/session.service';
import { loadBrowserBinding } from './modules/signer/browser-binding';
import { SessionTransport } from './modules/signer/signer.transport';
import { WalletTransports } from './modules/signer/signer.wallet-transports';
import { SupportService } from './modules/support/support.service';
import { TenancyService } from './modules/tenancy/tenancy.service';
import { configureTrustLists } from './modules/trustlist/trust-list.config';
import { TrustListService } from './modules/trustlist/trust-list.service';
import { MdocTrustStore } from './modules/verification/mdoc/mdoc-trust';
import { MdocPresentationVerifier } from './modules/verification/mdoc/mdoc-verifier';
import { PresentationVerifier } from './modules/verification/presentation-verifier';
import {
  cachingStatusListCwtFetcher,
  cachingStatusListFetcher,
  httpStatusListCwtFetcher,
  httpStatusListFetcher,
} from './modules/verification/status-list-fetch';
import { TrustStore } from './modules/verification/trust';
import { sealClearWebhookSecrets, WebhookSecretBox } from './modules/webhook/secret-box';
import { WebhookRelay } from './modules/webhook/webhook.relay';
import { WebhookService } from './modules/webhook/webhook.service';
import { WorkflowService } from './modules/workflow/workflow.service';

export { declareApi } from './app/api';
export type { ApiServices, Service, ServiceOptions } from './app/service-types';

export async function createService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const tracing = await startTracing(config);
  const ds = await createDataSource(config, { poolSize: config.db.poolSize });
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  // every wait for the database bounded, and the strict single-connection check in tests (ADR 0044)
  guardDataSource(ds, config.db);
  // the session transitions' batched transactions on a pool of their own with the multi-statement flag
  // (ADR 0058); the API's pool keeps one statement per query
  enableBatchedTransactions(ds, {
    poolSize: config.db.transitionPoolSize,
    acquireTimeoutMs: config.db.acquireTimeoutMs,
  });
  // A database that goes away: 503 service_unavailable + Retry-After, logged once (db/availability.ts).
  const availability = new DatabaseAvailability({ ds, logger });
  const isOutage = (e: unknown) => availability.classify(e) !== undefined;

  // The master key: unwrapped by the cloud KMS when a wrapping key is configured (ADR 0048)
  let masterKey: Buffer;
  try {
    masterKey = await loadMasterKey({ config, ds, logger, overrides: opts.kmsClients });
  } catch (e) {
    await ds.destroy();
    throw e;
  }
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
  const kmsProvider = await createKmsProvider({ config, ds, clock, masterKey, overrides: opts.kmsClients });
  const kms = kmsProvider.kms;
  await kms.currentKeyVersion('audit-signing');
  const audit = new AuditService({ ds, kms });
  const tenancy = new TenancyService({ ds, clock });
  const workflows = new WorkflowService({ ds });
  // scale-out (ADR 0014): on MySQL the relay has its own small pool, so a delivery burst never takes the
  // API's connections (and the reverse); SQLite has one writer, so it shares the one DataSource.
  const relayDs = config.databaseUrl
    ? await createDataSource(config, { poolSize: config.db.relayPoolSize, multipleStatements: true })
    : ds;
  if (relayDs !== ds) {
    await relayDs.initialize();
    guardDataSource(relayDs, config.db);
  }
  const metrics = new ServiceMetrics({ outbox: () => readOutboxBacklog(ds, clock) });
  // reader certificates of mdoc reader authentication (issue 26, ADR 0049); /readyz warns before they expire
  const readerCerts = new ReaderCertificates({ ds, sealer, hostedUrl: config.hostedUrl, clock });
  const ops = new OpsService({
    ds,
    metrics,
    metricsToken: config.metricsToken,
    warnings: () => readerCertWarnings(readerCerts, clock.now()),
  });
  const relay = new WebhookRelay({
    ds: relayDs,
    clock,
    logger,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    secrets: webhookSecrets,
    metrics,
    isOutage,
  });
  // queued events wake this node's relay (the outbox is the source of truth; the kick only saves latency)
  const kick = (offered?: Record<string, unknown>[], claimToken?: string) => relay.kick(offered, claimToken);
  // events a transition queues are claimed for this node's relay when it runs here (ADR 0071)
  const claimAtCommit = (events: number) => relay.claimAtCommit(events);
  const webhooks = new WebhookService({
    ds,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    secrets: webhookSecrets,
    onQueued: kick,
  });
  const sandboxIssuer = new SandboxIssuer({ ds, config, clock });
  const wallet = new ReferenceWallet({ ds, clock });
  const sandboxMdocIssuer = new SandboxMdocIssuer({ ds, clock, baseUrl: config.baseUrl });
  if (config.seedSandbox) {
    await sandboxIssuer.ensureSeeded();
    await sandboxMdocIssuer.ensureSeeded(); // IACA, signers, status lists, the personas' mdoc documents
  }
  const catalog = new CatalogService({ ds, clock });
  await catalog.ensureSeeded({
    sandboxIssuerIdentifier: sandboxIssuer.issuerId,
    sandboxEnabled: config.seedSandbox,
  });
  // ETSI trust lists (ADR 0036): configured from TRUST_LISTS_FILE at start (loaded by the worker), and by the CLI
  const trustLists = new TrustListService({
    ds,
    clock,
    logger,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
  });
  if (config.trustListsFile) await configureTrustLists(trustLists, config.trustListsFile);
  // verification outcomes for /metrics, counted by a decorator (app/verification-metrics.ts)
  const verifier = countingVerifier(
    new PresentationVerifier({
      trust: new TrustStore(ds),
      fetchStatusList: cachingStatusListFetcher(httpStatusListFetcher(), clock),
      mdoc: new MdocPresentationVerifier({
        trust: new MdocTrustStore(ds),
        fetchStatusList: cachingStatusListCwtFetcher(httpStatusListCwtFetcher(), clock),
      }),
    }),
    metrics,
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
    claimAtCommit,
  });
  // Signed DC API and cross-device requests (verifier certificate, per-request response encryption).
  if (config.appEnv !== 'production' && config.hostedUrl.startsWith('http://'))
    await allowInsecureWalletUrls();
  const verifierIdentity = new VerifierIdentityService({
    ds,
    hostedUrl: config.hostedUrl,
    sealer,
    clock,
    production: config.appEnv === 'production',
  });
  const registrationAnchors = loadRegistrationAnchors(config.registrationCertAnchorsFile);
  const registrationCerts = new RegistrationCertificates({
    ds,
    clock,
    anchors: registrationAnchors,
    signerFor: async (id, environment) => {
      const identity = await verifierIdentity.forBusiness({ id, environment });
      return { clientId: identity.clientId, leaf: identity.x5c[0] as string };
    },
  });
  const gwMetadata = new GoogleRpMetadata({ ds, clock });
  const walletTransports = new WalletTransports({
    ds,
    clock,
    hostedUrl: config.hostedUrl,
    identity: verifierIdentity,
    encryption: new ResponseEncryption(sealer),
    registrationCerts,
    readerCerts,
    verifierInfoProduction: config.verifierInfoProduction,
    gwMetadata,
  });
  const signedWallet = new SignedRequestWallet({
    wallet,
    clock,
    trustedRoots: () => verifierIdentity.trustedRoots(),
    registrarRoots: registrationAnchors,
    allowedOrigins: [new URL(config.hostedUrl).origin],
  });
  // The browser binding decides "this browser" for the signer's page and its receipts alike; the receipts'
  // access rule (48 h after the end, or closed by the signer) also bounds the page's document downloads. Built
  // in this order, neither needs the other: no cycle hidden in a closure (ADR 0057).
  const binding = await loadBrowserBinding(ds, clock, sealer);
  const mail = createMailSender(config);
  // The signer's record (receipt PDF, originals, emailed receipt, close access); modules/receipt.
  const receipts = new ReceiptService({
    ds,
    clock,
    config,
    logger,
    audit,
    workflows,
    documents,
    binding,
    mail,
  });
  const transport = new SessionTransport({
    ds,
    config,
    binding,
    clock,
    workflows,
    audit,
    verifier,
    documents,
    evidence,
    sandboxPersonas: config.seedSandbox ? (request) => wallet.personas(request) : undefined,
    wallets: walletTransports,
    onEventsQueued: kick,
    claimAtCommit,
    signerAccess: receipts,
  });
  const accounts = new AccountsService({ ds, clock, logger, tenancy, mail, dashboardUrl: config.baseUrl });

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
    sandboxMdocIssuer,
    wallet,
    catalog,
    walletTransports,
    verifierIdentity,
    registrationCerts,
    gwMetadata,

    readerCerts,
    signedWallet,
    ops,
    metrics,
    mail,
    accounts,
    receipts,
    cleanup,
    support: new SupportService({ ds }),
    trustLists,
  };
  const { routes, resolvers, pageReads } = declareApi(services);
  const { limiter, disconnect: disconnectRedis } = await createRateLimiter(config, clock, logger);
  const web = await buildHttpApp({
    config,
    clock,
    logger,
    routes,
    resolvers,
    pageReads,
    tenancy,
    accounts,
    ops,
    metrics,
    limiter,
    availability,
  });

  return {
    ...services,
    app: web.app,
    routes,
    ...nodeLifecycle({
      config,
      logger,
      workers: opts.workers !== false,
      tracing: tracing !== undefined,
      web,
      ops,
      metrics,
      availability,
      relay,
      sessions,
      cleanup,
      receipts,
      trustLists,
      shutdownGraceMs: opts.shutdownGraceMs ?? 10_000,
      release: [
        () => (relayDs !== ds ? relayDs.destroy() : undefined),
        () => kmsProvider.close(),
        disconnectRedis,
        () => ds.destroy(),
        () => tracing?.shutdown(),
      ],
    }),
  };
}
