// The wallet shows who asks and why (issue 19, ADR 0040), in real Chromium: in registrar mode two businesses
// each start a session; the sandbox wallet reads the signed request it was handed and its consent card shows
// that business's display name and purpose (from the request's registration certificate, not the page) and
// the service as intermediary, for the same-device flow and for "Open in sandbox wallet" on the cross-device
// code; Share completes the step, Decline sends nothing; a request carrying another business's certificate is
// refused on the page. Screenshots at 390 and 1280 px (one in German), axe.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeFindings } from '../support/axe';
import { startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, type Json, setUpIdentifyWorkflow, type TestService } from '../support/harness';
import { SignerClient } from '../support/signer';
import { WebhookReceiver } from '../support/webhook-receiver';

const SHOTS = process.env.WALLET_SHOTS_DIR ?? path.join(os.tmpdir(), 'wallet-consent-shots');
const SET_RP = 'mutation($i: RelyingPartyInput!) { setRelyingParty(input: $i) { displayName } }';

describe('the sandbox wallet shows the relying party from the request (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  const receiver = new WebhookReceiver();
  const rp = {
    A: { displayName: 'Acme Lending', purpose: 'Check your age before a loan offer' },
    B: { displayName: 'Beta Bank', purpose: 'Open a savings account' },
  };
  const biz = {} as Record<'A' | 'B', { api: Api; workflowId: string; businessId: string }>;

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_wallet_consent', receiver));
    for (const k of ['A', 'B'] as const) {
      const { apiKey, businessId } = await createBusiness(t, `Business ${k} Ltd`);
      const api = new Api(t.baseUrl, apiKey);
      expect((await api.gql(SET_RP, { i: rp[k] })).data?.setRelyingParty).toEqual({
        displayName: rp[k].displayName,
      });
      biz[k] = { api, businessId, workflowId: (await setUpIdentifyWorkflow(api, receiver.url)).workflowId };
    }
    await t.svc.verifierIdentity.registrar.rotateCa(); // registrar mode: requests carry verifier_info
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  async function atWalletStep(k: 'A' | 'B', opts: { width: number; locale?: string }) {
    const created = await biz[k].api.rest('POST', '/v1/sessions', { workflow_id: biz[k].workflowId });
    const context = await browser.newContext({
      viewport: { width: opts.width, height: 900 },
      locale: opts.locale ?? 'en-US',
    });
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('adult');
    return { page, id: created.body.id as string };
  }

  async function shot(page: Page, name: string) {
    expect(await axeFindings(page), `axe on ${name}`).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(page.viewportSize()?.width);
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  it("same device: A's card shows A's name and purpose via the service; Share completes", async () => {
    const { page, id } = await atWalletStep('A', { width: 390 });
    await page.getByTestId('share-reference-wallet').click();
    const card = page.getByTestId('wallet-consent-same-device');
    await card.waitFor();
    expect(await card.getByTestId('consent-business').textContent()).toBe('Acme Lending asks for:');
    expect(await card.getByTestId('consent-purpose').textContent()).toBe(
      'Purpose: Check your age before a loan offer',
    );
    expect(await card.getByTestId('consent-via').textContent()).toBe(
      `via Credential verification service (${new URL(t.baseUrl).hostname})`,
    );
    expect(await card.getByTestId('consent-claims').textContent()).toContain('Given name');
    await shot(page, 'consent-same-device-A-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, 'consent-same-device-A-1280');
    // nothing is sent before Share
    expect((await biz.A.api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('in_progress');
    await card.getByTestId('consent-share').click();
    await page.getByTestId('done').waitFor({ timeout: 15_000 });
    expect((await biz.A.api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('completed');
    await page.close();
  });

  it("same device: B's card shows B's; Decline sends nothing and the person can ask again", async () => {
    const { page, id } = await atWalletStep('B', { width: 1280 });
    await page.getByTestId('share-reference-wallet').click();
    const card = page.getByTestId('wallet-consent-same-device');
    expect(await card.getByTestId('consent-business').textContent()).toBe('Beta Bank asks for:');
    expect(await card.getByTestId('consent-purpose').textContent()).toBe('Purpose: Open a savings account');
    await card.getByTestId('consent-decline').click();
    await page.getByTestId('consent-declined').waitFor();
    expect(await page.getByTestId('wallet-consent-same-device').count()).toBe(0);
    expect((await biz.B.api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('in_progress');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('wallet-consent-same-device').getByTestId('consent-share').click();
    await page.getByTestId('done').waitFor({ timeout: 15_000 });
    await page.close();
  });

  it("cross device, in German: B's code opened in the sandbox wallet shows B's name and purpose", async () => {
    const { page, id } = await atWalletStep('B', { width: 390, locale: 'de-DE' });
    await page.getByTestId('cross-device-qr').waitFor();
    await page.getByTestId('open-sandbox-wallet').click();
    const card = page.getByTestId('wallet-consent-cross-device');
    await card.waitFor();
    expect(await card.getByTestId('consent-business').textContent()).toBe(
      'Beta Bank möchte Folgendes sehen:',
    );
    expect(await card.getByTestId('consent-purpose').textContent()).toBe('Zweck: Open a savings account');
    expect(await card.getByTestId('consent-via').textContent()).toBe(
      `über Credential verification service (${new URL(t.baseUrl).hostname})`,
    );
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'consent-cross-device-B-de-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, 'consent-cross-device-B-de-1280');
    await card.getByTestId('consent-share').click();
    await page.getByTestId('done').waitFor({ timeout: 15_000 });
    expect((await biz.B.api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('completed');
    await page.close();
  });

  it("cross device: A's code shows A's name, not B's", async () => {
    const { page } = await atWalletStep('A', { width: 1280 });
    await page.getByTestId('cross-device-qr').waitFor();
    await page.getByTestId('open-sandbox-wallet').click();
    const card = page.getByTestId('wallet-consent-cross-device');
    expect(await card.getByTestId('consent-business').textContent()).toBe('Acme Lending asks for:');
    expect(await card.getByTestId('consent-purpose').textContent()).toBe(
      'Purpose: Check your age before a loan offer',
    );
    await page.close();
  });

  it("refuses visibly when the request carries B's registration certificate on A's signer", async () => {
    // B's certificate, from a request of B's own session
    const other = await biz.B.api.rest('POST', '/v1/sessions', { workflow_id: biz.B.workflowId });
    const signerB = new SignerClient(t.baseUrl, other.body.id);
    await signerB.start();
    const bJar = ((await signerB.call('POST', '/wallet-request/dc_api_signed')).body as Json).request as Json;
    const bInfo = decodeJwt(bJar.request as string).verifier_info;
    const { page } = await atWalletStep('A', { width: 390 });
    // the network edge: A's signed request re-signed by A's own signer with B's verifier_info in it
    await page.route('**/wallet-request/dc_api_signed', async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as Json;
      const jar = (body.request as Json).request as string;
      const signer = await t.svc.verifierIdentity.forBusiness({
        id: biz.A.businessId,
        environment: 'sandbox',
      });
      const tampered = await signer.sign(decodeProtectedHeader(jar) as Json, {
        ...decodeJwt(jar),
        verifier_info: bInfo,
      });
      await route.fulfill({ response: res, json: { ...body, request: { request: tampered } } });
    });
    await page.getByTestId('share-reference-wallet').click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('the registration certificate it carries belongs to someone other');
    expect(await page.getByTestId('wallet-consent-same-device').count()).toBe(0);
    await shot(page, 'consent-refused-mismatch-390');
    await page.close();
  });
});
