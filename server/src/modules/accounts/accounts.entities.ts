// Tables of the accounts module (migration 1764000000400). Secrets are stored as SHA-256 hex only.
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Role } from '../../common/roles';
import { idCol, int, str, text, time } from '../../db/columns';

/** A person of a business. One account per email address (ADR 0011). */
@Entity('dashboard_user')
@Index('IDX_dashboard_user_email', ['email'], { unique: true })
@Index('IDX_dashboard_user_business', ['businessId'])
export class DashboardUserEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(320), name: 'email' }) email!: string;
  @Column({ ...str(16), name: 'role' }) role!: Role;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}

/** A server-side sign-in session; the cookie carries the token, the row only its hash. */
@Entity('dashboard_session')
@Index('IDX_dashboard_session_token', ['tokenHash'], { unique: true })
@Index('IDX_dashboard_session_user', ['userId'])
export class DashboardSessionEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'user_id' }) userId!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(64), name: 'token_hash' }) tokenHash!: string;
  @Column({ ...str(16), name: 'method' }) method!: string;
  @Column({ ...str(200, true), name: 'user_agent' }) userAgent!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'last_seen_at' }) lastSeenAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(true), name: 'revoked_at' }) revokedAt!: Date | null;
}

@Entity('sign_in_link')
@Index('IDX_sign_in_link_token', ['tokenHash'], { unique: true })
export class SignInLinkEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'user_id' }) userId!: string;
  @Column({ ...str(64), name: 'token_hash' }) tokenHash!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(true), name: 'used_at' }) usedAt!: Date | null;
}

@Entity('passkey')
@Index('IDX_passkey_credential', ['credentialId'], { unique: true })
@Index('IDX_passkey_user', ['userId'])
export class PasskeyEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'user_id' }) userId!: string;
  /** base64url credential id. */
  @Column({ ...str(255), name: 'credential_id' }) credentialId!: string;
  /** base64url COSE public key. */
  @Column({ ...text(), name: 'public_key' }) publicKey!: string;
  @Column({ ...int(), name: 'counter' }) counter!: number;
  @Column({ ...str(200, true), name: 'transports' }) transports!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(true), name: 'last_used_at' }) lastUsedAt!: Date | null;
}

@Entity('webauthn_challenge')
export class WebauthnChallengeEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(16), name: 'purpose' }) purpose!: 'register' | 'authenticate';
  @Column({ ...str(40, true), name: 'user_id' }) userId!: string | null;
  @Column({ ...str(128), name: 'challenge' }) challenge!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(true), name: 'used_at' }) usedAt!: Date | null;
}

@Entity('invitation')
@Index('IDX_invitation_token', ['tokenHash'], { unique: true })
@Index('IDX_invitation_business', ['businessId'])
export class InvitationEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...idCol(), name: 'business_id' }) businessId!: string;
  @Column({ ...str(320), name: 'email' }) email!: string;
  @Column({ ...str(16), name: 'role' }) role!: Role;
  @Column({ ...str(64), name: 'token_hash' }) tokenHash!: string;
  /** A user id, or `operator:<name>` for the first owner's invitation. */
  @Column({ ...idCol(), name: 'created_by' }) createdBy!: string;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
  /** created_at + 24 h, fixed: resending never moves it. */
  @Column({ ...time(), name: 'expires_at' }) expiresAt!: Date;
  @Column({ ...time(), name: 'sent_at' }) sentAt!: Date;
  @Column({ ...time(true), name: 'accepted_at' }) acceptedAt!: Date | null;
  @Column({ ...str(40, true), name: 'accepted_user_id' }) acceptedUserId!: string | null;
  @Column({ ...time(true), name: 'revoked_at' }) revokedAt!: Date | null;
}

/** Who changed people, keys, sessions, webhooks or trust: dashboard users, operators (actor_kind 'operator'), API keys. */
@Entity('account_audit')
@Index('IDX_account_audit_business', ['businessId'])
@Index('IDX_account_audit_actor', ['actorKind'])
export class AccountAuditEntity {
  @PrimaryColumn(idCol()) id!: string;
  @Column({ ...str(40, true), name: 'business_id' }) businessId!: string | null;
  @Column({ ...str(16), name: 'actor_kind' }) actorKind!: 'user' | 'operator' | 'system' | 'api_key';
  @Column({ ...str(80), name: 'actor_id' }) actorId!: string;
  @Column({ ...str(64), name: 'action' }) action!: string;
  @Column({ ...str(120, true), name: 'target' }) target!: string | null;
  @Column({ ...text(true), name: 'detail' }) detail!: string | null;
  @Column({ ...time(), name: 'created_at' }) createdAt!: Date;
}

export const ACCOUNT_ENTITIES = [
  DashboardUserEntity,
  DashboardSessionEntity,
  SignInLinkEntity,
  PasskeyEntity,
  WebauthnChallengeEntity,
  InvitationEntity,
  AccountAuditEntity,
];
