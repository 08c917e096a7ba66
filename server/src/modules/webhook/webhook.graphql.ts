// GraphQL types of webhook configuration and deliveries (dashboard API). Entities are never exposed directly;
// the secret appears only in the answer to configureWebhookEndpoint.
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum WebhookDeliveryStatusGql {
  pending = 'pending',
  delivered = 'delivered',
  failed = 'failed',
}
registerEnumType(WebhookDeliveryStatusGql, { name: 'WebhookDeliveryStatus' });

@ObjectType('WebhookEndpoint')
export class WebhookEndpointGql {
  @Field(() => ID) id!: string;
  @Field(() => String) url!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, {
    nullable: true,
    description:
      'While a secret rotation overlap runs: when the previous secret stops signing (until then every ' +
      'delivery carries a signature with each secret).',
  })
  previousSecretExpiresAt!: Date | null;
}

@ObjectType('ConfiguredWebhookEndpoint')
export class ConfiguredWebhookEndpointGql extends WebhookEndpointGql {
  @Field(() => String, { description: 'Signing secret. Shown only here, once; store it now.' })
  secret!: string;
}

@ObjectType('WebhookDelivery')
export class WebhookDeliveryGql {
  @Field(() => ID) id!: string;
  @Field(() => String) event!: string;
  @Field(() => String, { description: 'X-Service-Delivery-Id: <session_id>:<event>:<counter>.' })
  deliveryId!: string;
  @Field(() => WebhookDeliveryStatusGql) status!: 'pending' | 'delivered' | 'failed';
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) nextAttemptAt!: Date | null;
  @Field(() => Date, { nullable: true }) deliveredAt!: Date | null;
}

@ObjectType('PageInfo', { description: 'Keyset pagination: pass endCursor as `after` for the next page.' })
export class PageInfoGql {
  @Field(() => String, { nullable: true }) endCursor!: string | null;
  @Field(() => Boolean) hasNextPage!: boolean;
}

@ObjectType('WebhookDeliveryPage')
export class WebhookDeliveryPageGql {
  @Field(() => [WebhookDeliveryGql]) nodes!: WebhookDeliveryGql[];
  @Field(() => PageInfoGql) pageInfo!: PageInfoGql;
}

@ObjectType('WebhookAttempt', { description: 'One delivery attempt (the delivery log).' })
export class WebhookAttemptGql {
  @Field(() => ID) id!: string;
  @Field(() => ID, { description: 'The WebhookDelivery.id this attempt belongs to.' })
  deliveryEventId!: string;
  @Field(() => String) event!: string;
  @Field(() => String, { description: 'X-Service-Delivery-Id, the same on every attempt.' })
  deliveryId!: string;
  @Field(() => Date) attemptedAt!: Date;
  @Field(() => String, { nullable: true, description: 'The URL the attempt went to.' }) url!: string | null;
  @Field(() => Int, { nullable: true, description: 'HTTP status; null when no answer came.' })
  statusCode!: number | null;
  @Field(() => Int, { description: 'Latency of the attempt in milliseconds.' }) durationMs!: number;
  @Field(() => String, {
    nullable: true,
    description: 'The first 1 KiB of the response body as received.',
  })
  responseExcerpt!: string | null;
  @Field(() => String, { nullable: true, description: 'Network error, timeout or `HTTP <status>`.' })
  error!: string | null;
  @Field(() => String, {
    description: 'The exact JSON body POSTed (the signed bytes); the same on every attempt of a delivery.',
  })
  requestBody!: string;
}

@ObjectType('WebhookAttemptPage')
export class WebhookAttemptPageGql {
  @Field(() => [WebhookAttemptGql]) nodes!: WebhookAttemptGql[];
  @Field(() => PageInfoGql) pageInfo!: PageInfoGql;
}

@ObjectType('RotatedWebhookSecret')
export class RotatedWebhookSecretGql extends WebhookEndpointGql {
  @Field(() => String, { description: 'The new signing secret. Shown only here, once; store it now.' })
  secret!: string;
}
