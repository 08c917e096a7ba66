// Invitations (ADR 0011): the operator's and quickstart's owner invitations, a member's invitations (one-time
// link, exactly 24 h, resend never extends) and their acceptance, which signs the new user in (sign-in.service.ts).
import { IsNull } from 'typeorm';
import type { Ctx } from '../../common/context';
import { AppError } from '../../common/errors';
import { newId, randomToken, sha256Hex } from '../../common/ids';
import type { Role } from '../../common/roles';
import { atLeast } from '../../common/roles';
import { transactionWithRetry } from '../../db/data-source';
import { BusinessEntity } from '../tenancy/business.entity';
import { DashboardUserEntity, InvitationEntity, SignInLinkEntity } from './accounts.entities';
import {
  type AccountsDeps,
  AccountsPart,
  INVITATION_TTL_MS,
  type InvitationView,
  normEmail,
  parseRole,
  SIGN_IN_LINK_TTL_MS,
  type SignedIn,
} from './accounts.shared';
import type { SignInService } from './sign-in.service';

export class InvitationsService extends AccountsPart {
  constructor(
    deps: AccountsDeps,
    private readonly signIn: SignInService,
  ) {
    super(deps);
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
    await this.mailInvitation(email, link);
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

  private async mailInvitation(to: string, link: string): Promise<void> {
    // The email carries only an opaque one-time link (spec §1): nothing that identifies the business (no name,
    // no id), no inviter, no role. The page the link opens may say who invites (ADR 0048).
    await this.deps.mail.send({
      to,
      subject: 'Your dashboard invitation',
      text: `You have been invited to a dashboard. Open this link within 24 hours of the invitation:\n\n${link}\n\nIf you did not expect this, ignore this email.`,
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
    return {
      id: i.id,
      email: i.email,
      role: i.role,
      createdAt: i.createdAt,
      expiresAt: i.expiresAt,
      acceptedAt: i.acceptedAt,
      revokedAt: i.revokedAt,
      status,
    };
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
    await transactionWithRetry(this.deps.ds, async (m) => {
      await m.getRepository(InvitationEntity).insert(row);
      await this.audit(m, {
        businessId: me.businessId,
        actor: { kind: 'user', id: me.userId },
        action: 'invitation.create',
        target: row.id,
        detail: { role },
      });
    });
    await this.mailInvitation(email, this.invitationLink(token));
    return this.invitationView(row);
  }

  /** A fresh link (the old one dies) with the original deadline: resending never extends it. */
  async resendInvitation(ctx: Ctx, id: string): Promise<InvitationView> {
    const me = this.userOf(ctx);
    const token = randomToken(32);
    const now = this.now();
    const inv = await transactionWithRetry(this.deps.ds, async (m) => {
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
      return inv;
    });
    await this.mailInvitation(inv.email, this.invitationLink(token));
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

  /** Accepts an invitation: one guarded write (unused, unrevoked, unexpired), the user, a signed-in session. */
  /**
   * What the invitation page may say before it is accepted (issue 29): the business's name and the role, for a
   * pending, unexpired invitation; invitation_invalid otherwise. Reads only; the token stays usable.
   */
  async describeInvitation(token: unknown): Promise<{ business_name: string; role: string }> {
    if (typeof token !== 'string' || token.length < 16 || token.length > 200)
      throw new AppError('invitation_invalid');
    const inv = await this.deps.ds.getRepository(InvitationEntity).findOneBy({ tokenHash: sha256Hex(token) });
    if (!inv || inv.acceptedAt || inv.revokedAt || inv.expiresAt <= this.now())
      throw new AppError('invitation_invalid');
    const business = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: inv.businessId });
    if (!business) throw new AppError('invitation_invalid');
    return { business_name: business.name, role: inv.role };
  }

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
      return this.signIn.startSession(m, user, 'invitation', userAgent);
    });
  }
}
