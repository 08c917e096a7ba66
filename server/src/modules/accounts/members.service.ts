// Members of a business (ADR 0011): users created by the operator, the member list, roles (never without an
// owner), removal, and the operator's account audit.
import { type EntityManager, IsNull } from 'typeorm';
import type { Ctx } from '../../common/context';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import type { Role } from '../../common/roles';
import { atLeast } from '../../common/roles';
import { transactionWithRetry } from '../../db/data-source';
import {
  AccountAuditEntity,
  DashboardSessionEntity,
  DashboardUserEntity,
  PasskeyEntity,
} from './accounts.entities';
import { AccountsPart, normEmail, parseRole, type UserView, userView } from './accounts.shared';

export class MembersService extends AccountsPart {
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
}
