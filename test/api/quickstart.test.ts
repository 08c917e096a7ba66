// A newcomer's first run: the embedded defaults (SQLite file in DATA_DIR, no DATABASE_URL) seed a sandbox
// business whose printed key, workflow and curl work, and the built-in receiver shows signed deliveries.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFrom } from '../../server/src/config/config';
import { quickstartBanner, seedQuickstart } from '../../server/src/modules/quickstart/quickstart';
import { createService, type Service } from '../../server/src/service';
import { Api, freePort, type Json } from '../support/harness';
import { SignerClient } from '../support/signer';

describe('quickstart on embedded defaults', () => {
  let svc: Service;
  let dataDir: string;
  let baseUrl: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-quickstart-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = configFrom({
      PORT: String(port),
      DATA_DIR: dataDir,
      BASE_URL: baseUrl,
      LOG_LEVEL: 'error',
    } as never);
    expect(config.databaseUrl).toBeUndefined();
    svc = await createService(config);
    await svc.listen();
  });
  afterAll(async () => {
    await svc?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('seeds once, prints a working key and curl, and delivers signed webhooks to the dev receiver', async () => {
    const qs = await seedQuickstart(svc);
    expect(qs).not.toBeNull();
    if (!qs) return;
    expect(fs.existsSync(path.join(dataDir, 'service.sqlite'))).toBe(true);
    const file = JSON.parse(fs.readFileSync(path.join(dataDir, 'quickstart.json'), 'utf8'));
    expect(Object.keys(file).sort()).toEqual(['api_key', 'base_url', 'workflow_id']);
    expect(file).toEqual(qs);
    expect(qs.api_key).toMatch(/^sk_sandbox_/);
    expect(quickstartBanner(qs)).toContain(`curl -s -X POST ${baseUrl}/v1/sessions`);
    expect(await seedQuickstart(svc)).toEqual(qs); // a restart does not seed again

    const api = new Api(baseUrl, qs.api_key);
    const created = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: qs.workflow_id },
      { 'Idempotency-Key': 'first-run' },
    );
    expect(created.status).toBe(201);
    // the repeat hits the key's unique index on the embedded engine: it replays, it is no 500
    const repeat = await api.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: qs.workflow_id },
      { 'Idempotency-Key': 'first-run' },
    );
    expect([repeat.status, repeat.body.id]).toEqual([201, created.body.id]);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    const signer = new SignerClient(baseUrl, created.body.id);
    await signer.start();
    const wr = await signer.walletRequest();
    expect(wr.body.sandbox_personas.map((p: { id: string }) => p.id)).toContain('adult');
    const response = await svc.wallet.respond({
      persona: 'adult',
      request: wr.body.request,
      origin: baseUrl,
    });
    expect((await signer.submit(wr.body.request_id, response)).body.status).toBe('completed');

    let deliveries: Json[] = [];
    await expect
      .poll(
        async () => {
          const page = await new Api(baseUrl).rest('GET', '/dev/webhook-receiver?format=json');
          deliveries = page.body.deliveries;
          return deliveries.length;
        },
        { timeout: 15_000, interval: 100 },
      )
      .toBe(2);
    expect(deliveries.map((d) => d.event).sort()).toEqual(['session.completed', 'step.completed']);
    expect(deliveries.every((d) => d.signatureValid)).toBe(true);

    // The embedded file survives a restart: same key, same session, no second seed.
    await svc.close();
    const port = await freePort(); // a new port: the client's pooled sockets to the old one are closed
    const restartedUrl = `http://127.0.0.1:${port}`;
    svc = await createService(
      configFrom({
        PORT: String(port),
        DATA_DIR: dataDir,
        BASE_URL: restartedUrl,
        LOG_LEVEL: 'error',
      } as never),
      { workers: false },
    );
    await svc.listen();
    expect(await seedQuickstart(svc)).toEqual(qs);
    const again = await new Api(restartedUrl, qs.api_key).rest('GET', `/v1/sessions/${created.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('completed');
  });
});

describe('a production deployment', () => {
  it('never mounts the development webhook receiver, even when it serves sandbox keys', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prod-'));
    const port = await freePort();
    const svc = await createService(
      configFrom({
        APP_ENV: 'production',
        SEED_SANDBOX: 'true',
        PORT: String(port),
        DATA_DIR: dataDir,
        BASE_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'error',
      } as never),
      { workers: false },
    );
    try {
      await svc.listen();
      const anon = new Api(`http://127.0.0.1:${port}`);
      expect((await anon.rest('GET', '/dev/webhook-receiver?format=json')).status).toBe(404);
      expect((await anon.rest('POST', '/dev/webhook-receiver', { event: 'x' })).status).toBe(404);
      // sandbox tooling itself is there (SEED_SANDBOX=true)
      expect((await anon.rest('GET', '/sandbox/wallet/personas')).status).toBe(200);
    } finally {
      await svc.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
