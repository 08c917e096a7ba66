// Thin GraphQL operations of the return_url origins over BrandingService (ADR 0019).
import { Arg, Ctx as GqlCtx, Mutation, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { Roles, RULES } from '../accounts/roles';
import type { BrandingService } from './branding.service';

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
  }
  return BrandingResolver;
}
