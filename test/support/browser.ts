// Real headless Chromium (the system package), driven by playwright-core. Nothing is downloaded.
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startTestService, type TestService } from './harness';
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
