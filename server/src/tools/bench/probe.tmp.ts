import 'reflect-metadata';
import mysql from 'mysql2/promise';
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
const ids: string[] = [];
for (let i = 0; i < 20; i++) ids.push((await svc.sessions.create(ctx, { workflow_id: wf.id })).session.id);
const drv = svc.ds.driver as unknown as { pool: { query: (...a: unknown[]) => void } };
const q = drv.pool.query.bind(drv.pool);
let explained = 0;
drv.pool.query = (sql: unknown, p: unknown, cb: unknown) => {
  if (explained < 3 && /^SELECT (w|s)\./.test(String(sql))) {
    explained++;
    q(`EXPLAIN ${sql}`, p, (e: unknown, r: unknown) =>
      console.log(e ?? (r as object[]).map((x) => JSON.stringify(x)).join('\n')),
    );
  }
  return q(sql, p, cb);
};
const pool = mysql.createPool({ uri: db.url, connectionLimit: 20 });
async function conc(label: string, n: number, fn: (i: number) => Promise<unknown>) {
  let i = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (i < n) await fn(i++);
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  console.log(
    `${label.padEnd(20)} ${((n / ms) * 1000).toFixed(0)} /s, cpu ${((cpu.user + cpu.system) / n).toFixed(0)} us/op`,
  );
}
for (let r = 0; r < 2; r++) {
  await conc('raw pool select', 3000, (i) => pool.query('SELECT * FROM session WHERE id = ?', [ids[i % 20]]));
  await conc('authenticate', 3000, () => svc.tenancy.authenticate(key.key));
  await conc('sessions.get', 3000, (i) => svc.sessions.get(ctx, ids[i % 20] as string));
  await conc('sessions.create', 1000, () => svc.sessions.create(ctx, { workflow_id: wf.id }));
  await conc('create + key', 1000, (i) => svc.sessions.create(ctx, { workflow_id: wf.id }, `k-${r}-${i}`));
}
await pool.end();
await svc.close();
await db.drop();
process.exit(0);
