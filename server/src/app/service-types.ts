// The shapes createService() builds and returns (service.ts); app/* and tools read them from here so that
// nothing under app/ imports the composition root.

import type express from 'express';
import type { DataSource } from 'typeorm';
import type { Clock } from '../common/clock';
import type { RouteRegistry } from '../common/http';
import type { Logger } from '../common/logger';
import type { Config } from '../config/config';
import type { AccountsService } from '../modules/accounts/accounts.service';
import type { AuditService } from '../modules/audit/audit.service';
import type { CatalogService } from '../modules/catalog/catalog.service';
import type { TransientUploadCleanup } from '../modules/document/cleanup';
import type { DocumentService } from '../modules/document/document.service';
import type { EvidenceService } from '../modules/evidence/evidence.service';
import type { KmsClientOverrides } from '../modules/kms/kms.factory';
import type { MailSender } from '../modules/mail/mail';
import type { ServiceMetrics } from '../modules/ops/metrics';
import type { OpsService } from '../modules/ops/ops.service';
import type { ReceiptService } from '../modules/receipt/receipt.service';
import type { GoogleRpMetadata } from '../modules/relying-party/gw-rp-metadata';
import type { ReaderCertificates } from '../modules/relying-party/reader-certificates';
import type { RegistrationCertificates } from '../modules/relying-party/registration-certificates';
import type { VerifierIdentityService } from '../modules/relying-party/verifier-identity';
import type { SandboxMdocIssuer } from '../modules/sandbox/mdoc/mdoc-issuer';
import type { ReferenceWallet } from '../modules/sandbox/reference-wallet';
import type { SandboxIssuer } from '../modules/sandbox/sandbox-issuer';
import type { SignedRequestWallet } from '../modules/sandbox/signed-request-wallet';
import type { SessionService } from '../modules/session/session.service';
import type { SessionTransport } from '../modules/signer/signer.transport';
import type { WalletTransports } from '../modules/signer/signer.wallet-transports';
import type { SupportService } from '../modules/support/support.service';
import type { TenancyService } from '../modules/tenancy/tenancy.service';
import type { TrustListService } from '../modules/trustlist/trust-list.service';
import type { WebhookSecretBox } from '../modules/webhook/secret-box';
import type { WebhookRelay } from '../modules/webhook/webhook.relay';
import type { WebhookService } from '../modules/webhook/webhook.service';
import type { WorkflowService } from '../modules/workflow/workflow.service';

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
  /** The sandbox mdoc issuer (its status lists are served under /sandbox). */
  sandboxMdocIssuer: SandboxMdocIssuer;
  wallet: ReferenceWallet;
  catalog: CatalogService;
  /** Signed DC API and cross-device wallet requests (signer.wallet-routes.ts). */
  walletTransports: WalletTransports;
  /** The verifier's request-signing identity and its access certificates (ADR 0034). */
  verifierIdentity: VerifierIdentityService;
  /** Registration certificates the operator imports per business (ADR 0040). */
  registrationCerts: RegistrationCertificates;
  /** Google Wallet's gw_rp_metadata_bytes the operator imports per signing leaf (ADR 0050). */
  gwMetadata: GoogleRpMetadata;
  /** Reader certificates of mdoc reader authentication (ADR 0049). */
  readerCerts: ReaderCertificates;
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
  /** ETSI trust lists as a source of issuer trust (operator CLI; worker refresh; ADR 0036). */
  trustLists: TrustListService;
  /** Listens on config.host:config.port (0 = any free port); resolves to the bound URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** The services the HTTP surfaces are declared over. */
export type ApiServices = Omit<Service, 'app' | 'routes' | 'listen' | 'close' | 'sweep'>;

/**
 * Declares every REST route (with its auth decision) and every GraphQL resolver, once. createService mounts
 * them; the contract generator (tools/generate-schema.ts) calls this with hollow stand-ins, because
 * registration only keeps references to the services and calls them per request. Add new routes here.
 */
