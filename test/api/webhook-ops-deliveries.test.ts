import { beforeAll, describe, expect, it } from 'vitest';
import { WebhookTestEventSchema } from '../../server/src/modules/webhook/webhook.contract';
import { Api, createBusiness, type Json, type TestService } from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { HOUR, webhookOpsSuite } from '../support/webhook-ops';
import { standardVerifies } from '../support/webhook-receiver';

describe('webhook operations: delivery log, redelivery, test event, URL change', () => {
  const s = webhookOpsSuite('webhook_ops_dlv');
  const { clock, receiver, gql, deliverAll, sendTest, lastFor, webhookAudit, expectAudited } = s;
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let secret: string;
  let ownerId: string;
  beforeAll(() => {
    ({ t, api, workflowId, secret, ownerId } = s);
  });

  describe('delivery log', () => {
    it('records every attempt with time, status, latency, a 1 KiB response excerpt and the error', async () => {
      receiver.script.push(503);
      receiver.replyBody = `${'é'.repeat(100)}${'x'.repeat(3000)}`;
      receiver.replyDelayMs = 150; // the latency recorded is the receiver's answer time, not a constant
      const ev = await sendTest();
      const t0 = clock.now().toISOString();
      await t.svc.relay.runOnce();
      receiver.replyDelayMs = 0;
      clock.advance(10_000);
      receiver.replyBody = 'ok';
      await deliverAll();
      const log = await gql(
        `query($id: ID) { webhookAttempts(deliveryEventId: $id) {
          nodes { id deliveryEventId event deliveryId attemptedAt url statusCode durationMs responseExcerpt error }
          pageInfo { endCursor hasNextPage } } }`,
        { id: ev.id },
      );
      expect(log.errors).toBeUndefined();
      const [second, first] = log.data.webhookAttempts.nodes; // newest first
      expect(log.data.webhookAttempts.nodes).toHaveLength(2);
      expect(first).toMatchObject({
        deliveryEventId: ev.id,
        event: 'webhook.test',
        deliveryId: ev.deliveryId,
        attemptedAt: t0,
        url: receiver.url,
        statusCode: 503,
        error: 'HTTP 503',
      });
      expect(first.durationMs).toBeGreaterThanOrEqual(150);
      expect(first.durationMs).toBeLessThan(10_000); // the relay's timeout
      expect(Buffer.byteLength(first.responseExcerpt)).toBeLessThanOrEqual(1024);
      expect(Buffer.byteLength(first.responseExcerpt)).toBeGreaterThan(1020);
      expect(first.responseExcerpt.startsWith('é'.repeat(100))).toBe(true);
      expect(second).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'ok' });
      expect(log.data.webhookAttempts.pageInfo.hasNextPage).toBe(false);
      expect(JSON.stringify(log)).not.toContain(secret);
    });

    it('pages through attempts and deliveries with cursors, without gaps or repeats', async () => {
      for (let i = 0; i < 6; i++) await sendTest(); // more attempts than fit on three pages of two
      await deliverAll();
      const all = await gql('{ webhookAttempts(first: 100) { nodes { id } } }');
      const total = all.data.webhookAttempts.nodes.map((n: Json) => n.id);
      expect(total.length).toBeGreaterThan(5);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: Json = await gql(
          'query($a: String) { webhookAttempts(first: 2, after: $a) { nodes { id } pageInfo { endCursor hasNextPage } } }',
          { a: after },
        );
        expect(page.data.webhookAttempts.nodes.length).toBeLessThanOrEqual(2);
        seen.push(...page.data.webhookAttempts.nodes.map((n: Json) => n.id));
        if (!page.data.webhookAttempts.pageInfo.hasNextPage) break;
        after = page.data.webhookAttempts.pageInfo.endCursor;
      }
      expect(seen).toEqual(total);

      const d1 = await gql(
        '{ webhookDeliveryPage(first: 2) { nodes { id } pageInfo { endCursor hasNextPage } } }',
      );
      const d2 = await gql(
        'query($a: String) { webhookDeliveryPage(first: 2, after: $a) { nodes { id } } }',
        {
          a: d1.data.webhookDeliveryPage.pageInfo.endCursor,
        },
      );
      expect(d1.data.webhookDeliveryPage.pageInfo.hasNextPage).toBe(true);
      const ids = [...d1.data.webhookDeliveryPage.nodes, ...d2.data.webhookDeliveryPage.nodes].map(
        (n: Json) => n.id,
      );
      expect(new Set(ids).size).toBe(4);
    });

    it('answers bad paging arguments with a 4xx code, never a 5xx', async () => {
      for (const [args, code, param] of [
        ['after: "not-a-cursor!"', 'cursor_invalid', 'after'],
        [`after: "${Buffer.from('2026-01-01|x').toString('base64url')}"`, 'cursor_invalid', 'after'],
        ['first: 0', 'validation_failed', 'first'],
        ['first: 101', 'validation_failed', 'first'],
      ] as const) {
        for (const q of [
          `{ webhookAttempts(${args}) { nodes { id } } }`,
          `{ webhookDeliveryPage(${args}) { nodes { id } } }`,
        ]) {
          const r = await gql(q);
          expect(r.errors?.[0]?.extensions, q).toMatchObject({ code, param });
          expect(r.errors?.[0]?.extensions?.status).toBeLessThan(500);
        }
      }
    });

    it('shows another business nothing of this endpoint', async () => {
      const other = new Api(t.baseUrl, (await createBusiness(t, 'Other GmbH')).apiKey);
      const own = await gql('{ webhookAttempts(first: 1) { nodes { deliveryEventId } } }');
      const eventId = own.data.webhookAttempts.nodes[0].deliveryEventId;
      const r = await gql(
        'query($id: ID) { webhookAttempts(deliveryEventId: $id) { nodes { id } } webhookDeliveryPage { nodes { id } } }',
        { id: eventId },
        other,
      );
      expect(r.data.webhookAttempts.nodes).toEqual([]);
      expect(r.data.webhookDeliveryPage.nodes).toEqual([]);
      const redeliver = await gql('mutation($id: ID!) { redeliverWebhook(id: $id) }', { id: eventId }, other);
      expect(redeliver.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });
    });
  });

  describe('redelivery', () => {
    /** A completed session whose step.completed exhausts every retry (the receiver answers 500 eight times). */
    async function sessionWithFailedHead() {
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      const signer = new SignerClient(t.baseUrl, created.body.id);
      await signer.start();
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      const id = created.body.id as string;
      for (let i = 0; i < 8; i++) {
        receiver.script.push(500);
        await t.svc.relay.runOnce();
        clock.advance(11 * HOUR);
      }
      receiver.script.length = 0;
      const page = await gql(
        'query($s: ID) { webhookDeliveryPage(sessionId: $s) { nodes { id event deliveryId status attempts } } }',
        { s: id },
      );
      const byEvent = Object.fromEntries(page.data.webhookDeliveryPage.nodes.map((n: Json) => [n.event, n]));
      expect(byEvent['step.completed']).toMatchObject({ status: 'failed', attempts: 8 });
      // the later event waits behind the failed one (never sent)
      expect(byEvent['session.completed']).toMatchObject({ status: 'pending', attempts: 0 });
      expect(
        receiver.requests.filter((d) => d.body.delivery_id === byEvent['session.completed'].deliveryId),
      ).toEqual([]);
      return { id, step: byEvent['step.completed'], end: byEvent['session.completed'] };
    }

    it('redelivers one failed event with the same delivery id, then the events held behind it, in order', async () => {
      const { id, step, end } = await sessionWithFailedHead();
      const notFailed = await gql('mutation($id: ID!) { redeliverWebhook(id: $id) }', { id: end.id });
      expect(notFailed.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', param: 'id' });
      const unknown = await gql('mutation($id: ID!) { redeliverWebhook(id: $id) }', { id: 'whevt_nope' });
      expect(unknown.errors?.[0]?.extensions).toMatchObject({ code: 'not_found', status: 404 });

      const before = receiver.deliveries.length;
      const audited = await webhookAudit();
      expect(
        (await gql('mutation($id: ID!) { redeliverWebhook(id: $id) }', { id: step.id })).data
          .redeliverWebhook,
      ).toBe(true);
      await expectAudited(audited, 'webhook.redeliver', step.id, {
        delivery_id: step.deliveryId,
        event: 'step.completed',
      });
      await deliverAll();
      const now = receiver.deliveries.slice(before).filter((d) => d.body.data.session_id === id);
      expect(now.map((d) => d.body.delivery_id)).toEqual([step.deliveryId, end.deliveryId]);
      expect(now.map((d) => d.body.event)).toEqual(['step.completed', 'session.completed']);
      const attempts = await gql(
        'query($id: ID) { webhookAttempts(deliveryEventId: $id, first: 100) { nodes { statusCode } } }',
        {
          id: step.id,
        },
      );
      // the eight failed attempts stay in the log; the redelivery is a ninth
      expect(attempts.data.webhookAttempts.nodes.map((n: Json) => n.statusCode)).toEqual([
        200,
        ...Array(8).fill(500),
      ]);
    });

    it('redelivers every failed event at once', async () => {
      const a = await sessionWithFailedHead();
      const b = await sessionWithFailedHead();
      const audited = await webhookAudit();
      const r = await gql('mutation { redeliverFailedWebhooks }');
      expect(r.data.redeliverFailedWebhooks).toBe(2);
      await expectAudited(audited, 'webhook.redeliver_all', null, { queued: 2 });
      await deliverAll();
      for (const s of [a, b]) {
        const got = receiver.deliveries
          .filter((d) => d.body.data.session_id === s.id)
          .map((d) => d.body.delivery_id);
        expect(got).toEqual([s.step.deliveryId, s.end.deliveryId]);
      }
      expect((await gql('mutation { redeliverFailedWebhooks }')).data.redeliverFailedWebhooks).toBe(0);
    });
  });

  describe('test event', () => {
    it('sends a signed webhook.test event in the sandbox, matching its JSON schema', async () => {
      clock.set(Date.now()); // the library's verify checks webhook-timestamp against the wall clock
      const audited = await webhookAudit();
      const ev = await sendTest();
      expect(ev).toMatchObject({ event: 'webhook.test', status: 'pending' });
      const endpoint = (await gql('{ webhookEndpoint { id } }')).data.webhookEndpoint.id;
      await expectAudited(audited, 'webhook.test_event', ev.id, {
        delivery_id: ev.deliveryId,
        endpoint_id: endpoint,
      });
      expect(ev.deliveryId).toMatch(/^whtest_[0-9a-z]+:webhook\.test:0$/);
      await deliverAll();
      const d = lastFor(ev.deliveryId);
      expect(d.headers['x-service-event']).toBe('webhook.test');
      expect(WebhookTestEventSchema.safeParse(d.body).success).toBe(true);
      expect(d.body.data).toMatchObject({ test: true, environment: 'sandbox' });
      expect(standardVerifies(d, secret)).toBe(true);
    });

    it('is refused in production (sandbox_only) and without an endpoint (webhook_endpoint_required)', async () => {
      const biz = await createBusiness(t, 'Prod AG');
      const prod = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(biz.businessId, 'production')).key);
      const r = await gql('mutation { sendTestWebhook { id } }', {}, prod);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'sandbox_only', status: 409 });
      const sandbox = new Api(t.baseUrl, biz.apiKey);
      const none = await gql('mutation { sendTestWebhook { id } }', {}, sandbox);
      expect(none.errors?.[0]?.extensions).toMatchObject({ code: 'webhook_endpoint_required', status: 409 });
    });
  });

  describe('endpoint URL change', () => {
    it('is in the account audit with the old and new URL, without query, credentials or the secret', async () => {
      const audited = await webhookAudit();
      const { id } = (await gql('{ webhookEndpoint { id } }')).data.webhookEndpoint;
      // the first configuration (before all tests) is there too
      expect(audited.filter((a) => a.action === 'webhook.endpoint.create')).toMatchObject([
        { actorKind: 'user', actorId: ownerId, target: id, detail: { url: receiver.url } },
      ]);
      const moved = `${receiver.url}/v2?token=integrator-secret-token#frag`;
      const r = await gql(
        'mutation($url: String!) { configureWebhookEndpoint(url: $url) { id url secret } }',
        {
          url: moved,
        },
      );
      expect(r.errors).toBeUndefined();
      expect(r.data.configureWebhookEndpoint).toMatchObject({ id, url: moved });
      // the receiver's URL is http://127.0.0.1:<port>/hooks: scheme, host and path are kept
      const row = await expectAudited(audited, 'webhook.endpoint.update', id, {
        url: `${receiver.url}/v2`,
        previous_url: receiver.url,
      });
      expect(JSON.stringify(row)).not.toContain('integrator-secret-token');
      expect(JSON.stringify(row)).not.toContain(r.data.configureWebhookEndpoint.secret.slice(6, 20));
      // a refused URL changes nothing and is not audited
      const bad = await gql('mutation { configureWebhookEndpoint(url: "not a url") { id } }');
      expect(bad.errors?.[0]?.extensions?.status).toBeLessThan(500);
      expect(await webhookAudit([...audited, row])).toEqual([]);
      // back to the receiver, for anything run after this
      const back = await gql('mutation($url: String!) { configureWebhookEndpoint(url: $url) { secret } }', {
        url: receiver.url,
      });
      secret = back.data.configureWebhookEndpoint.secret;
    });
  });
});
