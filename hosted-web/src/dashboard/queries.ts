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
