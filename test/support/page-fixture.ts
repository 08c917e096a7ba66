// The setup the hosted page's suites share (signer-page-reads, signer-session, boundaries, binding-cookie,
// cross-device, session-lifecycle and others): a test service, an optional webhook receiver, one business
// with a sandbox API key, and a published identify workflow; `newSession` creates a session of it over the
// API (201 asserted). Everything goes through the public surfaces, as the suites did by hand before (the
// review's duplicates D1-D8). A suite keeps only what is particular to it:
//
//   const page = identifyFixture({ label: 'x', workers: false }); // its beforeAll starts, its afterAll stops
//   let t: TestService;
//   beforeAll(() => ({ t } = page)); // where the test bodies name `t`, `api`, `workflowId` as before
//
// startIdentifyService is the same setup for a suite that starts it itself (e.g. inside its own beforeAll).
import { afterAll, beforeAll, expect } from 'vitest';
import {
  Api,
  createBusiness,
  type DashboardCredentials,
  IDENTIFY_CLAIMS,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from './harness';
import type { WebhookReceiver } from './webhook-receiver';

/** A webhook URL nothing listens on (deliveries fail; suites without workers never send them). */
export const NO_RECEIVER = 'http://127.0.0.1:9/hooks';

export interface IdentifyServiceOptions extends NonNullable<Parameters<typeof startTestService>[0]> {
  /**
   * Where the workflow's webhooks go: a URL, a URL made from the service's base URL (e.g. its
   * /dev/webhook-receiver), or a receiver started here (after the service) and stopped by stop().
   */
  webhook?: string | ((baseUrl: string) => string) | WebhookReceiver;
  /** The identify step's claims (default IDENTIFY_CLAIMS). */
  claims?: string[];
  /** The business's name (default createBusiness's). */
  businessName?: string;
}

export interface IdentifyService {
  t: TestService;
  /** The business's sandbox API key (REST) whose GraphQL signs its owner in on first use. */
  api: Api;
  apiKey: string;
  businessId: string;
  /** The owner's dashboard credentials (createBusiness). */
  dashboard: DashboardCredentials;
  workflowId: string;
  webhookSecret: string;
  /** POST /v1/sessions of the workflow with the key: asserts 201 and returns the session's id. */
  newSession(): Promise<string>;
  /** Stops the receiver (when given one) and then the service. */
  stop(): Promise<void>;
}

export async function startIdentifyService(opts: IdentifyServiceOptions = {}): Promise<IdentifyService> {
  const { webhook = NO_RECEIVER, claims = IDENTIFY_CLAIMS, businessName, ...serviceOpts } = opts;
  const t = await startTestService(serviceOpts);
  const receiver = typeof webhook === 'object' ? webhook : undefined;
  const stop = async () => {
    await receiver?.stop();
    await t.stop();
  };
  try {
    if (receiver) await receiver.start();
    const biz = await createBusiness(t, businessName);
    const api = new Api(t.baseUrl, biz.apiKey);
    const hook = receiver
      ? receiver.url
      : typeof webhook === 'function'
        ? webhook(t.baseUrl)
        : (webhook as string);
    const { workflowId, webhookSecret } = await setUpIdentifyWorkflow(api, hook, claims);
    return fixture(t, api, biz, workflowId, webhookSecret, stop);
  } catch (e) {
    // a setup that failed halfway still releases its database and port (the suite's afterAll has no handle)
    await stop().catch(() => {});
    throw e;
  }
}

function fixture(
  t: TestService,
  api: Api,
  biz: Awaited<ReturnType<typeof createBusiness>>,
  workflowId: string,
  webhookSecret: string,
  stop: () => Promise<void>,
): IdentifyService {
  return {
    t,
    api,
    apiKey: biz.apiKey,
    businessId: biz.businessId,
    dashboard: biz.dashboard,
    workflowId,
    webhookSecret,
    async newSession() {
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      expect(created.status).toBe(201);
      return created.body.id as string;
    },
    stop,
  };
}

/**
 * Registers the describe block's beforeAll (startIdentifyService) and afterAll (stop) and returns the fixture,
 * whose fields are set once that beforeAll ran (read them in hooks and tests, not while collecting).
 */
export function identifyFixture(opts: IdentifyServiceOptions = {}, hookTimeout?: number): IdentifyService {
  // filled in by the beforeAll; newSession bound early so a suite may write `const newSession = page.newSession`
  const page = {
    newSession: () => (page.t ? page.newSession() : Promise.reject(early())),
  } as IdentifyService;
  const early = () => new Error('identifyFixture: read before its beforeAll ran');
  let ready: IdentifyService | undefined;
  beforeAll(async () => {
    ready = await startIdentifyService(opts);
    Object.assign(page, ready);
  }, hookTimeout);
  afterAll(async () => ready?.stop());
  return page;
}
