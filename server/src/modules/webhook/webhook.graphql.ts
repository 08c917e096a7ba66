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
