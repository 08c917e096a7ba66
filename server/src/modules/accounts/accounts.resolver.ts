// Thin GraphQL resolver over AccountsService: people, invitations, own sessions and API keys.
import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import {
  ApiKeyGql,
  ApiKeyScopeGql,
  BusinessGql,
  CreatedApiKeyGql,
  DashboardSessionGql,
  DashboardUserGql,
  InvitationGql,
  RoleGql,
} from './accounts.graphql';
import type { AccountsService } from './accounts.service';

export function createAccountsResolver(service: AccountsService) {
  @Resolver()
  class AccountsResolver {
    @Roles(RULES.self)
    @Query(() => DashboardUserGql, { description: 'The signed-in dashboard user.' })
    async me(@GqlCtx() { ctx }: GqlContext): Promise<DashboardUserGql> {
      return service.members.me(ctx);
    }

    @Roles(RULES.self)
    @Query(() => BusinessGql, { description: 'The business of the signed-in dashboard user.' })
    async business(@GqlCtx() { ctx }: GqlContext): Promise<BusinessGql> {
      return service.members.business(ctx);
    }

    @Roles(RULES.read)
    @Query(() => [DashboardUserGql], { description: 'The people of the business.' })
    async members(@GqlCtx() { ctx }: GqlContext): Promise<DashboardUserGql[]> {
      return service.members.listMembers(ctx);
    }

    @Roles(RULES.people)
    @Query(() => [InvitationGql], { description: 'Invitations of the business, newest first.' })
    async invitations(@GqlCtx() { ctx }: GqlContext): Promise<InvitationGql[]> {
      return service.invitations.listInvitations(ctx);
    }

    @Roles(RULES.people)
    @Mutation(() => InvitationGql, {
      description:
        'Invites a person: mails them an opaque one-time link valid exactly 24 h. The address is used to send the mail only.',
    })
    async invite(
      @Arg('email', () => String) email: string,
      @Arg('role', () => RoleGql) role: RoleGql,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<InvitationGql> {
      return service.invitations.invite(ctx, email, role);
    }

    @Roles(RULES.people)
    @Mutation(() => InvitationGql, {
      description: 'Mails a fresh link (the old one dies); the deadline stays.',
    })
    async resendInvitation(
      @Arg('id', () => ID) id: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<InvitationGql> {
      return service.invitations.resendInvitation(ctx, id);
    }

    @Roles(RULES.people)
    @Mutation(() => InvitationGql)
    async revokeInvitation(
      @Arg('id', () => ID) id: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<InvitationGql> {
      return service.invitations.revokeInvitation(ctx, id);
    }

    @Roles(RULES.people)
    @Mutation(() => DashboardUserGql, {
      description: "Changes a member's role (never above your own); their sessions end.",
    })
    async setMemberRole(
      @Arg('userId', () => ID) userId: string,
      @Arg('role', () => RoleGql) role: RoleGql,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<DashboardUserGql> {
      return service.members.setMemberRole(ctx, userId, role);
    }

    @Roles(RULES.people)
    @Mutation(() => Boolean, { description: 'Removes a member; their sessions and passkeys end at once.' })
    async removeMember(
      @Arg('userId', () => ID) userId: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<boolean> {
      await service.members.removeMember(ctx, userId);
      return true;
    }

    @Roles(RULES.self)
    @Query(() => [DashboardSessionGql], { description: "The signed-in user's active sessions." })
    async mySessions(@GqlCtx() { ctx }: GqlContext): Promise<DashboardSessionGql[]> {
      return service.signIn.listMySessions(ctx);
    }

    @Roles(RULES.self)
    @Mutation(() => Boolean, { description: 'Ends one of your sessions (at once, on every node).' })
    async revokeMySession(@Arg('id', () => ID) id: string, @GqlCtx() { ctx }: GqlContext): Promise<boolean> {
      await service.signIn.revokeMySession(ctx, id);
      return true;
    }

    @Roles(RULES.read)
    @Query(() => [ApiKeyGql], {
      description: 'API keys of this environment (prefix only), revoked ones included.',
    })
    async apiKeys(@GqlCtx() { ctx }: GqlContext): Promise<ApiKeyGql[]> {
      return service.apiKeys.listApiKeys(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => CreatedApiKeyGql, {
      description:
        'Creates an API key in this environment; omit scopes for a full key. The key is shown once.',
    })
    async createApiKey(
      @Arg('label', () => String) label: string,
      @Arg('scopes', () => [ApiKeyScopeGql], { nullable: true }) scopes: ApiKeyScopeGql[] | null | undefined,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<CreatedApiKeyGql> {
      return service.apiKeys.createApiKey(ctx, label, scopes ?? null);
    }

    @Roles(RULES.build)
    @Mutation(() => ApiKeyGql, { description: 'Revokes a key: refused (401) at once on every node.' })
    async revokeApiKey(@Arg('id', () => ID) id: string, @GqlCtx() { ctx }: GqlContext): Promise<ApiKeyGql> {
      return service.apiKeys.revokeApiKey(ctx, id);
    }
  }
  return AccountsResolver;
}
