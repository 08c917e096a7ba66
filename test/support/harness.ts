// Black-box harness: a real service (real MariaDB database of its own, real HTTP on a free port), plus
// factories that create tenants through the public surfaces.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../server/src/app/test-database';
import type { Clock } from '../../server/src/common/clock';
import { strictViolations } from '../../server/src/db/strict-connection';
import { DashboardUserEntity } from '../../server/src/modules/accounts/accounts.entities';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { createService, type Service } from '../../server/src/service';
import { freePort } from '../../server/src/tools/free-port';
import { testConfig, testEngine } from './config';
import { publishWorkflow } from './workflows';

/**
 * Response bodies in black-box tests are arbitrary JSON that each test asserts field by field.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; typing every answer would only restate the assertions
export type Json = any;

export { freePort };

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
    /** Host of BASE_URL (default 127.0.0.1); passkey tests use `localhost` (WebAuthn needs a domain RP ID). */
    host?: string;
    /** More configuration variables (e.g. OTEL_EXPORTER_OTLP_ENDPOINT). */
    env?: Record<string, string>;
    /** Host of HOSTED_URL (same port); unset: HOSTED_URL = BASE_URL. Another host is another origin. */
    hostedHost?: string;
  } = {},
): Promise<TestService> {
  const embedded = testEngine() === 'embedded';
  const db: TestDatabase = embedded
    ? { url: '', name: 'embedded', drop: async () => {} }
    : await createTestDatabase(opts.label ?? 'e2e', { migrated: true });
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const baseUrl = `http://${opts.host ?? '127.0.0.1'}:${port}`;
  const config = testConfig({
    port,
    dataDir,
    databaseUrl: embedded ? undefined : db.url,
    baseUrl,
    env: {
      HOSTED_URL: opts.hostedHost ? `http://${opts.hostedHost}:${port}` : undefined,
      RATE_LIMIT: opts.rateLimit,
      SMTP_URL: opts.smtpUrl,
      ...opts.env,
    },
  });
  const svc = await createService(config, { clock: opts.clock, workers: opts.workers });
  await svc.listen();
  const started: TestService = {
    svc,
    baseUrl,
    db,
    async stop() {
      running.delete(baseUrl);
      // a second connection asked for inside a transaction fails the suite even when the code swallowed it
      const nested = strictViolations(svc.ds);
      await svc.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (nested.length > 0)
        throw new Error(
          `${nested.length} nested connection request(s) in transactions:\n${nested.join('\n\n')}`,
        );
    },
  };
  running.set(baseUrl, started);
  return started;
}

/** Running test services by base URL, so an Api built from an API key can find its dashboard user. */
const running = new Map<string, TestService>();

/** What a signed-in dashboard browser holds: the session cookie and its CSRF token, and the environment. */
export interface DashboardCredentials {
  cookie: string;
  csrfToken: string;
  environment: 'sandbox' | 'production';
}

/**
 * Signs in the business's owner (created on first use, through the accounts service: the operator's job)
 * and returns the dashboard credentials for an environment.
 */
export async function ownerSession(
  t: TestService,
  businessId: string,
  environment: 'sandbox' | 'production' = 'sandbox',
): Promise<DashboardCredentials> {
  let owner = await t.svc.ds.getRepository(DashboardUserEntity).findOneBy({ businessId, role: 'owner' });
  if (!owner) {
    const u = await t.svc.accounts.members.createUserDirect(
      businessId,
      `owner-${businessId.slice(4, 16)}@example.com`,
      'owner',
      'test-harness',
    );
    owner = await t.svc.ds.getRepository(DashboardUserEntity).findOneByOrFail({ id: u.id });
  }
  const s = await t.svc.accounts.signIn.signInDirect(owner.id);
  return { cookie: `svc_dashboard=${s.token}`, csrfToken: s.csrfToken, environment };
}

/**
 * A business with a sandbox API key and a signed-in owner, created through the services (the operator's and
 * the dashboard's job). `new Api(baseUrl, apiKey)` then speaks /v1 with the key and dashboard GraphQL as the
 * owner (see Api.gql).
 */
/** How many of a business's sessions hold an Idempotency-Key (the reservation is the row's idem_key: ADR 0024). */
export const sessionsHoldingAKey = (t: TestService, businessId: string): Promise<number> =>
  t.svc.ds
    .getRepository(SessionEntity)
    .createQueryBuilder('s')
    .where('s.business_id = :businessId AND s.idem_key IS NOT NULL', { businessId })
    .getCount();

export async function createBusiness(t: TestService, name = 'Acme GmbH') {
  const biz = await t.svc.tenancy.createBusiness(name);
  const sandbox = await t.svc.tenancy.issueApiKey(biz.id, 'sandbox');
  const dashboard = await ownerSession(t, biz.id, 'sandbox');
  return { businessId: biz.id, apiKey: sandbox.key, dashboard };
}

export class Api {
  /**
   * `dashboard`: the credentials GraphQL requests carry. Left undefined, an Api with an API key of a running
   * test service signs in that key's business owner in the key's environment on first use; `null` sends
   * GraphQL with the API key instead (the old access, which dashboard operations refuse).
   */
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string,
    private dashboard?: DashboardCredentials | null,
  ) {}

  /** Whether this Api signed its owner in by itself (and may do so again when that session ends). */
  private autoSignedIn = false;

  private async dashboardCredentials(): Promise<DashboardCredentials | null> {
    if (this.dashboard !== undefined) return this.dashboard;
    this.autoSignedIn = true;
    const t = running.get(this.baseUrl);
    if (!this.apiKey || !t) return null;
    const actor = await t.svc.tenancy.authenticate(this.apiKey).catch(() => null);
    if (actor?.kind !== 'api_key') return null;
    this.dashboard = await ownerSession(t, actor.businessId, actor.environment);
    return this.dashboard;
  }

  /** The headers of a dashboard GraphQL request (cookie, CSRF token, environment), or the API key. */
  async gqlHeaders(): Promise<Record<string, string>> {
    const d = await this.dashboardCredentials();
    if (d) return { Cookie: d.cookie, 'X-CSRF-Token': d.csrfToken, 'X-Environment': d.environment };
    return this.apiKey ? { Authorization: `Bearer ${this.apiKey}` } : {};
  }

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
    const send = async () => {
      const res = await fetch(`${this.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(await this.gqlHeaders()) },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as { data?: Json; errors?: Json[] };
    };
    const out = await send();
    // Suites that move a ManualClock by hours outlive the owner's dashboard session (12 idle hours): the
    // harness signs the owner in again, as a person would.
    if (this.autoSignedIn && out.errors?.[0]?.extensions?.code === 'unauthenticated') {
      this.dashboard = undefined;
      return send();
    }
    return out;
  }
}

export const IDENTIFY_CLAIMS = ['given_name', 'family_name', 'birth_date', 'nationality', 'document_status'];

/** Creates and publishes an identify workflow and configures the webhook endpoint, over GraphQL. */
export async function setUpIdentifyWorkflow(
  api: Api,
  webhookUrl: string,
  claims = IDENTIFY_CLAIMS,
  apiOnly = true,
) {
  const { workflowId, webhookSecret } = await publishWorkflow(
    api,
    [{ primitive: 'identify', claims }],
    webhookUrl,
    'KYC identify',
    apiOnly,
  );
  return { workflowId, webhookSecret: webhookSecret as string };
}
