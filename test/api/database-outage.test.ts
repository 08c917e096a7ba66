// A database that goes away under a running service (issue 7): every request answers 503
// service_unavailable with Retry-After instead of 500 internal_error, the outage is logged once (not a stack
// trace per request), and the service recovers by itself when the database is back, logging that once.
// The database is a MariaDB server of this suite's own, stopped and started again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../server/src/common/logger';
import { createService, type Service } from '../../server/src/service';
import { testConfig } from '../support/config';
import { Api, freePort, ownerSession, type TestService } from '../support/harness';
import { type ScratchMariaDb, scratchMariaDb } from '../support/scratch-mariadb';
import { publishWorkflow } from '../support/workflows';

interface Line {
  level: string;
  msg: string;
  fields?: Record<string, unknown>;
}

const lines: Line[] = [];
const logger: Logger = {
  debug: () => {},
  info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
  warn: (msg, fields) => lines.push({ level: 'warn', msg, fields }),
  error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
  child: () => logger,
};

let db: ScratchMariaDb;
let svc: Service;
let baseUrl: string;
let api: Api;
let workflowId: string;
let dataDir: string;

beforeAll(async () => {
  db = await scratchMariaDb();
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-outage-'));
  const config = testConfig({ port, dataDir, databaseUrl: db.url, env: { LOG_LEVEL: 'info' } }); // its logger sees what production logs
  // the real workers run, as in production: their polls must not log the outage again either
  svc = await createService(config, { logger });
  await svc.listen();
  const biz = await svc.tenancy.createBusiness('Outage GmbH');
  const key = await svc.tenancy.issueApiKey(biz.id, 'sandbox');
  // workflows are dashboard operations: the business owner signs in (the harness's path, on this service)
  const dashboard = await ownerSession({ svc } as TestService, biz.id, 'sandbox');
  api = new Api(baseUrl, key.key, dashboard);
  ({ workflowId } = await publishWorkflow(
    api,
    [{ primitive: 'identify', claims: ['given_name'] }],
    `${baseUrl}/dev/webhook-receiver`,
  ));
});

afterAll(async () => {
  await svc?.close().catch(() => {});
  await db?.destroy();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const gqlSession = (id: string) => api.gql('query($id: ID!) { session(id: $id) { id status } }', { id });

describe('the database goes away and comes back', () => {
  it('answers 503 service_unavailable with Retry-After while it is away, logs it once, and recovers', {
    timeout: 120_000,
  }, async () => {
    const before = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(before.status).toBe(201);
    const sessionId = before.body.id as string;
    lines.length = 0;

    await db.stop();

    const answers = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await api.rest('POST', '/v1/sessions', { workflow_id: workflowId }));
      answers.push(await api.rest('GET', `/v1/sessions/${sessionId}`));
      answers.push(await new Api(baseUrl).rest('POST', `/t/sessions/${sessionId}/open`));
    }
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.body.code).toBe('service_unavailable');
      expect(a.body.type).toBe(`${baseUrl}/errors/service_unavailable`);
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(a.body.retry_after).toBe(Number(a.headers.get('retry-after')));
    }
    // GraphQL: the API key is resolved before GraphQL runs, so the request is refused as a whole (503)
    const gql = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${api.apiKey}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(gql.status).toBe(503);
    expect(Number(gql.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await gql.json()) as { code: string }).code).toBe('service_unavailable');

    // once: one line for the outage, nothing per request (no "unhandled error" stack traces)
    expect(lines.filter((l) => l.msg.startsWith('database unavailable'))).toHaveLength(1);
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain('stack');

    await db.start();
    // the service comes back by itself: no restart, no call of ours
    const deadline = Date.now() + 30_000;
    let after = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    while (after.status !== 201 && Date.now() < deadline) {
      expect(after.status).toBe(503);
      await new Promise((r) => setTimeout(r, 200));
      after = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    }
    expect(after.status).toBe(201);
    expect((await api.rest('GET', `/v1/sessions/${sessionId}`)).status).toBe(200);
    expect((await gqlSession(sessionId)).data?.session?.id).toBe(sessionId);

    const recoveredBy = Date.now() + 5_000;
    while (!lines.some((l) => l.msg === 'database available again') && Date.now() < recoveredBy)
      await new Promise((r) => setTimeout(r, 100));
    expect(lines.filter((l) => l.msg === 'database available again')).toHaveLength(1);
    expect(lines.filter((l) => l.msg.startsWith('database unavailable'))).toHaveLength(1);
  });
});
