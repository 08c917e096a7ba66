// Every entity of the service, in one list for the DataSource and the schema check.

import { ReaderCertificateEntity } from '../modules/relying-party/reader-certificate.entity';
import { RouteSpeakingEntity } from '../modules/relying-party/route-speaking.entity';
import 'reflect-metadata';
import { ACCOUNT_ENTITIES } from '../modules/accounts/accounts.entities';
import { AuditRecordEntity } from '../modules/audit/audit-record.entity';
import { HostedPageSettingsEntity, LOGO_ENTITY } from '../modules/branding/branding.entity';
import {
  CatalogVersionEntity,
  CredentialIssuerEntity,
  CredentialRouteEntity,
  WalletEntity,
} from '../modules/credential-routes/catalog.entities';
import { DocumentEntity } from '../modules/document/document.entity';
import { StepEvidenceEntity } from '../modules/evidence/step-evidence.entity';
import { KmsKeyVersionEntity } from '../modules/kms/kms-key-version.entity';
import {
  ReceiptAccessEntity,
  ReceiptCodeEntity,
  ReceiptDeliveryEntity,
} from '../modules/receipt/receipt.entities';
import { VerifierChainEntity, VerifierKeyEntity } from '../modules/relying-party/access-certificate.entity';
import { GwRpMetadataEntity } from '../modules/relying-party/gw-rp-metadata.entity';
import { RegistrationCertificateEntity } from '../modules/relying-party/registration-certificate.entity';
import { RelyingPartyEntity } from '../modules/relying-party/relying-party.entity';
import { VerifierIdentityEntity } from '../modules/relying-party/verifier-identity.entity';
import { SandboxCredentialEntity } from '../modules/sandbox/sandbox-credential.entity';
import { SandboxKeyEntity } from '../modules/sandbox/sandbox-key.entity';
import { StatusListEntity } from '../modules/sandbox/status-list.entity';
import { ServiceSecretEntity } from '../modules/session/service-secret.entity';
import { SessionEntity } from '../modules/session/session.entity';
import { StepResultEntity } from '../modules/session/step-result.entity';
import { WalletRedirectEntity } from '../modules/signer/wallet-redirect.entity';
import { ApiKeyEntity } from '../modules/tenancy/api-key.entity';
import { BusinessEntity } from '../modules/tenancy/business.entity';
import { SessionEventEntity } from '../modules/timeline/session-event.entity';
import { TrustListEntity, TrustListVersionEntity } from '../modules/trustlist/trust-list.entity';
import { MdocTrustAnchorEntity } from '../modules/verification/mdoc/mdoc-trust-anchor.entity';
import { TrustAnchorEntity } from '../modules/verification/trust-anchor.entity';
import { TrustVersionEntity } from '../modules/verification/trust-version';
import { TrustedIssuerEntity } from '../modules/verification/trusted-issuer.entity';
import { WalletRequestEntity } from '../modules/verification/wallet-request.entity';
import { WebhookAttemptEntity } from '../modules/webhook/webhook-attempt.entity';
import { WebhookEndpointEntity } from '../modules/webhook/webhook-endpoint.entity';
import { WebhookEventEntity } from '../modules/webhook/webhook-event.entity';
import { WorkflowEntity } from '../modules/workflow/workflow.entity';
import { WorkflowRevisionEntity } from '../modules/workflow/workflow-revision.entity';

export const ENTITIES = [
  BusinessEntity,
  ApiKeyEntity,
  WebhookEndpointEntity,
  WebhookEventEntity,
  WebhookAttemptEntity,
  WorkflowEntity,
  WorkflowRevisionEntity,
  SessionEntity,
  StepResultEntity,
  WalletRequestEntity,
  VerifierIdentityEntity,
  VerifierKeyEntity,
  VerifierChainEntity,
  TrustedIssuerEntity,
  MdocTrustAnchorEntity,
  TrustAnchorEntity,
  TrustVersionEntity, // bumped with every trust change: the trust stamp's half (ADR 0063)
  TrustListEntity,
  TrustListVersionEntity,
  WalletEntity,
  CredentialIssuerEntity,
  CredentialRouteEntity,
  CatalogVersionEntity,
  SandboxKeyEntity,
  SandboxCredentialEntity,
  StatusListEntity,
  KmsKeyVersionEntity,
  AuditRecordEntity,
  DocumentEntity,
  StepEvidenceEntity,
  ReceiptAccessEntity,
  ReceiptCodeEntity,
  ReceiptDeliveryEntity,
  ServiceSecretEntity,
  ...ACCOUNT_ENTITIES, // accounts (issue 9)
  SessionEventEntity,
  HostedPageSettingsEntity, // branding and return_url (issue 10)
  RelyingPartyEntity, // the business as the relying party (issue 19, ADR 0035)
  RegistrationCertificateEntity, // imported registration certificates (issue 19, ADR 0040)
  GwRpMetadataEntity, // Google Wallet's gw_rp_metadata_bytes per signing certificate (issue 26, ADR 0050)
  ReaderCertificateEntity, // reader certificates for mdoc reader authentication (issue 26, ADR 0049)
  RouteSpeakingEntity, // speaking for a business per route and environment (issue 26, ADR 0053)
  WalletRedirectEntity, // the same-device redirect's single-use response codes (issue 26, ADR 0050)
];

/** The logo table's entity differs by driver only in its bytes column type (branding.entity.ts). */
export { LOGO_ENTITY };
