// Webhook signing secrets at rest (issue 17 finding 6, ADR 0028): the database holds them sealed under the
// master key, never the `whsec_` value; deliveries still verify with the `standardwebhooks` library on a real
// receiver, during a rotation with both secrets; secrets left in clear by an earlier version are sealed when the
// service starts; a node with another master key refuses to start. Real MariaDB, real HTTP, real restarts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { createService, type Service } from '../../server/src/service';
import {
  Api,
  createBusiness,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { signatureValid, standardVerifies, WebhookReceiver } from '../support/webhook-receiver';

describe('webhook signing secrets at rest', () => {
  const clock = new ManualClock(Date.now());
  const receiver = new WebhookReceiver();
  let t: TestService;
  let svc: Service;
  let api: Api;
  let businessId: string;
  let secret: string;
  const otherDirs: string[] = [];

  /** The endpoint row as a database reader sees it. */
  const row = async (): Promise<{ id: string; secret: string; previous_secret: string | null }> => {
    const rows = await svc.ds.query(
      'SELECT id, secret, previous_secret FROM webhook_endpoint WHERE business_id = ?',
      [businessId],
    );
    expect(rows).toHaveLength(1);
    return rows[0];
  };
  const sendTestEvent = async () => {
    const r = await api.gql('mutation { sendTestWebhook { deliveryId } }');
    expect(r.errors).toBeUndefined();
    while ((await svc.relay.runOnce()) > 0) {}
    const got = receiver.deliveries.filter((d) => d.body.delivery_id === r.data.sendTestWebhook.deliveryId);
    expect(got).toHaveLength(1);
    return got[0] as (typeof receiver.deliveries)[number];
  };
  /** Stops this node and starts another on the same database and port, with the same or another DATA_DIR. */
  const restart = async (dataDir = t.svc.config.dataDir) => {
    await svc.close();
    const next = await createService({ ...t.svc.config, dataDir }, { clock, workers: false });
    await next.listen();
    svc = next;
  };

  beforeAll(async () => {
    t = await startTestService({ clock, workers: false, label: 'webhook_sealed' });
    svc = t.svc;
    await receiver.start();
    const biz = await createBusiness(t);
    businessId = biz.businessId;
    api = new Api(t.baseUrl, biz.apiKey);
    ({ webhookSecret: secret } = await setUpIdentifyWorkflow(api, receiver.url));
  });
  afterAll(async () => {
    await receiver.stop();
    await svc?.close().catch(() => {});
    await t?.db.drop();
    for (const d of [t?.svc.config.dataDir, ...otherDirs])
      if (d) fs.rmSync(d, { recursive: true, force: true });
  });

  it('stores the issued secret sealed: the column never contains the whsec_ value', async () => {
    expect(secret).toMatch(/^whsec_/);
    const r = await row();
    expect(r.secret).not.toContain('whsec_');
    expect(r.secret).not.toContain(secret.slice(6, 30));
    expect(r.secret).toMatch(/^v1\./);
    const d = await sendTestEvent();
    expect(standardVerifies(d, secret)).toBe(true);
    expect(signatureValid(d, secret)).toBe(true);
  });

  it('keeps both secrets sealed during a rotation, and each verifies every delivery', async () => {
    const r = await api.gql('mutation { rotateWebhookSecret { secret previousSecretExpiresAt } }');
    expect(r.errors).toBeUndefined();
    const fresh = r.data.rotateWebhookSecret.secret as string;
    const stored = await row();
    for (const v of [stored.secret, stored.previous_secret as string]) {
      expect(v).toMatch(/^v1\./);
      expect(v).not.toContain('whsec_');
      expect(v).not.toContain(fresh.slice(6, 30));
      expect(v).not.toContain(secret.slice(6, 30));
    }
    const d = await sendTestEvent();
    expect(standardVerifies(d, fresh)).toBe(true);
    expect(standardVerifies(d, secret)).toBe(true);
    expect(signatureValid(d, fresh)).toBe(true);
    expect(signatureValid(d, secret)).toBe(true);
    secret = fresh;
  });

  it('seals secrets an earlier version stored in clear when the service starts, and keeps signing with them', async () => {
    const previous = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const { id } = await row();
    // what an earlier version left in the table
    await svc.ds.query('UPDATE webhook_endpoint SET secret = ?, previous_secret = ? WHERE id = ?', [
      secret,
      previous,
      id,
    ]);
    await restart();
    const after = await row();
    for (const v of [after.secret, after.previous_secret as string]) {
      expect(v).toMatch(/^v1\./);
      expect(v).not.toContain('whsec_');
    }
    const d = await sendTestEvent();
    expect(standardVerifies(d, secret)).toBe(true);
    expect(standardVerifies(d, previous)).toBe(true);
    // a second start changes nothing (already sealed)
    await restart();
    expect(await row()).toEqual(after);
  });

  it('refuses to start a node whose master key is not the one the secrets were sealed under', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-other-key-'));
    otherDirs.push(other);
    await svc.close();
    await expect(
      createService({ ...t.svc.config, dataDir: other }, { clock, workers: false }),
      // refused before a new master key is made up over sealed data (ADR 0048), so nothing is lost
    ).rejects.toThrow(/Refusing to start: the database holds \d+ key version\(s\) sealed under a master key/);
    // the right key still starts, and the stored secret is unchanged
    const next = await createService(t.svc.config, { clock, workers: false });
    await next.listen();
    svc = next;
    const d = await sendTestEvent();
    expect(standardVerifies(d, secret)).toBe(true);
  });
});
