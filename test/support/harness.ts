// Black-box harness: a real service (real MariaDB database of its own, real HTTP on a free port), plus
// factories that create tenants through the public surfaces.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../../server/src/common/clock';
import { configFrom } from '../../server/src/config/config';
import { createTestDatabase, type TestDatabase } from '../../server/src/db/test-database';
import { createService, type Service } from '../../server/src/service';
import { publishWorkflow } from './workflows';

/**
 * Response bodies in black-box tests are arbitrary JSON that each test asserts field by field.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; typing every answer would only restate the assertions
export type Json = any;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface TestService {
  svc: Service;
  baseUrl: string;
  db: TestDatabase;
  stop(): Promise<void>;
}

export async function startTestService(
  opts: {
    clock?: Clock;
    workers?: boolean;
    label?: string;
    /** RATE_LIMIT per API key; suites default to a budget they never reach (rate-limit.test.ts sets it). */
    rateLimit?: string;
    /** SMTP_URL (e.g. a startSmtpServer() url); unset: mail goes to .eml files under the data dir. */
    smtpUrl?: string;
  } = {},
): Promise<TestService> {
  const db = await createTestDatabase(opts.label ?? 'e2e');
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = configFrom({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    BASE_URL: baseUrl,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    RATE_LIMIT: opts.rateLimit ?? '100000/10',
    SMTP_URL: opts.smtpUrl,
  } as never);
  const svc = await createService(config, { clock: opts.clock, workers: opts.workers });
  await svc.listen();
  return {
    svc,
    baseUrl,
    db,
    async stop() {
      await svc.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A business with a sandbox API key, created through the tenancy service (the dashboard's job). */
export async function createBusiness(t: TestService, name = 'Acme GmbH') {
  const biz = await t.svc.tenancy.createBusiness(name);
  const sandbox = await t.svc.tenancy.issueApiKey(biz.id, 'sandbox');
  return { businessId: biz.id, apiKey: sandbox.key };
}

export class Api {
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string,
  ) {}

  async rest(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${this.baseUrl}${p}`, {
      method,
      headers: {
        ...(this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: Json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, headers: res.headers, body: json };
  }

  async gql(
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<{ data?: Json; errors?: Json[] }> {
    const res = await fetch(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: unknown; errors?: unknown[] } as never;
  }
}

export const IDENTIFY_CLAIMS = ['given_name', 'family_name', 'birth_date', 'nationality', 'document_status'];

/** Creates and publishes an identify workflow and configures the webhook endpoint, over GraphQL. */
export async function setUpIdentifyWorkflow(api: Api, webhookUrl: string, claims = IDENTIFY_CLAIMS) {
  const { workflowId, webhookSecret } = await publishWorkflow(
    api,
    [{ primitive: 'identify', claims }],
    webhookUrl,
    'KYC identify',
  );
  return { workflowId, webhookSecret: webhookSecret as string };
}
