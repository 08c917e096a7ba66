// The setup the hosted page's suites share (signer-page-reads, signer-session, boundaries, binding-cookie,
// cross-device, session-lifecycle, the pool and Chromium suites and others): a test service, an optional webhook
// receiver, one business with a sandbox API key, and a published identify workflow; `newSession` creates a session
// of it over the API (201 asserted). Everything goes through the public surfaces, as the suites did by hand before
// (the review's duplicates D1-D8, and the same setup found by `duplicates` over test/). A suite keeps only what is
// particular to it:
//
//   const page = identifyFixture({ label: 'x', workers: false }); // its beforeAll starts, its afterAll stops
//   let t: TestService;
//   beforeAll(() => ({ t } = page)); // where the test bodies name `t`, `api`, `workflowId` as before
//
// Hooks: the fixture's beforeAll runs before the suite's own (registered first), its afterAll after the suite's
// (vitest runs afterAll hooks in reverse), so a suite's teardown still sees a running service. A suite that needs
// more businesses on one service calls identifyBusiness(t, ...); startIdentifyService is the whole setup for a
// suite that starts it itself. Housekeeping only (no ADR): no assertion moved here but the 201 of newSession,
// which every suite that wrote it had.
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
/** The service's own development receiver, which records deliveries for the dashboard's webhook log. */
export const DEV_RECEIVER = (baseUrl: string) => `${baseUrl}/dev/webhook-receiver`;

/** A business of a running service with a published identify workflow (identifyBusiness). */
export interface IdentifyBusinessOptions {
  /** Where the workflow's webhooks go: a URL, or a URL made from the service's base URL (its /dev/webhook-receiver). */
  webhook?: string | ((baseUrl: string) => string);
  /** The identify step's claims (default IDENTIFY_CLAIMS). */
  claims?: string[];
  /** The business's name (default createBusiness's). */
  businessName?: string;
}

export interface IdentifyBusiness {
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
}

/** Creates a business on `t` (sandbox key, signed-in owner) and publishes its identify workflow, over GraphQL. */
export async function identifyBusiness(
  t: TestService,
  opts: IdentifyBusinessOptions = {},
): Promise<IdentifyBusiness> {
  const { webhook = NO_RECEIVER, claims = IDENTIFY_CLAIMS, businessName } = opts;
  const biz = await createBusiness(t, businessName);
  const api = new Api(t.baseUrl, biz.apiKey);
  const hook = typeof webhook === 'function' ? webhook(t.baseUrl) : webhook;
  const { workflowId, webhookSecret } = await setUpIdentifyWorkflow(api, hook, claims);
  return {
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
  };
}

export interface IdentifyServiceOptions
  extends NonNullable<Parameters<typeof startTestService>[0]>,
    Omit<IdentifyBusinessOptions, 'webhook'> {
  /** As IdentifyBusinessOptions, or a receiver started here (after the service) and stopped by stop(). */
  webhook?: IdentifyBusinessOptions['webhook'] | WebhookReceiver;
}

export interface IdentifyService extends IdentifyBusiness {
  t: TestService;
  /** Stops the receiver (when given one) and then the service. */
  stop(): Promise<void>;
}

/** Starts a test service (and the receiver, when given one) with one identifyBusiness. */
export async function startIdentifyService(opts: IdentifyServiceOptions = {}): Promise<IdentifyService> {
  const { webhook, claims, businessName, ...serviceOpts } = opts;
  const t = await startTestService(serviceOpts);
  const receiver = typeof webhook === 'object' ? webhook : undefined;
  const stop = async () => {
    await receiver?.stop();
    await t.stop();
  };
  try {
    if (receiver) await receiver.start();
    const hook = receiver ? receiver.url : (webhook as IdentifyBusinessOptions['webhook']);
    return { t, stop, ...(await identifyBusiness(t, { webhook: hook, claims, businessName })) };
  } catch (e) {
    // a setup that failed halfway still releases its database and port (the suite's afterAll has no handle)
    await stop().catch(() => {});
    throw e;
  }
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
