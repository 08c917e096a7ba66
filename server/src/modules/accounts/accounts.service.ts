// Owns the people of a business and how they sign in (ADR 0011, 0012): dashboard users with a role,
// invitations (opaque one-time link, exactly 24 h, resend never extends), emailed sign-in links, passkeys,
// server-side cookie sessions (token hashed at rest, CSRF token derived from it), API key management, and the
// account audit trail. Every state change is one transaction: its guarded write plus its audit row.
import { createHmac } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { type DataSource, type EntityManager, IsNull, MoreThan } from 'typeorm';
import type { Clock } from '../../common/clock';
import type { Actor, Ctx } from '../../common/context';
import { safeEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { newId, randomToken, sha256Hex } from '../../common/ids';
import type { Logger } from '../../common/logger';
import type { Environment } from '../../config/config';
import { transactionWithRetry } from '../../db/data-source';
import { ApiKeyEntity } from '../tenancy/api-key.entity';
import { BusinessEntity } from '../tenancy/business.entity';
import type { TenancyService } from '../tenancy/tenancy.service';
import {
  AccountAuditEntity,
  DashboardSessionEntity,
  DashboardUserEntity,
  InvitationEntity,
  PasskeyEntity,
  ROLES,
  type Role,
  SignInLinkEntity,
  WebauthnChallengeEntity,
} from './accounts.entities';
import { type AccountAuditEntry, writeAccountAudit } from './audit';
import { API_KEY_SCOPES, type ApiKeyScope, atLeast } from './roles';

/** The part of the shared mail sender (modules/mail) this module uses. */
export interface AccountMailer {
  send(message: { to: string; subject: string; text: string; html?: string }): Promise<{ messageId: string }>;
}

export const INVITATION_TTL_MS = 24 * 60 * 60 * 1000;
/** Sign-in links one person can be sent per hour (the rest of the requests are answered 202, silently). */
export const SIGN_IN_LINKS_PER_HOUR = 5;
const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export interface SignedIn {
  /** The cookie value: returned once, stored only as its SHA-256. */
  token: string;
  /** Send back as X-CSRF-Token on every cookie-authenticated GraphQL request and unsafe /auth call. */
  csrfToken: string;
  sessionId: string;
  expiresAt: Date;
  user: UserView;
}

export interface UserView {
  id: string;
  email: string;
  role: Role;
  businessId: string;
  createdAt: Date;
}

export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  status: 'pending' | 'accepted' | 'revoked' | 'expired';
}

export interface SessionListItem {
  id: string;
  method: string;
  userAgent: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  current: boolean;
}

export interface ApiKeyView {
  id: string;
  prefix: string;
  label: string;
  environment: Environment;
  scopes: string[] | null;
  createdBy: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const normEmail = (raw: unknown): string => {
  const e = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!EMAIL_RE.test(e) || e.length > 320)
    throw new AppError('validation_failed', 'A valid email address is required.', { param: 'email' });
  return e;
};

const userView = (u: DashboardUserEntity): UserView => ({
  id: u.id,
  email: u.email,
  role: u.role,
  businessId: u.businessId,
  createdAt: u.createdAt,
});

/** The CSRF token of a session: derived from the cookie token, so nothing more is stored. */
export const csrfFor = (token: string): string =>
  createHmac('sha256', token).update('dashboard-csrf').digest('base64url');

export function parseRole(raw: unknown): Role {
  if (typeof raw === 'string' && (ROLES as readonly string[]).includes(raw)) return raw as Role;
  throw new AppError('validation_failed', `role must be one of ${ROLES.join(', ')}.`, { param: 'role' });
}

export class AccountsService {
  private readonly rpId: string;
  private readonly origin: string;

