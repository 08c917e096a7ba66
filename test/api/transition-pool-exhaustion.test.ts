// The session transitions' own pool (ADR 0058 and its amendment: DB_TRANSITION_POOL_SIZE) runs out like the
// API's (ADR 0044): a wait for one of its connections is bounded, answers 503 service_unavailable with
// Retry-After, and /readyz names it (`transition_pool: pool_exhausted`) while the API's pool (`database`) is
// fine. Judged as pool-exhaustion.test.ts judges the API pool: every answer arrives, the sessions complete, no
// transaction is left open. MySQL only: the embedded engine has no transition pool (its transitions share the
// one connection that pool-exhaustion.test.ts covers).
import { beforeAll, describe, expect, it } from 'vitest';
import { batchedTransactionWithRetry } from '../../server/src/db/batched-transaction';
import { testEngine } from '../support/config';
import { Api, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { openTransactions, timed } from '../support/pool-probes';
import { SignerClient } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';

type Res = { status: number; body: { status?: string; code?: string } };

describe.skipIf(testEngine() !== 'mysql')('a transition pool of 1 connection', () => {
  const page = identifyFixture({
    workers: false,
    label: 'txpool1',
    env: { DB_POOL_SIZE: '4', DB_TRANSITION_POOL_SIZE: '1', DB_ACQUIRE_TIMEOUT_MS: '2000' },
    webhook: new WebhookReceiver(),
    claims: ['given_name'],
  });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  beforeAll(() => ({ t, api, workflowId } = page));

  async function created(): Promise<{ id: string; signer: SignerClient }> {
    const c = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(c.status).toBe(201);
    return { id: c.body.id as string, signer: new SignerClient(t.baseUrl, c.body.id) };
  }

  it('answers 12 Starts and then 12 wallet responses sent at once, completing every session', async () => {
    const sessions = await Promise.all(Array.from({ length: 12 }, () => created()));
    const started = await Promise.all(sessions.map((s) => timed(s.signer.start() as Promise<Res>)));
    for (const s of started) expect(s.value.status).toBe(200);

    const prepared = [];
    for (const s of sessions) {
      const wr = await s.signer.walletRequest();
      expect(wr.status).toBe(200);
      const response = await t.svc.wallet.respond({
        persona: 'adult',
        request: wr.body.request,
        origin: t.baseUrl,
      });
      prepared.push(() => s.signer.submit(wr.body.request_id, response) as Promise<Res>);
    }
    const answered = await Promise.all(prepared.map((send) => timed(send())));
    for (const a of answered)
      expect({ status: a.value.status, code: a.value.body.code, session: a.value.body.status }).toEqual({
        status: 200,
        code: undefined,
        session: 'completed',
      });
    for (const s of sessions)
      expect((await api.rest('GET', `/v1/sessions/${s.id}`)).body.status).toBe('completed');

    expect((await fetch(`${t.baseUrl}/readyz`)).status).toBe(200);
    expect(await openTransactions(t.db.name)).toBe(0);
  });

  it('while its connection is held: Start answers 503 with Retry-After, /readyz names the pool, both recover', async () => {
    const { id, signer } = await created();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    // a transition's transaction that keeps the pool's only connection, as a slow one would
    const holder = batchedTransactionWithRetry(t.svc.ds, async (m) => {
      await m.query('SELECT 1');
      await held;
    });
    try {
      await new Promise((r) => setTimeout(r, 50));
      const start = await timed(
        fetch(`${t.baseUrl}/t/sessions/${id}/start`, { method: 'POST' }).then(async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          body: await r.json(),
        })),
      );
      expect(start.value).toMatchObject({
        status: 503,
        retryAfter: '1',
        body: { code: 'service_unavailable', retry_after: 1 },
      });
      expect(start.ms).toBeLessThan(8000);
      // reads and creates use the API's pool: they still answer
      expect((await api.rest('GET', `/v1/sessions/${id}`)).status).toBe(200);
      const ready = await timed(
        fetch(`${t.baseUrl}/readyz`).then(async (r) => ({ status: r.status, body: await r.json() })),
      );
      expect(ready.value).toMatchObject({
        status: 503,
        body: { code: 'not_ready', checks: { database: 'ok', transition_pool: 'pool_exhausted' } },
      });
      expect(ready.ms).toBeLessThan(5000);
    } finally {
      release();
      await holder;
    }
    const ready = await fetch(`${t.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(
      ((await ready.json()) as { checks: Record<string, string> }).checks.transition_pool,
    ).toBeUndefined();
    expect((await signer.start()).status).toBe(200);
    expect(await openTransactions(t.db.name)).toBe(0);
  });
});
