// The webhook endpoint screen in real Chromium (issue 20): the saved URL stays in the field (after the save
// and after a reload), "Rotate signing secret" sits in its own section apart from "Save endpoint", and the
// delivery log refreshes itself: a delivery queued elsewhere appears without a click, and a URL saved elsewhere
// never overwrites one being typed. axe-core finds nothing
// serious or critical; each screen is captured at 390 px and 1280 px.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkScreen } from '../support/axe';
import { type SignedInDashboard, signedInDashboard } from '../support/dashboard';
import type { Api, TestService } from '../support/harness';
import { WebhookReceiver } from '../support/webhook-receiver';

const here = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = process.env.SHOTS_DIR ?? path.join(here, '__screens__', 'dashboard-webhooks');
const check = (page: Page, name: string) => checkScreen(page, name, SHOTS);

describe('dashboard webhook endpoint in Chromium', () => {
  let dash: SignedInDashboard | undefined;
  let t: TestService;
  let page: Page;
  let api: Api;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await receiver.start();
    dash = await signedInDashboard({ label: 'dash-webhooks-e2e', business: 'Hooks GmbH', workers: true });
    ({ t, page, api } = dash);
  }, 120_000);

  afterAll(async () => {
    await dash?.stop();
    await receiver.stop();
  });

  it('keeps the saved URL, sets rotation apart, and refreshes the delivery log by itself', async () => {
    await page.goto(`${t.baseUrl}/dashboard/webhooks`);
    await page.getByText('No endpoint in sandbox yet.').waitFor();
    const field = page.getByLabel('Endpoint URL', { exact: true });
    await field.fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.getByLabel('Signing secret (sandbox)').waitFor();
    expect(await field.inputValue()).toBe(receiver.url);
    await page.reload();
    await page.locator('dd code').getByText(receiver.url).waitFor();
    expect(await field.inputValue()).toBe(receiver.url);

    // rotation in its own section with its own heading; Save is not in it
    const rotate = page.getByTestId('rotate-section');
    await rotate.getByRole('heading', { name: 'Signing secret' }).waitFor();
    await rotate.getByRole('button', { name: 'Rotate signing secret' }).waitFor();
    expect(await rotate.getByRole('button', { name: 'Save endpoint' }).count()).toBe(0);
    await check(page, 'webhooks-saved');

    // a delivery queued outside this page shows up in the log without a click
    await page.getByText('No deliveries yet.').waitFor();
    const sent = await api.gql('mutation { sendTestWebhook { deliveryId } }');
    expect(sent.errors).toBeUndefined();
    await page.getByText(sent.data.sendTestWebhook.deliveryId).waitFor({ timeout: 15_000 });
    expect(await field.inputValue()).toBe(receiver.url);

    // after the test event, with its attempts and a request body open, nothing scrolls sideways on a phone
    // (issue 29)
    await page.getByRole('button', { name: /^1 attempt of whtest_/ }).click();
    await page.getByRole('button', { name: /^Show request body of the attempt/ }).click();
    await page.getByTestId('request-body').waitFor();
    await check(page, 'webhooks-after-test-event');

    // a teammate saves another URL while one is being typed here: the refreshed screen shows theirs as the
    // saved one, and the field keeps what is being typed (ADR 0069); this page's save then wins
    const typed = `${receiver.url}?typed-here`;
    await field.fill(typed);
    const theirs = `${receiver.url}?from-a-teammate`;
    const other = await api.gql(`mutation { configureWebhookEndpoint(url: "${theirs}") { secret } }`);
    expect(other.errors).toBeUndefined();
    await page.getByRole('button', { name: 'Refresh log' }).click();
    await page.locator('dd code').getByText(theirs).waitFor();
    expect(await field.inputValue()).toBe(typed);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await page.locator('dd code').getByText(typed).waitFor();
    expect(await field.inputValue()).toBe(typed);
  }, 120_000);
});