  constructor(
    private readonly deps: {
      ds: DataSource;
      clock: Clock;
      logger: Logger;
      tenancy: TenancyService;
      mail: AccountMailer;
      /** The dashboard origin: links point here and passkeys are bound to its host. */
      dashboardUrl: string;
    },
  ) {
    const u = new URL(deps.dashboardUrl);
    this.rpId = u.hostname;
    this.origin = u.origin;
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  /** Writes an account audit row in the caller's transaction. */
  async audit(m: EntityManager, e: AccountAuditEntry): Promise<void> {
    await writeAccountAudit(m, this.now(), e);
  }

  /** The dashboard user acting in ctx, or dashboard_user_required. */
  private userOf(ctx: Ctx): Extract<Actor, { kind: 'dashboard' }> & { role: Role } {
    const a = ctx.actor;
    if (a.kind !== 'dashboard' || !a.role) throw new AppError('dashboard_user_required');
    return a as Extract<Actor, { kind: 'dashboard' }> & { role: Role };
  }

  // ---------------------------------------------------------------- operator

  /** Operator: a new business and the invitation of its first owner (mailed; the link is returned too). */
  async createBusinessWithOwner(
    name: string,
    ownerEmail: string,
    operator: string,
  ): Promise<{ businessId: string; invitationId: string; link: string; expiresAt: Date }> {
    const email = normEmail(ownerEmail);
    if (!name.trim()) throw new AppError('validation_failed', 'name is required.', { param: 'name' });
    const token = randomToken(32);
    const now = this.now();
    const businessId = newId('biz');
    const invitationId = newId('inv');
    await transactionWithRetry(this.deps.ds, async (m) => {
      await m.getRepository(BusinessEntity).insert({ id: businessId, name: name.trim(), createdAt: now });
      await m
        .getRepository(InvitationEntity)
        .insert(this.invitationRow(invitationId, businessId, email, 'owner', token, `operator:${operator}`));
      await this.audit(m, {
        businessId,
        actor: { kind: 'operator', id: operator },
        action: 'business.create',
        target: businessId,
        detail: { name: name.trim(), owner_invitation: invitationId },
      });
    });
    const link = this.invitationLink(token);
    await this.mailInvitation(email, name.trim(), link);
    return { businessId, invitationId, link, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) };
  }

