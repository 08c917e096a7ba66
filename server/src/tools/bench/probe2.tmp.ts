import 'reflect-metadata';
import type { Ctx } from '../../common/context';
import { configFrom } from '../../config/config';
import { createTestDatabase } from '../../db/test-database';
import { createService } from '../../service';

const db = await createTestDatabase('probe');
const svc = await createService(
  configFrom({ PORT: '0', DATA_DIR: '/tmp/probe-data', DATABASE_URL: db.url, LOG_LEVEL: 'error' } as never),
  { workers: false },
);
const biz = await svc.tenancy.createBusiness('B');
const key = await svc.tenancy.issueApiKey(biz.id, 'sandbox');
const ctx: Ctx = {
  actor: { kind: 'api_key', apiKeyId: key.id, businessId: biz.id, environment: 'sandbox' },
  requestId: 'x',
  clock: svc.clock,
};
const wf = await svc.workflows.create(ctx, {
  name: 'W',
  steps: [{ primitive: 'identify', claims: ['given_name'] }],
});
await svc.workflows.publish(ctx, wf.id);
await svc.webhooks.configureEndpoint(ctx, 'http://127.0.0.1:9/x');
const drv = svc.ds.driver as unknown as { pool: { query: (...a: unknown[]) => void } };
const q = drv.pool.query.bind(drv.pool);
let explained = 0;
drv.pool.query = (sql: unknown, p: unknown, cb: unknown) => {
  if (explained < 1 && /^SELECT w\./.test(String(sql))) {
    explained++;
    q(`EXPLAIN ${sql}`, p, (e: unknown, r: unknown) =>
      console.log(e ?? (r as object[]).map((x) => JSON.stringify(x)).join('\n')),
    );
  }
  return q(sql, p, cb);
};
await svc.sessions.create(ctx, { workflow_id: wf.id });
await new Promise((r) => setTimeout(r, 300));
await svc.close();
await db.drop();
process.exit(0);
