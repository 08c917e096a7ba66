// Webhook operations as an integrator and a dashboard user observe them (issue 9): Standard Webhooks headers
// verified by the independent `standardwebhooks` receiver library and secret rotation with an overlap window
// (both signatures on every attempt, retries included, until the chosen time). The delivery log, redelivery,
// the test event and endpoint URL changes: webhook-ops-deliveries.test.ts. Real MariaDB, real HTTP receiver;
// the relay is driven by hand and time by a ManualClock (shared setup: test/support/webhook-ops.ts).
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { Api, createBusiness, type TestService } from '../support/harness';
import { SignerClient, shareWithReferenceWallet } from '../support/signer';
import { HOUR, webhookOpsSuite } from '../support/webhook-ops';
import { signatureValid, standardVerifies } from '../support/webhook-receiver';

describe('webhook operations: headers and secret rotation', () => {
  const s = webhookOpsSuite('webhook_ops');
  const { clock, receiver, gql, deliverAll, sendTest, lastFor, webhookAudit, expectAudited } = s;
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let secret: string;
  beforeAll(() => {
    ({ t, api, workflowId, secret } = s);
  });

  describe('Standard Webhooks headers', () => {
    it('issues secrets in the Standard Webhooks format (whsec_ + base64 of 32 bytes)', () => {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    });

    it('sends webhook-id, webhook-timestamp and webhook-signature that the standardwebhooks library accepts', async () => {
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      expect(created.status).toBe(201);
      const signer = new SignerClient(t.baseUrl, created.body.id);
      expect((await signer.start()).status).toBe(200);
      expect((await shareWithReferenceWallet(t.svc, signer)).status).toBe(200);
      await deliverAll();
      const got = receiver.deliveries.filter((d) => d.body.data.session_id === created.body.id);
      expect(got.map((d) => d.body.event)).toEqual(['step.completed', 'session.completed']);
      const ids = new Set<string>();
      for (const d of got) {
        const id = String(d.headers['webhook-id']);
        expect(id).toMatch(/^msg_[0-9a-z]{32}$/); // no dot, unlike the delivery id it is derived from
        expect(d.headers['x-service-delivery-id']).toContain('.');
        ids.add(id);
        expect(d.headers['webhook-timestamp']).toBe(d.headers['x-service-timestamp']);
        expect(String(d.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        expect(standardVerifies(d, secret)).toBe(true);
        expect(signatureValid(d, secret)).toBe(true);
        // a tampered body fails the library's check
        expect(standardVerifies({ ...d, rawBody: d.rawBody.replace('"data"', '"data" ') }, secret)).toBe(
          false,
        );
      }
      expect(ids.size).toBe(2);
    });

    it('keeps webhook-id stable across retries of one delivery', async () => {
      receiver.script.push(500);
      const ev = await sendTest();
      await t.svc.relay.runOnce();
      clock.advance(10_000);
      await deliverAll();
      const tries = receiver.requests.filter((d) => d.body.delivery_id === ev.deliveryId);
      expect(tries).toHaveLength(2);
      expect(tries[0]?.headers['webhook-id']).toBe(tries[1]?.headers['webhook-id']);
    });
  });

  describe('secret rotation with an overlap window', () => {
    it('signs every attempt (retries included) with both secrets until the chosen time, then only the new one', async () => {
      const before = await gql('{ webhookEndpoint { id url previousSecretExpiresAt } }');
      const audited = await webhookAudit();
      const ends = new Date(clock.now().getTime() + HOUR);
      const rotated = await gql(
        'mutation($at: DateTimeISO) { rotateWebhookSecret(oldSecretExpiresAt: $at) { id url secret previousSecretExpiresAt } }',
        { at: ends.toISOString() },
      );
      expect(rotated.errors).toBeUndefined();
      const r = rotated.data.rotateWebhookSecret;
      expect(r.id).toBe(before.data.webhookEndpoint.id);
      expect(r.url).toBe(receiver.url);
      expect(r.secret).toMatch(/^whsec_/);
      expect(r.secret).not.toBe(secret);
      expect(r.previousSecretExpiresAt).toBe(ends.toISOString());
      // who rotated, when, and until when the old secret signs; never a secret
      const row = await expectAudited(audited, 'webhook.secret.rotate', r.id, {
        old_secret_expires_at: ends.toISOString(),
      });
      expect(JSON.stringify(row)).not.toContain(r.secret.slice(6, 20));
      expect(JSON.stringify(row)).not.toContain(secret.slice(6, 20));
      // shown once: no read returns it
      const read = await gql('{ webhookEndpoint { previousSecretExpiresAt } }');
      expect(read.data.webhookEndpoint.previousSecretExpiresAt).toBe(ends.toISOString());
      expect(JSON.stringify(read)).not.toContain(r.secret);
      const oldSecret = secret;
      const newSecret = r.secret as string;

      // a first attempt that fails and its retry: both carry both signatures in both header sets
      receiver.script.push(503);
      const ev = await sendTest();
      await t.svc.relay.runOnce();
      clock.advance(10_000);
      await deliverAll();
      const tries = receiver.requests.filter((d) => d.body.delivery_id === ev.deliveryId);
      expect(tries).toHaveLength(2);
      for (const d of tries) {
        expect(String(d.headers['x-service-signature'])).toMatch(/^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
        expect(String(d.headers['webhook-signature']).split(' ')).toHaveLength(2);
        expect(signatureValid(d, oldSecret)).toBe(true);
        expect(signatureValid(d, newSecret)).toBe(true);
        expect(standardVerifies(d, oldSecret)).toBe(true);
        expect(standardVerifies(d, newSecret)).toBe(true);
        expect(standardVerifies(d, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=')).toBe(false);
      }

      // the old secret ends exactly at the chosen time
      clock.set(ends.getTime() - 1);
      const lastOverlap = await sendTest();
      await deliverAll();
      expect(String(lastFor(lastOverlap.deliveryId).headers['x-service-signature']).split(',')).toHaveLength(
        2,
      );
      clock.set(ends);
      const after = await sendTest();
      await deliverAll();
      const d = lastFor(after.deliveryId);
      expect(String(d.headers['x-service-signature']).split(',')).toHaveLength(1);
      expect(signatureValid(d, newSecret)).toBe(true);
      expect(signatureValid(d, oldSecret)).toBe(false);
      // the library's own signer (its verify also checks the wall clock, which this test has moved past)
      const ts = new Date(Number(d.headers['webhook-timestamp']) * 1000);
      const msgId = String(d.headers['webhook-id']);
      expect(d.headers['webhook-signature']).toBe(new Webhook(newSecret).sign(msgId, ts, d.rawBody));
      expect((await gql('{ webhookEndpoint { previousSecretExpiresAt } }')).data.webhookEndpoint).toEqual({
        previousSecretExpiresAt: null,
      });
      secret = newSecret;
    });

    it('keeps the old secret 24 hours by default', async () => {
      clock.set(Date.now()); // the library's verify checks webhook-timestamp against the wall clock
      const now = clock.now().getTime();
      const rotated = await gql('mutation { rotateWebhookSecret { secret previousSecretExpiresAt } }');
      expect(rotated.data.rotateWebhookSecret.previousSecretExpiresAt).toBe(
        new Date(now + 24 * HOUR).toISOString(),
      );
      const ev = await sendTest();
      await deliverAll();
      const d = lastFor(ev.deliveryId);
      expect(standardVerifies(d, secret)).toBe(true);
      expect(standardVerifies(d, rotated.data.rotateWebhookSecret.secret)).toBe(true);
      secret = rotated.data.rotateWebhookSecret.secret;
    });

    it('refuses an overlap end in the past or beyond 7 days with validation_failed', async () => {
      const audited = await webhookAudit();
      for (const at of [
        new Date(clock.now().getTime() - 1000),
        new Date(clock.now().getTime() + 8 * 24 * HOUR),
      ]) {
        const r = await gql(
          'mutation($at: DateTimeISO) { rotateWebhookSecret(oldSecretExpiresAt: $at) { secret } }',
          { at: at.toISOString() },
        );
        expect(r.data).toBeNull();
        expect(r.errors?.[0]?.extensions).toMatchObject({
          code: 'validation_failed',
          status: 400,
          param: 'oldSecretExpiresAt',
        });
      }
      const bad = await gql(
        'mutation($at: DateTimeISO) { rotateWebhookSecret(oldSecretExpiresAt: $at) { secret } }',
        {
          at: 'tomorrow',
        },
      );
      expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', status: 400 });
      // a refused operation leaves no audit row
      expect(await webhookAudit(audited)).toEqual([]);
    });

    it('answers webhook_endpoint_required when there is no endpoint to rotate', async () => {
      const other = new Api(t.baseUrl, (await createBusiness(t, 'No Hooks AG')).apiKey);
      const r = await gql('mutation { rotateWebhookSecret { secret } }', {}, other);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'webhook_endpoint_required', status: 409 });
    });
  });
});
