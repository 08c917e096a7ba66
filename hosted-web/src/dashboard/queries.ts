// Every GraphQL document the dashboard sends, in one place, with the shape it reads back. When the generated
// types from schema/schema.graphql land (issue 10, shared part), these interfaces are replaced by them.
export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

export interface Member {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
}
export interface Invitation {
  id: string;
  email: string;
  role: Role;
  status: string;
  expiresAt: string;
}
export interface ApiKey {
  id: string;
  label: string;
  prefix: string;
  scopes: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export const TEAM = `query Team { me { id role } members { id email role createdAt } invitations { id email role status expiresAt } }`;
export type TeamData = { me: { id: string; role: Role }; members: Member[]; invitations: Invitation[] };

export const INVITE = `mutation Invite($email: String!, $role: Role!) { invite(email: $email, role: $role) { id } }`;
export const REVOKE_INVITATION = `mutation RevokeInvitation($id: ID!) { revokeInvitation(id: $id) { id } }`;
export const RESEND_INVITATION = `mutation ResendInvitation($id: ID!) { resendInvitation(id: $id) { id } }`;

export const API_KEYS = `query ApiKeys { apiKeys { id label prefix scopes createdAt lastUsedAt revokedAt } }`;
export type ApiKeysData = { apiKeys: ApiKey[] };

export const CREATE_API_KEY = `mutation CreateApiKey($label: String!) { createApiKey(label: $label) { key apiKey { id prefix } } }`;
export type CreateApiKeyData = { createApiKey: { key: string; apiKey: { id: string; prefix: string } } };

export const REVOKE_API_KEY = `mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`;

export interface WebhookDelivery {
  id: string;
  deliveryId: string;
  event: string;
  status: string;
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
}
export const WEBHOOKS = `query Webhooks { webhookEndpoint { id url createdAt previousSecretExpiresAt } webhookDeliveries(limit: 50) { id deliveryId event status attempts createdAt deliveredAt nextAttemptAt lastError } }`;
export type WebhooksData = {
  webhookEndpoint: {
    id: string;
    url: string;
    createdAt: string;
    previousSecretExpiresAt: string | null;
  } | null;
  webhookDeliveries: WebhookDelivery[];
};
export const CONFIGURE_WEBHOOK = `mutation ConfigureWebhook($url: String!) { configureWebhookEndpoint(url: $url) { id url secret } }`;
export type ConfigureWebhookData = { configureWebhookEndpoint: { id: string; url: string; secret: string } };
export const ROTATE_WEBHOOK_SECRET = `mutation RotateWebhookSecret { rotateWebhookSecret { secret previousSecretExpiresAt } }`;
export type RotateWebhookSecretData = {
  rotateWebhookSecret: { secret: string; previousSecretExpiresAt: string | null };
};
export const REDELIVER_WEBHOOK = `mutation RedeliverWebhook($id: ID!) { redeliverWebhook(id: $id) }`;

export interface CatalogRoute {
  id: string;
  formats: string[];
  wallet: { name: string };
  issuer: { name: string; country: string | null };
  sandbox: { available: boolean };
  production: { available: boolean };
}
export const CATALOG = `query Catalog { catalog { id formats wallet { name } issuer { name country } sandbox { available } production { available } } }`;
export type CatalogData = { catalog: CatalogRoute[] };

// Workflows (the workflows screen)
export type Primitive = 'identify' | 'age_verify' | 'sign' | 'attestation';
export interface WorkflowStep {
  primitive: Primitive;
  claims: string[] | null;
  threshold: number | null;
  documents: number | null;
  terms: string | null;
  gateAfter: boolean;
}
const STEP = 'primitive claims threshold documents terms gateAfter';
export interface WorkflowSummary {
  id: string;
  name: string;
  apiOnly: boolean;
  latestRevision: number;
  updatedAt: string;
}
export const WORKFLOWS = `query Workflows { workflows { id name apiOnly latestRevision updatedAt } }`;
export type WorkflowsData = { workflows: WorkflowSummary[] };
export const CREATE_WORKFLOW = `mutation CreateWorkflow($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`;
export type CreateWorkflowData = { createWorkflow: { id: string } };
export interface WorkflowRevision {
  revision: number;
  name: string;
  apiOnly: boolean;
  publishedAt: string;
  steps: WorkflowStep[];
}
export const WORKFLOW = `query Workflow($id: ID!) { workflow(id: $id) { id name apiOnly latestRevision updatedAt draftSteps { ${STEP} } } workflowRevisions(workflowId: $id) { revision name apiOnly publishedAt steps { ${STEP} } } }`;
export type WorkflowData = {
  workflow: WorkflowSummary & { draftSteps: WorkflowStep[] };
  workflowRevisions: WorkflowRevision[];
};
export const SET_WORKFLOW_STEPS = `mutation SetWorkflowSteps($workflowId: ID!, $steps: [WorkflowStepInput!]!, $apiOnly: Boolean) { setWorkflowSteps(workflowId: $workflowId, steps: $steps, apiOnly: $apiOnly) { id } }`;
export const PUBLISH_WORKFLOW = `mutation PublishWorkflow($workflowId: ID!) { publishWorkflow(workflowId: $workflowId) { revision } }`;
export type PublishWorkflowData = { publishWorkflow: { revision: number } };
