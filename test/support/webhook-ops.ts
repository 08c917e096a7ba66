// Shared setup of the webhook operations tests (test/api/webhook-ops*.test.ts, issue 9): one service per file
// on real MariaDB with workers off (the relay is driven by hand, time by a ManualClock), a real HTTP receiver,
// one business with an identify workflow pointing at it, and the helpers those tests read the service through.
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AccountAuditEntity, DashboardUserEntity } from '../../server/src/modules/accounts/accounts.entities';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from './harness';
import { type Delivery, WebhookReceiver } from './webhook-receiver';

export const HOUR = 3600_000;

/** What a webhook operations suite reads: its service, business and endpoint, and the helpers over them. */
export interface WebhookOpsSuite {
  t: TestService;
  api: Api;
  workflowId: string;
  /** The endpoint's secret when the suite started. */
  secret: string;
  businessId: string;
  ownerId: string;
  clock: ManualClock;
  receiver: WebhookReceiver;
  gql(query: string, variables?: Record<string, unknown>, who?: Api): Promise<Json>;
  deliverAll(): Promise<void>;
  sendTest(): Promise<Json>;
  lastFor(deliveryId: string): Delivery;
  webhookAudit(since?: Json[]): Promise<Json[]>;
  expectAudited(before: Json[], action: string, target: unknown, detail: Json): Promise<Json>;
}

/** Registers the suite's hooks; its fields are set once beforeAll ran (read them inside hooks and tests). */
export function webhookOpsSuite(label: string): WebhookOpsSuite {
  const clock = new ManualClock(Date.now());
  const receiver = new WebhookReceiver();
  const state = {
    t: undefined as unknown as TestService,
    api: undefined as unknown as Api,
    workflowId: '',
    /** The endpoint's secret when the suite started. */
    secret: '',
    businessId: '',
    ownerId: '',
  };
  const helpers = {
    gql: async (query: string, variables: Record<string, unknown> = {}, who: Api = s.api): Promise<Json> =>
      who.gql(query, variables),
    deliverAll: async (): Promise<void> => {
      while ((await s.t.svc.relay.runOnce()) > 0) {}
    },
    sendTest: async (): Promise<Json> => {
      const r = await s.gql('mutation { sendTestWebhook { id deliveryId event status } }');
      expect(r.errors).toBeUndefined();
      return r.data.sendTestWebhook as Json;
    },
    lastFor: (deliveryId: string): Delivery =>
      receiver.requests.filter((d) => d.body.delivery_id === deliveryId).at(-1) as Delivery,
    /**
     * The account audit trail of the business's webhook operations, as an operator reads it from account_audit:
     * `since` the ids of an earlier read, the rows written after it.
     */
    webhookAudit: async (since: Json[] = []): Promise<Json[]> => {
      const seen = new Set(since.map((r) => r.id));
      return (await s.t.svc.ds.getRepository(AccountAuditEntity).findBy({ businessId: s.businessId }))
        .filter((r) => r.action.startsWith('webhook.') && !seen.has(r.id))
        .map((r) => ({ ...r, detail: r.detail ? JSON.parse(r.detail) : null })) as Json[];
    },
    /** The one audit row an operation wrote: by the signed-in owner, at the (manual) clock's time. */
    expectAudited: async (before: Json[], action: string, target: unknown, detail: Json): Promise<Json> => {
      const added = await s.webhookAudit(before);
      expect(added).toEqual([
        {
          id: expect.stringMatching(/^acau_/),
          businessId: s.businessId,
          actorKind: 'user',
          actorId: s.ownerId,
          action,
          target,
          detail: { environment: 'sandbox', ...detail },
          createdAt: clock.now(),
        },
      ]);
      return added[0] as Json;
    },
  };
  const s: WebhookOpsSuite = Object.assign(state, { clock, receiver }, helpers);

  beforeAll(async () => {
    s.t = await startTestService({ clock, workers: false, label });
    await receiver.start();
    const biz = await createBusiness(s.t);
    s.businessId = biz.businessId;
    s.api = new Api(s.t.baseUrl, biz.apiKey);
    ({ workflowId: s.workflowId, webhookSecret: s.secret } = await setUpIdentifyWorkflow(
      s.api,
      receiver.url,
    ));
    s.ownerId = (
      await s.t.svc.ds
        .getRepository(DashboardUserEntity)
        .findOneByOrFail({ businessId: s.businessId, role: 'owner' })
    ).id;
  });
  afterAll(async () => {
    await receiver.stop();
    await s.t?.stop();
  });
  beforeEach(() => {
    receiver.script.length = 0;
    receiver.replyBody = undefined;
  });
  return s;
}