  /**
   * Development only (`pnpm start` on the seeded quickstart business): a one-time link for the person at the
   * terminal. Before the business has its owner it is an owner invitation (24 h; every earlier one still
   * pending for that address is revoked, so only the link printed last works); once the owner exists, a
   * sign-in link (15 min). The caller prints it; it is never mailed or logged.
   */
  async quickstartOwnerLink(
    businessId: string,
    ownerEmail: string,
  ): Promise<{ kind: 'invitation' | 'sign_in'; link: string; expiresAt: Date }> {
    const email = normEmail(ownerEmail);
    const token = randomToken(32);
    const now = this.now();
    return transactionWithRetry(this.deps.ds, async (m) => {
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ email });
      if (user && user.businessId !== businessId) throw new AppError('email_in_use');
      if (user) {
        const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS);
        await m.getRepository(SignInLinkEntity).insert({
          id: newId('sil'),
          userId: user.id,
          tokenHash: sha256Hex(token),
          createdAt: now,
          expiresAt,
          usedAt: null,
        });
        return {
          kind: 'sign_in' as const,
          link: `${this.origin}/dashboard/sign-in#token=${token}`,
          expiresAt,
        };
      }
      await m
        .getRepository(InvitationEntity)
        .update({ businessId, email, acceptedAt: IsNull(), revokedAt: IsNull() }, { revokedAt: now });
      const row = this.invitationRow(newId('inv'), businessId, email, 'owner', token, 'quickstart');
      await m.getRepository(InvitationEntity).insert(row);
      await this.audit(m, {
        businessId,
        actor: { kind: 'system', id: 'quickstart' },
        action: 'invitation.create',
        target: row.id,
        detail: { role: 'owner' },
      });
      return { kind: 'invitation' as const, link: this.invitationLink(token), expiresAt: row.expiresAt };
    });
  }

  /** Operator (and tests): a user with a role, without an invitation. Used to bootstrap and by harnesses. */
  async createUserDirect(businessId: string, email: string, role: Role, operator: string): Promise<UserView> {
    const e = normEmail(email);
    const u = Object.assign(new DashboardUserEntity(), {
      id: newId('usr'),
      businessId,
      email: e,
      role,
      createdAt: this.now(),
    });
    await transactionWithRetry(this.deps.ds, async (m) => {
      if (await m.getRepository(DashboardUserEntity).findOneBy({ email: e }))
        throw new AppError('email_in_use');
      await m.getRepository(DashboardUserEntity).insert(u);
      await this.audit(m, {
        businessId,
        actor: { kind: 'operator', id: operator },
        action: 'user.create',
        target: u.id,
        detail: { role },
      });
    });
    return userView(u);
  }

  /** Operator: records an operator action done through another service (trust, routes, KMS). */
  async recordOperatorAction(
    operator: string,
    action: string,
    target: string | null,
    detail?: Record<string, unknown>,
  ) {
    await transactionWithRetry(this.deps.ds, (m) =>
      this.audit(m, { businessId: null, actor: { kind: 'operator', id: operator }, action, target, detail }),
    );
  }

  async operatorAudit(limit = 50): Promise<AccountAuditEntity[]> {
    return this.deps.ds
      .getRepository(AccountAuditEntity)
      .find({ where: { actorKind: 'operator' }, order: { createdAt: 'DESC' }, take: limit });
  }

  // ---------------------------------------------------------------- invitations

  private invitationRow(
    id: string,
    businessId: string,
    email: string,
    role: Role,
    token: string,
    createdBy: string,
  ) {
    const now = this.now();
    return Object.assign(new InvitationEntity(), {
      id,
      businessId,
      email,
      role,
      tokenHash: sha256Hex(token),
      createdBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      sentAt: now,
      acceptedAt: null,
      acceptedUserId: null,
      revokedAt: null,
    });
  }

  private invitationLink(token: string): string {
    // The token rides in the fragment: it never reaches a server log or a Referer header.
    return `${this.origin}/dashboard/accept-invitation#token=${token}`;
  }

  private async mailInvitation(to: string, businessName: string, link: string): Promise<void> {
    // The email carries only the link (spec §1): no inviter name, no role, no business data beyond its name.
    await this.deps.mail.send({
      to,
      subject: `Your invitation to ${businessName}`,
      text: `You have been invited to a business dashboard. Open this link within 24 hours of the invitation:\n\n${link}\n\nIf you did not expect this, ignore this email.`,
    });
  }

  private invitationView(i: InvitationEntity): InvitationView {
    const status = i.acceptedAt
      ? 'accepted'
      : i.revokedAt
        ? 'revoked'
        : i.expiresAt.getTime() <= this.now().getTime()
          ? 'expired'
          : 'pending';
    return { id: i.id, email: i.email, role: i.role, createdAt: i.createdAt, expiresAt: i.expiresAt, status };
  }

  async invite(ctx: Ctx, rawEmail: string, rawRole: unknown): Promise<InvitationView> {
    const me = this.userOf(ctx);
    const role = parseRole(rawRole);
    const email = normEmail(rawEmail);
    // Nobody grants more than they hold; only an owner makes owners.
    if (!atLeast(me.role, role))
      throw new AppError('role_insufficient', `Only an ${role} or higher can invite an ${role}.`);
    const token = randomToken(32);
    const row = this.invitationRow(newId('inv'), me.businessId, email, role, token, me.userId);
    const business = await transactionWithRetry(this.deps.ds, async (m) => {
      await m.getRepository(InvitationEntity).insert(row);
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'invitation.create',
        target: row.id,
        detail: { role },
      });
      return m.getRepository(BusinessEntity).findOneByOrFail({ id: me.businessId });
    });
    await this.mailInvitation(email, business.name, this.invitationLink(token));
    return this.invitationView(row);
  }

  /** A fresh link (the old one dies) with the original deadline: resending never extends it. */
  async resendInvitation(ctx: Ctx, id: string): Promise<InvitationView> {
    const me = this.userOf(ctx);
    const token = randomToken(32);
    const now = this.now();
    const { inv, business } = await transactionWithRetry(this.deps.ds, async (m) => {
      const res = await m
        .createQueryBuilder()
        .update(InvitationEntity)
        .set({ tokenHash: sha256Hex(token), sentAt: now })
        .where(
          'id = :id AND business_id = :b AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now',
          { id, b: me.businessId, now },
        )
        .execute();
      const inv = await m.getRepository(InvitationEntity).findOneBy({ id, businessId: me.businessId });
      if (!inv) throw new AppError('not_found', 'No such invitation.');
      if (!res.affected)
        throw new AppError('invitation_invalid', 'This invitation was used, revoked or has expired.');
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'invitation.resend',
        target: id,
      });
      return { inv, business: await m.getRepository(BusinessEntity).findOneByOrFail({ id: me.businessId }) };
    });
    await this.mailInvitation(inv.email, business.name, this.invitationLink(token));
    return this.invitationView(inv);
  }

  async revokeInvitation(ctx: Ctx, id: string): Promise<InvitationView> {
    const me = this.userOf(ctx);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const res = await m
        .createQueryBuilder()
        .update(InvitationEntity)
        .set({ revokedAt: this.now() })
        .where('id = :id AND business_id = :b AND accepted_at IS NULL AND revoked_at IS NULL', {
          id,
          b: me.businessId,
        })
        .execute();
      const inv = await m.getRepository(InvitationEntity).findOneBy({ id, businessId: me.businessId });
      if (!inv) throw new AppError('not_found', 'No such invitation.');
      if (!res.affected)
        throw new AppError('invitation_invalid', 'This invitation was already used or revoked.');
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'invitation.revoke',
        target: id,
      });
      return this.invitationView(inv);
    });
  }

  async listInvitations(ctx: Ctx): Promise<InvitationView[]> {
    const me = this.userOf(ctx);
    const rows = await this.deps.ds
      .getRepository(InvitationEntity)
      .find({ where: { businessId: me.businessId }, order: { createdAt: 'DESC' } });
    return rows.map((r) => this.invitationView(r));
  }

  async listMembers(ctx: Ctx): Promise<UserView[]> {
    const me = this.userOf(ctx);
    const rows = await this.deps.ds
      .getRepository(DashboardUserEntity)
      .find({ where: { businessId: me.businessId }, order: { createdAt: 'ASC' } });
    return rows.map(userView);
  }

  /**
   * Changes a member's role. Nobody grants or touches a role above their own, and the last owner stays an
   * owner. Their sessions are revoked so the new role applies from a fresh sign-in (privilege change).
   */
  async setMemberRole(ctx: Ctx, userId: string, rawRole: unknown): Promise<UserView> {
    const me = this.userOf(ctx);
    const role = parseRole(rawRole);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const target = await m
        .getRepository(DashboardUserEntity)
        .findOneBy({ id: userId, businessId: me.businessId });
      if (!target) throw new AppError('not_found', 'No such member.');
      if (!atLeast(me.role, role) || !atLeast(me.role, target.role))
        throw new AppError('role_insufficient', 'You cannot change a role above your own.');
      if (target.role === 'owner' && role !== 'owner') await this.keepAnOwner(m, me.businessId);
      await m.getRepository(DashboardUserEntity).update({ id: target.id }, { role });
      await m
        .getRepository(DashboardSessionEntity)
        .update({ userId: target.id, revokedAt: IsNull() }, { revokedAt: this.now() });
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'member.role',
        target: target.id,
        detail: { from: target.role, to: role },
      });
      return userView({ ...target, role });
    });
  }

  /** Removes a member: the account, its passkeys and sessions go at once. */
  async removeMember(ctx: Ctx, userId: string): Promise<void> {
    const me = this.userOf(ctx);
    await transactionWithRetry(this.deps.ds, async (m) => {
      const target = await m
        .getRepository(DashboardUserEntity)
        .findOneBy({ id: userId, businessId: me.businessId });
      if (!target) throw new AppError('not_found', 'No such member.');
      if (!atLeast(me.role, target.role))
        throw new AppError('role_insufficient', 'You cannot remove a member above your own role.');
      if (target.role === 'owner') await this.keepAnOwner(m, me.businessId);
      await m
        .getRepository(DashboardSessionEntity)
        .update({ userId: target.id, revokedAt: IsNull() }, { revokedAt: this.now() });
      await m.getRepository(PasskeyEntity).delete({ userId: target.id });
      await m.getRepository(DashboardUserEntity).delete({ id: target.id });
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'member.remove',
        target: target.id,
        detail: { role: target.role },
      });
    });
  }

  /** Refuses to take away the last owner (read inside the caller's transaction). */
  private async keepAnOwner(m: EntityManager, businessId: string): Promise<void> {
    const owners = await m.getRepository(DashboardUserEntity).countBy({ businessId, role: 'owner' });
    if (owners <= 1)
      throw new AppError('validation_failed', 'A business keeps at least one owner.', { param: 'userId' });
  }

  async me(ctx: Ctx): Promise<UserView> {
    const me = this.userOf(ctx);
    const u = await this.deps.ds.getRepository(DashboardUserEntity).findOneBy({ id: me.userId });
    if (!u) throw new AppError('unauthenticated');
    return userView(u);
  }

  /** Accepts an invitation: one guarded write (unused, unrevoked, unexpired), the user, a signed-in session. */
  async acceptInvitation(token: unknown, userAgent?: string): Promise<SignedIn> {
    if (typeof token !== 'string' || token.length < 16 || token.length > 200)
      throw new AppError('invitation_invalid');
    const now = this.now();
    const hash = sha256Hex(token);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const inv = await m.getRepository(InvitationEntity).findOneBy({ tokenHash: hash });
      if (!inv) throw new AppError('invitation_invalid');
      const userId = newId('usr');
      const res = await m
        .createQueryBuilder()
        .update(InvitationEntity)
        .set({ acceptedAt: now, acceptedUserId: userId })
        .where(
          'id = :id AND token_hash = :h AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > :now',
          { id: inv.id, h: hash, now },
        )
        .execute();
      if (res.affected !== 1) throw new AppError('invitation_invalid');
      if (await m.getRepository(DashboardUserEntity).findOneBy({ email: inv.email }))
        throw new AppError('email_in_use');
      const user = Object.assign(new DashboardUserEntity(), {
        id: userId,
        businessId: inv.businessId,
        email: inv.email,
        role: inv.role,
        createdAt: now,
      });
      await m.getRepository(DashboardUserEntity).insert(user);
      await this.audit(m, {
        businessId: inv.businessId,
        actor: { kind: 'user', id: userId },
        action: 'invitation.accept',
        target: inv.id,
        detail: { role: inv.role },
      });
      return this.startSession(m, user, 'invitation', userAgent);
    });
  }

  // ---------------------------------------------------------------- sign-in by emailed link

  /**
   * Mails a one-time sign-in link when the address has an account. The answer never tells whether it has
   * (no account enumeration), so callers always answer 202.
   */
  async requestSignInLink(rawEmail: unknown): Promise<void> {
    const email = normEmail(rawEmail);
    const user = await this.deps.ds.getRepository(DashboardUserEntity).findOneBy({ email });
    if (!user) return;
    const token = randomToken(32);
    const now = this.now();
    // At most SIGN_IN_LINKS_PER_HOUR links per person and hour, counted in the database (every node sees the
    // same count): nobody can flood an inbox through this public route. The answer stays 202 either way.
    const recent = await this.deps.ds.getRepository(SignInLinkEntity).countBy({
      userId: user.id,
      createdAt: MoreThan(new Date(now.getTime() - 3600_000)),
    });
    if (recent >= SIGN_IN_LINKS_PER_HOUR) return;
    await this.deps.ds.getRepository(SignInLinkEntity).insert({
      id: newId('sil'),
      userId: user.id,
      tokenHash: sha256Hex(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS),
      usedAt: null,
    });
    // Not awaited: the 202 must take as long for an unknown address as for a known one (no account
    // enumeration by timing). A failed send is logged; the person asks again.
    this.deps.mail
      .send({
        to: email,
        subject: 'Your sign-in link',
        text: `Open this link within 15 minutes to sign in to the dashboard:\n\n${this.origin}/dashboard/sign-in#token=${token}\n\nIf you did not ask for it, ignore this email.`,
      })
      .catch((e: unknown) => this.deps.logger.warn('sign-in link not sent', { error: String(e) }));
  }

  async verifySignInLink(token: unknown, userAgent?: string): Promise<SignedIn> {
    if (typeof token !== 'string' || token.length < 16 || token.length > 200)
      throw new AppError('sign_in_link_invalid');
    const now = this.now();
    const hash = sha256Hex(token);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const link = await m.getRepository(SignInLinkEntity).findOneBy({ tokenHash: hash });
      if (!link) throw new AppError('sign_in_link_invalid');
      const res = await m
        .createQueryBuilder()
        .update(SignInLinkEntity)
        .set({ usedAt: now })
        .where('id = :id AND used_at IS NULL AND expires_at > :now', { id: link.id, now })
        .execute();
      if (res.affected !== 1) throw new AppError('sign_in_link_invalid');
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ id: link.userId });
      if (!user) throw new AppError('sign_in_link_invalid');
      return this.startSession(m, user, 'email_link', userAgent);
    });
  }

  // ---------------------------------------------------------------- cookie sessions

  private async startSession(
    m: EntityManager,
    user: DashboardUserEntity,
    method: string,
    userAgent: string | undefined,
  ): Promise<SignedIn> {
    const token = randomToken(32);
    const now = this.now();
    const row = Object.assign(new DashboardSessionEntity(), {
      id: newId('dss'),
      userId: user.id,
      businessId: user.businessId,
      tokenHash: sha256Hex(token),
      method,
      userAgent: userAgent ? userAgent.slice(0, 200) : null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      revokedAt: null,
    });
    await m.getRepository(DashboardSessionEntity).insert(row);
    await this.audit(m, {
      businessId: user.businessId,
      actor: { kind: 'user', id: user.id },
      action: 'session.start',
      target: row.id,
      detail: { method },
    });
    return {
      token,
      csrfToken: csrfFor(token),
      sessionId: row.id,
      expiresAt: row.expiresAt,
      user: userView(user),
    };
  }

  /** Test and operator helper: a signed-in session for an existing user (no mail round trip). */
  async signInDirect(userId: string, method = 'service'): Promise<SignedIn> {
    return transactionWithRetry(this.deps.ds, async (m) => {
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ id: userId });
      if (!user) throw new AppError('not_found', 'No such user.');
      return this.startSession(m, user, method, undefined);
    });
  }

  /**
   * Resolves a cookie token to its user and session; null when unknown, revoked, idle too long or past its
   * absolute end. Reads the database every time: a revoke or sign-out is effective at once on every node.
   */
  async resolveSession(
    token: string | undefined,
  ): Promise<{ user: DashboardUserEntity; session: DashboardSessionEntity } | null> {
    if (!token || token.length > 200) return null;
    const session = await this.deps.ds
      .getRepository(DashboardSessionEntity)
      .findOneBy({ tokenHash: sha256Hex(token) });
    if (!session || !safeEqual(session.tokenHash, sha256Hex(token))) return null;
    const now = this.now().getTime();
    if (
      session.revokedAt ||
      session.expiresAt.getTime() <= now ||
      session.lastSeenAt.getTime() + SESSION_IDLE_MS <= now
    )
      return null;
    const user = await this.deps.ds.getRepository(DashboardUserEntity).findOneBy({ id: session.userId });
    if (!user) return null;
    if (now - session.lastSeenAt.getTime() >= 60_000)
      await this.deps.ds
        .getRepository(DashboardSessionEntity)
        .update({ id: session.id, revokedAt: IsNull() }, { lastSeenAt: new Date(now) });
    return { user, session };
  }

  async signOut(token: string | undefined): Promise<void> {
    const found = await this.resolveSession(token);
    if (!found) return;
    await this.revokeSessionRow(
      found.session.businessId,
      found.user.id,
      found.session.id,
      'session.sign_out',
    );
  }

  private async revokeSessionRow(businessId: string, userId: string, sessionId: string, action: string) {
    await transactionWithRetry(this.deps.ds, async (m) => {
      const res = await m
        .getRepository(DashboardSessionEntity)
        .update({ id: sessionId, userId, revokedAt: IsNull() }, { revokedAt: this.now() });
      if (!res.affected) throw new AppError('not_found', 'No such session.');
      await this.audit(m, { businessId, actor: { kind: 'user', id: userId }, action, target: sessionId });
    });
  }

  async listMySessions(ctx: Ctx): Promise<SessionListItem[]> {
    const me = this.userOf(ctx);
    const now = this.now().getTime();
    const rows = await this.deps.ds
      .getRepository(DashboardSessionEntity)
      .find({ where: { userId: me.userId, revokedAt: IsNull() }, order: { createdAt: 'DESC' } });
    return rows
      .filter((s) => s.expiresAt.getTime() > now && s.lastSeenAt.getTime() + SESSION_IDLE_MS > now)
      .map((s) => ({
        id: s.id,
        method: s.method,
        userAgent: s.userAgent,
        createdAt: s.createdAt,
        lastSeenAt: s.lastSeenAt,
        expiresAt: s.expiresAt,
        current: s.id === me.sessionId,
      }));
  }

  async revokeMySession(ctx: Ctx, id: string): Promise<void> {
    const me = this.userOf(ctx);
    await this.revokeSessionRow(me.businessId, me.userId, id, 'session.revoke');
  }

  // ---------------------------------------------------------------- passkeys

  private async newChallenge(purpose: 'register' | 'authenticate', userId: string | null, challenge: string) {
    const now = this.now();
    const id = newId('wac');
    await this.deps.ds.getRepository(WebauthnChallengeEntity).insert({
      id,
      purpose,
      userId,
      challenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
      usedAt: null,
    });
    return id;
  }

  /** Consumes a challenge once (guarded write); passkey_invalid when unknown, used, expired or of another user. */
  private async useChallenge(
    m: EntityManager,
    id: unknown,
    purpose: string,
    userId: string | null,
  ): Promise<string> {
    if (typeof id !== 'string')
      throw new AppError('validation_failed', 'challenge_id is required.', { param: 'challenge_id' });
    const now = this.now();
    const row = await m.getRepository(WebauthnChallengeEntity).findOneBy({ id });
    if (!row || row.purpose !== purpose || row.userId !== userId) throw new AppError('passkey_invalid');
    const res = await m
      .createQueryBuilder()
      .update(WebauthnChallengeEntity)
      .set({ usedAt: now })
      .where('id = :id AND used_at IS NULL AND expires_at > :now', { id, now })
      .execute();
    if (res.affected !== 1) throw new AppError('passkey_invalid');
    return row.challenge;
  }

  async passkeyRegistrationOptions(ctx: Ctx) {
    const me = this.userOf(ctx);
    const user = await this.me(ctx);
    const existing = await this.deps.ds.getRepository(PasskeyEntity).findBy({ userId: me.userId });
    const options = await generateRegistrationOptions({
      rpName: 'Credential verification dashboard',
      rpID: this.rpId,
      userName: user.email,
      userID: new TextEncoder().encode(me.userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const challengeId = await this.newChallenge('register', me.userId, options.challenge);
    return { challengeId, options };
  }

  async passkeyRegister(ctx: Ctx, challengeId: unknown, response: unknown): Promise<{ id: string }> {
    const me = this.userOf(ctx);
    // The challenge is spent before verifying, in its own transaction: a failed attempt burns it too.
    const challenge = await transactionWithRetry(this.deps.ds, (m) =>
      this.useChallenge(m, challengeId, 'register', me.userId),
    );
    return transactionWithRetry(this.deps.ds, async (m) => {
      const verified = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        requireUserVerification: false,
      }).catch(() => ({ verified: false as const }));
      if (!verified.verified) throw new AppError('passkey_invalid');
      const cred = verified.registrationInfo.credential;
      const id = newId('pk');
      await m.getRepository(PasskeyEntity).insert({
        id,
        userId: me.userId,
        credentialId: cred.id,
        publicKey: Buffer.from(cred.publicKey).toString('base64url'),
        counter: cred.counter,
        transports: cred.transports?.join(',') ?? null,
        createdAt: this.now(),
        lastUsedAt: null,
      });
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'passkey.register',
        target: id,
      });
      return { id };
    });
  }

  /** Discoverable-credential sign-in: no email or user name is asked for. */
  async passkeyAuthenticationOptions() {
    const options = await generateAuthenticationOptions({ rpID: this.rpId, userVerification: 'preferred' });
    const challengeId = await this.newChallenge('authenticate', null, options.challenge);
    return { challengeId, options };
  }

  async passkeySignIn(challengeId: unknown, response: unknown, userAgent?: string): Promise<SignedIn> {
    const r = response as AuthenticationResponseJSON | undefined;
    if (!r || typeof r !== 'object' || typeof r.id !== 'string') throw new AppError('passkey_invalid');
    // The challenge is spent before verifying, in its own transaction: a failed attempt burns it too.
    const challenge = await transactionWithRetry(this.deps.ds, (m) =>
      this.useChallenge(m, challengeId, 'authenticate', null),
    );
    return transactionWithRetry(this.deps.ds, async (m) => {
      const pk = await m.getRepository(PasskeyEntity).findOneBy({ credentialId: r.id });
      if (!pk) throw new AppError('passkey_invalid');
      const verified = await verifyAuthenticationResponse({
        response: r,
        expectedChallenge: challenge,
        expectedOrigin: this.origin,
        expectedRPID: this.rpId,
        credential: {
          id: pk.credentialId,
          publicKey: new Uint8Array(Buffer.from(pk.publicKey, 'base64url')),
          counter: pk.counter,
          transports: pk.transports ? pk.transports.split(',') : undefined,
        },
        requireUserVerification: false,
      }).catch(() => ({ verified: false, authenticationInfo: undefined }));
      if (!verified.verified || !verified.authenticationInfo) throw new AppError('passkey_invalid');
      await m
        .getRepository(PasskeyEntity)
        .update({ id: pk.id }, { counter: verified.authenticationInfo.newCounter, lastUsedAt: this.now() });
      const user = await m.getRepository(DashboardUserEntity).findOneBy({ id: pk.userId });
      if (!user) throw new AppError('passkey_invalid');
      return this.startSession(m, user, 'passkey', userAgent);
    });
  }

  // ---------------------------------------------------------------- API keys

  private keyView(k: ApiKeyEntity): ApiKeyView {
    return {
      id: k.id,
      prefix: `sk_${k.environment}_${k.lookup}`,
      label: k.label,
      environment: k.environment,
      scopes: k.scopes ? k.scopes.split(',') : null,
      createdBy: k.createdBy,
      createdAt: k.createdAt,
      lastUsedAt: k.lastUsedAt,
      revokedAt: k.revokedAt,
    };
  }

  /** The environment's keys (revoked ones included, marked), newest first. */
  async listApiKeys(ctx: Ctx): Promise<ApiKeyView[]> {
    const me = this.userOf(ctx);
    const rows = await this.deps.ds.getRepository(ApiKeyEntity).find({
      where: { businessId: me.businessId, environment: me.environment },
      order: { createdAt: 'DESC' },
    });
    return rows.map((k) => this.keyView(k));
  }

  async createApiKey(
    ctx: Ctx,
    label: string,
    scopes: readonly string[] | null | undefined,
  ): Promise<{ key: string; apiKey: ApiKeyView }> {
    const me = this.userOf(ctx);
    const l = label.trim();
    if (!l || l.length > 200)
      throw new AppError('validation_failed', 'label must be 1 to 200 characters.', { param: 'label' });
    const bad = (scopes ?? []).filter((s) => !(API_KEY_SCOPES as readonly string[]).includes(s));
    if (bad.length)
      throw new AppError(
        'validation_failed',
        `Unknown scope(s): ${bad.join(', ')}. Known: ${API_KEY_SCOPES.join(', ')}.`,
        {
          param: 'scopes',
        },
      );
    return transactionWithRetry(this.deps.ds, async (m) => {
      const issued = await this.deps.tenancy.issueApiKey(me.businessId, me.environment, l, {
        scopes: scopes as ApiKeyScope[] | null | undefined,
        createdBy: me.userId,
        manager: m,
      });
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'api_key.create',
        target: issued.id,
        detail: { environment: me.environment, scopes: scopes ?? null },
      });
      const row = await m.getRepository(ApiKeyEntity).findOneByOrFail({ id: issued.id });
      return { key: issued.key, apiKey: this.keyView(row) };
    });
  }

  async revokeApiKey(ctx: Ctx, id: string): Promise<ApiKeyView> {
    const me = this.userOf(ctx);
    return transactionWithRetry(this.deps.ds, async (m) => {
      const res = await m
        .getRepository(ApiKeyEntity)
        .update(
          { id, businessId: me.businessId, environment: me.environment, revokedAt: IsNull() },
          { revokedAt: this.now() },
        );
      if (!res.affected) throw new AppError('not_found', 'No such active API key in this environment.');
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'api_key.revoke',
        target: id,
      });
      return this.keyView(await m.getRepository(ApiKeyEntity).findOneByOrFail({ id }));
    });
  }
}
