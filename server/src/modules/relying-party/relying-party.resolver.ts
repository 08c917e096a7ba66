// Thin GraphQL operations of the business as the relying party over RelyingPartyService (ADR 0035).
import { Arg, Field, Ctx as GqlCtx, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AppError, isAppError } from '../../common/errors';
import type { GqlContext } from '../../graphql/context';
import { type AccessRule, Roles, RULES } from '../accounts/roles';
import type { RelyingPartyService } from './relying-party.service';

/** Who a wallet says is asking is the business's public identity: owners and admins only, in both environments. */
const ADMIN: AccessRule = { sandbox: 'admin', production: 'admin' };

@ObjectType('RelyingParty', { description: 'What wallets are shown about the business (this environment).' })
export class RelyingPartyGql {
  @Field(() => String, { nullable: true, description: 'Registered legal name.' }) legalName!: string | null;
  @Field(() => String, { nullable: true, description: 'Name a wallet shows; null: the business name.' })
  displayName!: string | null;
  @Field(() => String, { nullable: true, description: 'Contact email for wallet users.' })
  contactEmail!: string | null;
  @Field(() => String, { nullable: true, description: 'https:// URL of the privacy policy.' })
  privacyPolicyUrl!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Intended use a wallet shows (at most 300 characters).',
  })
  purpose!: string | null;
}

@InputType('RelyingPartyInput')
export class RelyingPartyInputGql {
  @Field(() => String, { nullable: true, description: '1-200 characters; null: not set.' }) legalName?:
    | string
    | null;
  @Field(() => String, { nullable: true, description: '1-80 characters; null: the business name.' })
  displayName?: string | null;
  @Field(() => String, { nullable: true, description: 'An email address; null: not set.' })
  contactEmail?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'An https:// URL (at most 512 characters); null: not set.',
  })
  privacyPolicyUrl?: string | null;
  @Field(() => String, { nullable: true, description: '1-300 characters; null: not set.' }) purpose?:
    | string
    | null;
}

export function createRelyingPartyResolver(service: RelyingPartyService) {
  @Resolver()
  class RelyingPartyResolver {
    @Roles(RULES.read)
    @Query(() => RelyingPartyGql, { description: 'The business as the relying party in this environment.' })
    async relyingParty(@GqlCtx() { ctx }: GqlContext): Promise<RelyingPartyGql> {
      return service.get(ctx);
    }

    @Roles(ADMIN)
    @Mutation(() => RelyingPartyGql, {
      description: 'Replaces what wallets are shown about the business in this environment (owner/admin).',
    })
    async setRelyingParty(
      @Arg('input', () => RelyingPartyInputGql) input: RelyingPartyInputGql,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<RelyingPartyGql> {
      try {
        return await service.set(ctx, { ...input });
      } catch (e) {
        if (isAppError(e) && e.param)
          throw new AppError(e.code, e.message, { param: `input.${e.param}`, cause: e, extra: e.extra });
        throw e;
      }
    }
  }
  return RelyingPartyResolver;
}
