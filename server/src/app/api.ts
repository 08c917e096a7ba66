// Every REST route (with its auth decision; /v1 routes with their contract and scope), every webhook event
// payload and every GraphQL resolver, declared once over the services.
import type { NonEmptyArray } from 'type-graphql';
import { RouteRegistry } from '../common/http';
import { createAccountsResolver } from '../modules/accounts/accounts.resolver';
import { registerAccountRoutes } from '../modules/accounts/accounts.rest';
import { createAuditResolver } from '../modules/audit/audit.resolver';
import { registerAuditRoutes } from '../modules/audit/audit.rest';
import { createBrandingResolver } from '../modules/branding/branding.resolver';
import { registerBrandingRoutes } from '../modules/branding/branding.rest';
import { BrandingService } from '../modules/branding/branding.service';
import { createCatalogResolver } from '../modules/catalog/catalog.resolver';
import { registerCatalogRoutes } from '../modules/catalog/catalog.rest';
import { registerErrorReferenceRoutes } from '../modules/errors/error-reference.rest';
import { registerDevMailRoutes } from '../modules/mail/dev-mail.rest';
import { registerOpsRoutes } from '../modules/ops/ops.rest';
import {
  createBusinessOriginalsResolver,
  registerBusinessOriginalRoutes,
} from '../modules/receipt/receipt.business';
import { createReceiptResolver } from '../modules/receipt/receipt.resolver';
import { registerReceiptRoutes } from '../modules/receipt/receipt.rest';
import { presentationOf } from '../modules/receipt/receipt.words';
import { READER_CERT_WARN_DAYS } from '../modules/relying-party/reader-certificates';
import { createReaderCertificatesResolver } from '../modules/relying-party/reader-certificates.resolver';
import { createRelyingPartyResolver } from '../modules/relying-party/relying-party.resolver';
import { RelyingPartyService } from '../modules/relying-party/relying-party.service';
import { registerSandboxRoutes } from '../modules/sandbox/sandbox.rest';
import { registerSandboxWalletConsentRoutes } from '../modules/sandbox/sandbox-wallet-consent';
import { registerSandboxCrossDeviceRoute } from '../modules/sandbox/signed-request-wallet';
import { createSessionResolver } from '../modules/session/session.resolver';
import { registerSessionRoutes } from '../modules/session/session.rest';
import { SignerPageReads } from '../modules/signer/signer.page-reads';
import { createSignerResolver } from '../modules/signer/signer.resolver';
import { registerSignerRoutes } from '../modules/signer/signer.rest';
import type { SignerViewDeps } from '../modules/signer/signer.view';
import { registerWalletRoutes } from '../modules/signer/signer.wallet-routes';
import { WalletRedirects } from '../modules/signer/wallet-redirect';
import { createSupportResolver } from '../modules/support/support.resolver';
import { registerDevReceiver } from '../modules/webhook/dev-receiver';
import { registerWebhookEvents } from '../modules/webhook/webhook.contract';
import { createWebhookResolver } from '../modules/webhook/webhook.resolver';
import { createWorkflowResolver } from '../modules/workflow/workflow.resolver';
import { walletNamingOf } from './relying-party-wallets';
import type { ApiServices } from './service-types';

/**
 * Declares every REST route (with its auth decision) and every GraphQL resolver, once. createService mounts
 * them; the contract generator (tools/generate-schema.ts) calls this with hollow stand-ins, because
 * registration only keeps references to the services and calls them per request. Add new routes here.
 */
export function declareApi(s: ApiServices): {
  routes: RouteRegistry;
  // biome-ignore lint/complexity/noBannedTypes: TypeGraphQL takes resolver classes as Function values
  resolvers: NonEmptyArray<Function>;
  /** The signer page's compiled reads; app/graphql.ts gives them the schema and answers /graphql with them. */
  pageReads: SignerPageReads;
} {
  const routes = new RouteRegistry();
  // branding and return_url (issue 10): a stateless service over the data source; changes go to account_audit
  const branding = new BrandingService({ ds: s.ds, audit: (m, e) => s.accounts.members.audit(m, e) });
  const relyingParty = new RelyingPartyService({ ds: s.ds, audit: (m, e) => s.accounts.members.audit(m, e) });
  registerSessionRoutes(routes, s.sessions, s.tenancy);
  // the same-device redirect after a direct_post.jwt answer, bound to the session's browser (ADR 0050)
  const redirects = new WalletRedirects({
    ds: s.ds,
    clock: s.clock,
    hostedUrl: s.config.hostedUrl,
    transport: s.transport,
  });
  // the page's fixed reads, compiled: on /graphql before Apollo, and as the open's answer (ADR 0062)
  const signerView: SignerViewDeps = {
    ds: s.ds,
    transport: s.transport,
    workflows: s.workflows,
    documents: s.documents,
    sandboxPersonas: s.config.seedSandbox ? (request) => s.wallet.personas(request) : undefined,
  };
  const pageReads = new SignerPageReads(signerView);
  // every /t route, in one file, on the pipeline (ADR 0056); the receipt's downloads answered by receipts
  registerSignerRoutes(routes, {
    pageReads,
    transport: s.transport,
    redirects,
    receipts: {
      pdf: (id, cookie, lang, tz) => s.receipts.pdf(id, cookie, presentationOf(lang, tz)),
      original: (id, cookie, position) => s.receipts.original(id, cookie, position),
    },
  });
  registerWalletRoutes(routes, { transport: s.transport, wallets: s.walletTransports, redirects });
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
  registerBusinessOriginalRoutes(routes, s.receipts);
  registerBrandingRoutes(routes, branding);
  registerWebhookEvents(routes);
  if (s.config.seedSandbox) {
    registerSandboxRoutes(routes, {
      issuer: s.sandboxIssuer,
      mdocIssuer: s.sandboxMdocIssuer,
      wallet: s.wallet,
    });
    registerSandboxCrossDeviceRoute(routes, s.signedWallet);
    registerSandboxWalletConsentRoutes(routes, s.signedWallet);
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
    createSignerResolver(signerView),
    createSupportResolver(s.support),
    createBusinessOriginalsResolver(s.receipts),
    createAuditResolver(s.audit),
    createBrandingResolver(branding),
    createRelyingPartyResolver(relyingParty, walletNamingOf(s)),
    createReaderCertificatesResolver({ list: () => s.readerCerts.list() }, READER_CERT_WARN_DAYS),
  ];
  return { routes, resolvers, pageReads };
}
