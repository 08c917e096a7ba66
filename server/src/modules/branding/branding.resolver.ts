// Thin GraphQL operations of the return_url origins over BrandingService (ADR 0019).
import { Arg, Field, Ctx as GqlCtx, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AppError, isAppError } from '../../common/errors';
import type { GqlContext } from '../../graphql/context';
import { Roles, RULES } from '../accounts/roles';
import type { BrandingService } from './branding.service';

@ObjectType('Branding', { description: 'How the hosted page presents the business in this environment.' })
export class BrandingGql {
  @Field(() => String, { nullable: true, description: 'Shown instead of the business name; null: the name.' })
  displayName!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Accent colour #rrggbb (at least 4.5:1 against white); null: the default.',
  })
  accentColor!: string | null;
}

@InputType('BrandingInput')
export class BrandingInputGql {
  @Field(() => String, { nullable: true, description: '1-80 characters; null or absent: the business name.' })
  displayName?: string | null;
  @Field(() => String, {
    nullable: true,
    description: '#rrggbb with at least 4.5:1 contrast against white, else branding_contrast_insufficient.',
  })
  accentColor?: string | null;
}

/** Names the GraphQL argument at fault (`input.displayName`). */
async function gqlParams<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isAppError(e) && e.param && !e.param.startsWith('input.'))
      throw new AppError(e.code, e.message, { param: `input.${e.param}`, cause: e, extra: e.extra });
    throw e;
  }
}

export function createBrandingResolver(service: BrandingService) {
  @Resolver()
  class BrandingResolver {
    @Roles(RULES.read)
    @Query(() => [String], {
      description: 'The origins a session return_url may use in this environment (normalised, sorted).',
    })
    async returnOrigins(@GqlCtx() { ctx }: GqlContext): Promise<string[]> {
      return service.returnOrigins(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => [String], {
      description:
        'Replaces the origins (scheme://host[:port]) a session return_url may use in this environment; ' +
        'https only in production. Returns them normalised.',
    })
    async setReturnOrigins(
      @Arg('origins', () => [String]) origins: string[],
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<string[]> {
      return service.setReturnOrigins(ctx, origins);
    }

    @Roles(RULES.read)
    @Query(() => BrandingGql, { description: 'The hosted page branding of this environment.' })
    async branding(@GqlCtx() { ctx }: GqlContext): Promise<BrandingGql> {
      return service.branding(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => BrandingGql, {
      description: 'Replaces the hosted page branding of this environment (display name, accent colour).',
    })
    async setBranding(
      @Arg('input', () => BrandingInputGql) input: BrandingInputGql,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<BrandingGql> {
      return gqlParams(() => service.setBranding(ctx, input));
    }
  }
  return BrandingResolver;
}
