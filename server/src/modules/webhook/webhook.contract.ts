// Owns the contract of the webhook module's own event: the sandbox test event (sendTestWebhook). The session
// events are declared with the session routes (session.contract.ts); every event is registered on the route
// registry (RouteRegistry.addEvent), where the webhook schema generator reads them.
import { z } from 'zod';
import { timestamp } from '../../common/contract-atoms';
import type { RouteRegistry } from '../../common/http';

/** The sandbox test event (sendTestWebhook): not tied to a session; its stream id is a `whtest_` id. */
export const WebhookTestEventSchema = z
  .object({
    event: z.literal('webhook.test'),
    delivery_id: z
      .string()
      .regex(/^whtest_[0-9a-z]+:webhook\.test:0$/)
      .describe('<whtest_ id>:webhook.test:0; a fresh id per test event.'),
    data: z
      .object({
        test: z.literal(true),
        endpoint_id: z.string(),
        environment: z.literal('sandbox'),
        sent_at: timestamp,
      })
      .strict(),
  })
  .strict();

/** Declares the webhook module's own events on the registry (the schema generator reads them there). */
export function registerWebhookEvents(reg: RouteRegistry): void {
  reg.addEvent('webhook.test', WebhookTestEventSchema);
}
