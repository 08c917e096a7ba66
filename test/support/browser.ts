// Real headless Chromium (the system package), driven by playwright-core. Nothing is downloaded.
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Clock } from '../../server/src/common/clock';
import { startTestService, type TestService } from './harness';
import { startSmtpServer, type TestSmtpServer } from './smtp';
import type { WebhookReceiver } from './webhook-receiver';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-dev-shm-usage',
    ],
  });
}

/** The fixture of every Chromium suite: a real service, the business's webhook receiver, and a browser. */
export async function startE2E(
  label: string,
  receiver: WebhookReceiver,
): Promise<{ t: TestService; browser: Browser }> {
  const t = await startTestService({ label });
  await receiver.start();
  return { t, browser: await launchChromium() };
}

export async function stopE2E(parts: { t?: TestService; browser?: Browser; receiver: WebhookReceiver }) {
  await parts.browser?.close();
  await parts.receiver.stop();
  await parts.t?.stop();
}

/** What a dashboard suite drives: the service, its mail, and a desktop-sized page with a passkey device. */
export interface DashboardE2E {
  t: TestService;
  smtp: TestSmtpServer;
  browser: Browser;
  page: Page;
}

/**
 * The fixture of the dashboard suites: a real SMTP server the service mails through, the business's webhook
 * receiver, the service on http://localhost (a secure context with a domain RP ID, which WebAuthn needs), and
 * a 1280 px page whose browser context has a virtual authenticator. `clock` and `workers` go to the service as
 * in startTestService. If any part fails to start, the parts already started are stopped.
 */
export async function startDashboardE2E(opts: {
  label: string;
  receiver: WebhookReceiver;
  clock?: Clock;
  workers?: boolean;
}): Promise<DashboardE2E> {
  const parts: Partial<DashboardE2E> = {};
  try {
    parts.smtp = await startSmtpServer();
    await opts.receiver.start();
    parts.t = await startTestService({
      label: opts.label,
      host: 'localhost',
      smtpUrl: parts.smtp.url,
      clock: opts.clock,
      workers: opts.workers,
    });
    parts.browser = await launchChromium();
    const context = await parts.browser.newContext({ viewport: { width: 1280, height: 900 } });
    parts.page = await context.newPage();
    await addVirtualAuthenticator(context, parts.page);
    return parts as DashboardE2E;
  } catch (e) {
    await stopDashboardE2E({ ...parts, receiver: opts.receiver });
    throw e;
  }
}

export async function stopDashboardE2E(parts: Partial<DashboardE2E> & { receiver: WebhookReceiver }) {
  await parts.browser?.close();
  await parts.t?.stop();
  await parts.smtp?.stop();
  await parts.receiver.stop();
}

/**
 * A virtual platform authenticator (CTAP2, resident keys, user verification) on the page's browser context, as
 * a passkey-capable device would be: WebAuthn ceremonies in the page then complete without a prompt.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

/**
 * What a person does on a sign step before the page offers the wallet (ADR 0029): scrolls each document, once
 * it is on the page, to its end, and waits until the page has reported it shown. No-op on other steps.
 */
export async function showDocumentsToEnd(page: Page): Promise<void> {
  const docs = page.locator('article.doc-view');
  const n = await docs.count();
  for (let i = 0; i < n; i++) {
    const end = docs.nth(i).getByTestId('document-end');
    await end.filter({ hasText: /\S/ }).waitFor({ timeout: 20_000 });
    await end.scrollIntoViewIfNeeded();
    await docs.nth(i).locator('[data-testid="document-end"][data-shown="true"]').waitFor({ timeout: 10_000 });
  }
}
