// Real headless Chromium (the system package), driven by playwright-core. Nothing is downloaded.
import { type Browser, chromium } from 'playwright-core';
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
