// Ordered list of migrations. Add new ones at the end; never edit a released one.
import { Initial1763800000000 } from './1763800000000-initial';
import { DocumentsAndEvidence1763900000007 } from './1763900000007-documents-and-evidence';
import { CredentialCatalog1763900000008 } from './1763900000008-credential-catalog';
import { MdocTrustAnchor1763900000009 } from './1763900000009-mdoc-trust-anchor';
import { WalletTransports1763900000010 } from './1763900000010-wallet-transports';
import { Boundaries1764000000200 } from './1764000000200-boundaries';
import { Receipts1764000000300 } from './1764000000300-receipts';
import { Accounts1764000000400 } from './1764000000400-accounts';
import { WebhookOpsAndSupport1764000000500 } from './1764000000500-webhook-ops-and-support';
import { OutboxLease1764000000600 } from './1764000000600-outbox-lease';
import { SessionStepExpiryIndex1764000000700 } from './1764000000700-session-step-expiry-index';
import { ReturnUrl1764000001000 } from './1764000001000-return-url';
import { BrandingLogo1764400000000 } from './1764400000000-branding-logo';
import { IdempotencyKeyOnSession1764500000000 } from './1764500000000-idempotency-key-on-session';
import { TrustedIssuerKeyIndex1764600000000 } from './1764600000000-trusted-issuer-key-index';
import { CatalogVersion1764700000000 } from './1764700000000-catalog-version';
import { ReceiptDeliveryLanguage1764870000000 } from './1764870000000-receipt-delivery-language';
import { VerifierKeys1765100000000 } from './1765100000000-verifier-keys';
import { RouteTrustAndTrustLists1765200000000 } from './1765200000000-route-trust-and-trust-lists';
import { RelyingParty1765800000000 } from './1765800000000-relying-party';
import { WorkflowIntendedUse1766000000000 } from './1766000000000-workflow-intended-use';
import { RegistrationCertificates1766100000000 } from './1766100000000-registration-certificates';
import { AnchorHolderKey1766246000000 } from './1766246000000-anchor-holder-key';
import { ReaderCertificates1766490000000 } from './1766490000000-reader-certificates';
import { RouteX5cLeafOnly1766500000000 } from './1766500000000-route-x5c-leaf-only';
import { GwRpMetadata1766500000001 } from './1766500000001-gw-rp-metadata';
import { WalletRedirect1766600000000 } from './1766600000000-wallet-redirect';
import { RouteSpeaking1766700000000 } from './1766700000000-route-speaking';
import { RouteCapabilitySet1766800000000 } from './1766800000000-route-capability-set';
import { TrustVersion1766900000000 } from './1766900000000-trust-version';
import { TimelineFromRows1767000000000 } from './1767000000000-timeline-from-rows';

export const MIGRATIONS = [
  Initial1763800000000,
  CredentialCatalog1763900000008,
  MdocTrustAnchor1763900000009,
  DocumentsAndEvidence1763900000007,
  WalletTransports1763900000010,
  Boundaries1764000000200,
  Receipts1764000000300,
  Accounts1764000000400, // accounts (issue 9)
  WebhookOpsAndSupport1764000000500,
  // scale-out (ADR 0014)
  OutboxLease1764000000600,
  // perf (issue 11): the sweeper's second index range scan
  SessionStepExpiryIndex1764000000700,
  // branding and return_url (issue 10, ADR 0019)
  ReturnUrl1764000001000,
  BrandingLogo1764400000000, // branding logo (issue 10, ADR 0019)
  // perf (issue 11): the Idempotency-Key reservation on the session row (ADR 0024)
  IdempotencyKeyOnSession1764500000000,
  // perf (issue 11): the trust store's current-key read without a sort (ADR 0021, round 3)
  TrustedIssuerKeyIndex1764600000000,
  // perf (issue 11): the catalog's version, checked by the one-statement create instead of the routes (ADR 0025)
  CatalogVersion1764700000000,
  // receipts (issue 17): the emailed receipt's language and time zone, kept for the worker's retry
  ReceiptDeliveryLanguage1764870000000,
  // the verifier's identity (issue 19, ADR 0034): signing keys and certificate chains
  VerifierKeys1765100000000,
  // trust (issue 19, ADR 0036): issuer trust per route, ETSI trust lists and their versions
  RouteTrustAndTrustLists1765200000000,
  // the business as the relying party (issue 19, ADR 0035)
  RelyingParty1765800000000,
  // the intended use per workflow (issue 19, ADR 0042)
  WorkflowIntendedUse1766000000000,
  // registration certificates imported per business (issue 19, ADR 0040)
  RegistrationCertificates1766100000000,
  // holder keys out of results: the first step's key on the session row while it runs (issue 28, ADR 0046)
  AnchorHolderKey1766246000000,
  // reader certificates for mdoc reader authentication (issue 26, ADR 0049)
  ReaderCertificates1766490000000,
  // only the leaf in a signed request's x5c, per route (issue 26, ADR 0050)
  RouteX5cLeafOnly1766500000000,
  // Google Wallet's gw_rp_metadata_bytes per signing certificate (issue 26, ADR 0050)
  GwRpMetadata1766500000001,
  // the same-device redirect's single-use response codes (issue 26, ADR 0050)
  WalletRedirect1766600000000,
  // how the service speaks for a business per route and environment (issue 26, ADR 0053)
  RouteSpeaking1766700000000,
  // a route's capabilities as one capability set, from the primitive registry (issue 30, ADR 0054)
  RouteCapabilitySet1766800000000,
  // the trust version: the stamp that lets a route's trust be cached per instance (issue 27, ADR 0063)
  TrustVersion1766900000000,
  // Start and a wallet request write only their own rows; the timeline reads its entries from them (ADR 0074)
  TimelineFromRows1767000000000,
];
