// Thin GraphQL operations of the business as the relying party over RelyingPartyService (ADR 0035).
import { Arg, Field, Ctx as GqlCtx, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AppError, isAppError } from '../../common/errors';
import { type AccessRule, Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
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

/** Where the name a wallet shows comes from (ADR 0052); `name` is what it shows, when known. */
export interface WalletNaming {
  source: 'registrar' | 'imported' | 'none';
  name: string | null;
}

@ObjectType('RelyingPartyWallets', {
  description: 'Whether wallets are shown the relying-party data of this environment, and by what name.',
})
export class RelyingPartyWalletsGql {
  @Field(() => String, {
    description:
      'registrar: each request carries a registration certificate made from these details (a save takes effect on the next request); imported: an operator-imported certificate is carried instead (its name stays until a new one is imported); none: requests carry none, so wallets show only the service host.',
  })
  source!: WalletNaming['source'];
  @Field(() => String, { nullable: true, description: 'The name a wallet shows; null for none.' })
  walletName!: string | null;
  @Field(() => String, {
    description: 'The name the hosted page shows (relying-party display name, else branding, else business).',
  })
  pageName!: string;
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

export function createRelyingPartyResolver(
  service: RelyingPartyService,
  walletNaming: (businessId: string, environment: 'sandbox' | 'production') => Promise<WalletNaming>,
) {
  @Resolver()
  class RelyingPartyResolver {
    @Roles(RULES.read)
    @Query(() => RelyingPartyWalletsGql, {
      description: 'Whether a saved relying party reaches wallets in this environment, and the names shown.',
    })
    async relyingPartyWallets(@GqlCtx() { ctx }: GqlContext): Promise<RelyingPartyWalletsGql> {
      const { businessId, environment, pageName } = await service.publicName(ctx);
      const w = await walletNaming(businessId, environment);
      return {
        source: w.source,
        walletName: w.source === 'registrar' ? pageName : w.name,
        pageName,
      };
    }

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
