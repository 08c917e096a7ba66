// Thin GraphQL resolver over WebhookService: map arguments, call, map results.
import { Arg, Ctx as GqlCtx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { Page } from '../../common/cursor';
import { AppError, isAppError } from '../../common/errors';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import {
  ConfiguredWebhookEndpointGql,
  RotatedWebhookSecretGql,
  WebhookAttemptPageGql,
  WebhookDeliveryGql,
  WebhookDeliveryPageGql,
  WebhookDeliveryStatusGql,
  WebhookEndpointGql,
} from './webhook.graphql';
import type { WebhookService } from './webhook.service';

const pageOut = <T>(p: Page<T>) => ({
  nodes: p.nodes,
  pageInfo: { endCursor: p.endCursor, hasNextPage: p.hasNextPage },
});

/** Runs a service call, renaming a service `param` to the GraphQL argument at fault. */
async function gqlParam<T>(call: () => Promise<T>, names: Record<string, string>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isAppError(e) && e.param && names[e.param])
      throw new AppError(e.code, e.message, { param: names[e.param], cause: e, extra: e.extra });
    throw e;
  }
}

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
      return { ...(await service.configureEndpoint(ctx, url)), previousSecretExpiresAt: null };
    }

    @Roles(RULES.build)
    @Mutation(() => RotatedWebhookSecretGql, {
      description:
        'Issues a new signing secret (shown once). The old one keeps signing next to it until ' +
        'oldSecretExpiresAt (default: 24 hours from now; at most 7 days; now ends it at once).',
    })
    async rotateWebhookSecret(
      @Arg('oldSecretExpiresAt', () => Date, { nullable: true }) oldSecretExpiresAt: Date | null | undefined,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<RotatedWebhookSecretGql> {
      return gqlParam(() => service.rotateSecret(ctx, oldSecretExpiresAt ?? null), {
        old_secret_expires_at: 'oldSecretExpiresAt',
      });
    }

    @Roles(RULES.read)
    @Query(() => WebhookDeliveryPageGql, {
      description: 'Deliveries of this environment, newest first (keyset pagination).',
    })
    async webhookDeliveryPage(
      @Arg('first', () => Int, { nullable: true, description: '1 to 100, default 20.' }) first: number | null,
      @Arg('after', () => String, { nullable: true }) after: string | null,
      @Arg('status', () => WebhookDeliveryStatusGql, { nullable: true })
      status: WebhookDeliveryStatusGql | null,
      @Arg('sessionId', () => ID, { nullable: true }) sessionId: string | null,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WebhookDeliveryPageGql> {
      return pageOut(await service.deliveryPage(ctx, { first, after, status, sessionId }));
    }

    @Roles(RULES.read)
    @Query(() => WebhookAttemptPageGql, {
      description:
        "The delivery log of this environment's endpoint: every attempt, newest first (keyset pagination); " +
        "one delivery's attempts with deliveryEventId.",
    })
    async webhookAttempts(
      @Arg('first', () => Int, { nullable: true, description: '1 to 100, default 20.' }) first: number | null,
      @Arg('after', () => String, { nullable: true }) after: string | null,
      @Arg('deliveryEventId', () => ID, { nullable: true }) deliveryEventId: string | null,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WebhookAttemptPageGql> {
      return pageOut(await service.attemptPage(ctx, { first, after, deliveryEventId }));
    }

    @Roles(RULES.build)
    @Mutation(() => Int, {
      description:
        'Queues every failed delivery of this environment again (same delivery ids, fresh schedules); ' +
        'returns how many. Per-session order is kept.',
    })
    async redeliverFailedWebhooks(@GqlCtx() { ctx }: GqlContext): Promise<number> {
      return service.redeliverAllFailed(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => WebhookDeliveryGql, {
      description:
        'Sandbox only: sends a `webhook.test` event (not tied to a session) to the endpoint, signed like any ' +
        'other delivery.',
    })
    async sendTestWebhook(@GqlCtx() { ctx }: GqlContext): Promise<WebhookDeliveryGql> {
      return service.sendTestEvent(ctx);
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
      await gqlParam(() => service.redeliver(ctx, id), { event_id: 'id' });
      return true;
    }
  }
  return WebhookResolver;
}
