// A dashboard browser as an integrator's test sees it: the session cookie from a sign-in answer, its CSRF
// token, and the environment it acts in. Talks to /auth and to GraphQL over real HTTP.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from './browser';
import { TSX_ENV } from './embedded-process';
import { Api, createBusiness, type Json, startTestService, type TestService } from './harness';
import { tsNode } from './script-bundles';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The `svc_dashboard` cookie set by a sign-in answer, and its attributes. */
export function sessionCookie(res: Response): { value: string; attributes: string } | null {
  const raw = res.headers.getSetCookie().find((c) => c.startsWith('svc_dashboard='));
  if (!raw) return null;
  const [pair, ...attrs] = raw.split(';');
  return { value: (pair as string).slice('svc_dashboard='.length), attributes: attrs.join(';').trim() };
}

/** The token of a link in a mail (`…#token=<token>`). */
export function linkToken(text: string | undefined): string {
  const m = /#token=([\w-]+)/.exec(text ?? '');
  if (!m) throw new Error(`no link in mail: ${text}`);
  return m[1] as string;
}

export class DashboardClient {
  constructor(
    readonly baseUrl: string,
    readonly cookie: string,
    readonly csrfToken: string,
    readonly environment: 'sandbox' | 'production' = 'sandbox',
  ) {}

  /** Signs in from a /auth answer (invitation accept, email link, passkey). */
  static async from(baseUrl: string, res: Response): Promise<DashboardClient> {
    const body = (await res.json()) as Json;
    const c = sessionCookie(res);
    if (!c) throw new Error(`no session cookie (status ${res.status}): ${JSON.stringify(body)}`);
    return new DashboardClient(baseUrl, c.value, body.csrf_token);
  }

  in(environment: 'sandbox' | 'production'): DashboardClient {
    return new DashboardClient(this.baseUrl, this.cookie, this.csrfToken, environment);
  }

  async gql(
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): Promise<{ status: number; data?: Json; errors?: Json[]; code?: string }> {
    const res = await fetch(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Cookie: `svc_dashboard=${this.cookie}`,
        'X-CSRF-Token': this.csrfToken,
        'X-Environment': this.environment,
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await res.json()) as Json;
    return { status: res.status, ...body, code: body.errors?.[0]?.extensions?.code ?? body.code };
  }

  async rest(method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${this.baseUrl}${p}`, {
      method,
      headers: {
        Cookie: `svc_dashboard=${this.cookie}`,
        'X-CSRF-Token': this.csrfToken,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  }
}

/** POSTs JSON to a public /auth route; returns the raw Response (cookie included). */
export const authPost = (baseUrl: string, p: string, body: unknown): Promise<Response> =>
  fetch(`${baseUrl}${p}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Runs `pnpm operator <args>` (the real CLI, in its own process) against a service's database and mail. */
export function runOperator(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      tsNode('server/src/tools/operator.ts', args).args,
      { cwd: REPO_ROOT, env: { ...process.env, ...TSX_ENV, LOG_LEVEL: 'error', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * What a dashboard Chromium suite starts with: its own service, a business with a sandbox API key, and a
 * 1280 px page signed in as the business's owner (the HttpOnly session cookie, as a sign-in answer sets it).
 * Nothing is shared between calls: each suite (and each call) gets its own service, database, browser and
 * context, and the page starts in the sandbox (the environment switch lives in the page's localStorage of its
 * own context). `stop()` closes what was started, in reverse order, and tolerates parts that never started.
 */
export interface SignedInDashboard {
  t: TestService;
  businessId: string;
  /** /v1 with the sandbox API key, dashboard GraphQL as the owner. */
  api: Api;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  stop(): Promise<void>;
}

export async function signedInDashboard(opts: {
  label: string;
  business: string;
  workers?: boolean;
  /** SMTP_URL of the service (a startSmtpServer() url); unset: mail goes to files. */
  smtpUrl?: string;
  /** Browser context options (e.g. permissions for the clipboard). */
  context?: BrowserContextOptions;
}): Promise<SignedInDashboard> {
  let t: TestService | undefined;
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    await t?.stop();
  };
  try {
    t = await startTestService({ label: opts.label, workers: opts.workers ?? false, smtpUrl: opts.smtpUrl });
    const biz = await createBusiness(t, opts.business);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...opts.context });
    const token = biz.dashboard.cookie.replace(/^svc_dashboard=/, '');
    await context.addCookies([{ name: 'svc_dashboard', value: token, url: t.baseUrl }]);
    const page = await context.newPage();
    return {
      t,
      businessId: biz.businessId,
      api: new Api(t.baseUrl, biz.apiKey),
      browser,
      context,
      page,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
