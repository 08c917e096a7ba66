// Thin GraphQL resolver over WebhookService: map arguments, call, map results.
import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GqlContext } from '../../graphql/context';
import { Roles, RULES } from '../accounts/roles';
import {
  ConfiguredWebhookEndpointGql,
  WebhookDeliveryGql,
  WebhookDeliveryStatusGql,
  WebhookEndpointGql,
} from './webhook.graphql';
import type { WebhookService } from './webhook.service';

export function createWebhookResolver(service: WebhookService) {
  @Resolver()
  class WebhookResolver {
    @Roles(RULES.read)
    @Query(() => WebhookEndpointGql, {
      nullable: true,
      description: 'The webhook endpoint of this environment.',
    })
    async webhookEndpoint(@GqlCtx() { ctx }: GqlContext): Promise<WebhookEndpointGql | null> {
      return service.getEndpoint(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => ConfiguredWebhookEndpointGql, {
      description: 'Sets the webhook URL of this environment and issues a new signing secret (shown once).',
    })
    async configureWebhookEndpoint(
      @Arg('url', () => String) url: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<ConfiguredWebhookEndpointGql> {
      return service.configureEndpoint(ctx, url);
    }

    @Roles(RULES.read)
    @Query(() => [WebhookDeliveryGql], { description: 'Recent webhook deliveries, newest first.' })
    async webhookDeliveries(
      @Arg('sessionId', () => ID, { nullable: true }) sessionId: string | undefined,
      @Arg('status', () => WebhookDeliveryStatusGql, { nullable: true }) status:
        | WebhookDeliveryStatusGql
        | undefined,
      @Arg('limit', () => Int, { nullable: true }) limit: number | undefined,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WebhookDeliveryGql[]> {
      return service.listDeliveries(ctx, {
        sessionId: sessionId ?? undefined,
        status: status ?? undefined,
        limit: limit ?? undefined,
      });
    }

    @Roles(RULES.build)
    @Mutation(() => Boolean, {
      description: 'Queues a permanently failed delivery again with a fresh schedule.',
    })
    async redeliverWebhook(@Arg('id', () => ID) id: string, @GqlCtx() { ctx }: GqlContext): Promise<boolean> {
      await service.redeliver(ctx, id);
      return true;
    }
  }
  return WebhookResolver;
}
