// One person across the steps (ADR 0026) on the hosted page in real Chromium: Erika Mustermann identifies, then
// at the sign step the reference wallet presents Max Mustermann's credential. The page refuses it with the
// holder_mismatch explanation in the person's language, the session stays at the sign step with only Erika's
// result, and Erika herself can still sign. The refusal screen is checked with axe-core; screenshots at 390 px
// and 1280 px (English and German) go to HOLDER_SHOTS_DIR when set, for people to look at.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeFindings, checkScreen } from '../support/axe';
import { showDocumentsToEnd, startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow, startSignSession } from '../support/sign-workflow';
import { WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf } from '../support/workflows';

const SHOTS = process.env.HOLDER_SHOTS_DIR;

async function shots(page: Page, name: string) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('one person across the steps on the hosted page (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let api: Api;
  let workflowId: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_holder_binding', receiver));
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    ({ workflowId } = await setUpSignWorkflow(api, {
      identifyBefore: ['given_name', 'family_name', 'birth_date'],
      webhookUrl: receiver.url,
      name: 'Loan',
    }));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  async function shareAs(page: Page, persona: string) {
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption(persona);
    await page.getByTestId('share-reference-wallet').click();
  }

  for (const [locale, lang, words] of [
    ['en-GB', 'en', /someone other than the person who completed the first step/],
    ['de-DE', 'de', /einer anderen Person als der, die den ersten Schritt abgeschlossen hat/],
  ] as const) {
    it(`${lang}: Max cannot sign after Erika identified; the page says why and Erika can still sign`, async () => {
      const created = await createSignSession(api, workflowId, [
        pdfPart('Loan contract.pdf', minimalPdf('Loan contract')),
      ]);
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const page = await (await browser.newContext({ locale })).newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(created.body.url);
      await page.getByTestId('start').click();
      await page.getByTestId('step-identify').waitFor();
      await shareAs(page, 'adult');
      await page.getByTestId('step-sign').waitFor({ timeout: 20_000 });
      // the page offers the wallet once the contract was shown to its end (ADR 0029)
      await page.locator('article.doc-view').first().waitFor({ timeout: 20_000 });
      await showDocumentsToEnd(page);

      await shareAs(page, 'minor');
      await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 }).toMatch(words);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      expect(await axeFindings(page)).toEqual([]);
      await shots(page, `holder-mismatch-${lang}`);

      // nothing of the sign step exists; the session waits for the right person
      const read = await api.rest('GET', `/v1/sessions/${id}`);
      expect(read.body.status).toBe('in_progress');
      expect(read.body.results.map((r: { stage: number }) => r.stage)).toEqual([0]);

      // the wallet panel stays open after a refusal: the right person shares from it
      await page.getByTestId('persona').selectOption('adult');
      await page.getByTestId('share-reference-wallet').click();
      await page.getByTestId('done').waitFor({ timeout: 20_000 });
      const done = await api.rest('GET', `/v1/sessions/${id}`);
      expect(done.body.status).toBe('completed');
      expect(done.body.results[1].holder_binding).toMatchObject({ by: 'holder_key', bound_to_stage: 0 });
      await page.context().close();
    });
  }

  it('the dashboard session detail says who presented each step, with no holder key beside the binding', async () => {
    const biz = await createBusiness(t, 'Holder GmbH');
    const bizApi = new Api(t.baseUrl, biz.apiKey);
    const { workflowId: wf } = await setUpSignWorkflow(bizApi, {
      identifyBefore: ['given_name', 'family_name', 'birth_date'],
      after: [{ primitive: 'sign', documents: 1, holder: 'any' }],
      webhookUrl: receiver.url,
      name: 'Loan with a guarantor',
    });
    const loan = minimalPdf('Loan');
    const { id, signer } = await startSignSession(bizApi, wf, [
      pdfPart('Loan.pdf', loan),
      pdfPart('Guarantee.pdf', loan),
    ]);
    // Erika, then Erika from her second device (another key), then the guarantor Max on the opted-out step
    for (const persona of ['adult', 'adult_second_device', 'minor']) {
      const wr = await signer.walletRequest();
      const answer = await t.svc.wallet.respond({ persona, request: wr.body.request, origin: t.baseUrl });
      expect((await signer.submit(wr.body.request_id, answer)).status).toBe(200);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const token = biz.dashboard.cookie.replace(/^svc_dashboard=/, '');
    await context.addCookies([{ name: 'svc_dashboard', value: token, url: t.baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/dashboard/sessions/${id}`);
    await page.getByTestId('step-result-2').waitFor({ timeout: 20_000 });
    const by = page.getByTestId('presented-by');
    expect(await by.evaluateAll((els) => els.map((e) => e.getAttribute('data-binding')))).toEqual([
      'first',
      'claims',
      'opted_out',
    ]);
    expect(await by.nth(1).textContent()).toContain(
      'Same person as step 1: another key, same name and birth date',
    );
    expect(await by.nth(2).textContent()).toContain('Anyone');
    // ADR 0046: the binding is a fact; the identify step shows no key, a sign step only the key of its own
    // holder signature (step 2: Erika's second device; step 3: the guarantor)
    const results = (await bizApi.rest('GET', `/v1/sessions/${id}`)).body.results;
    const [signKey, guarantorKey] = [results[1], results[2]].map(
      (r: { holder_key: { thumbprint: string } }) => r.holder_key.thumbprint,
    );
    const cards = await Promise.all(
      [0, 1, 2].map(async (s) => (await page.getByTestId(`step-result-${s}`).textContent()) as string),
    );
    expect(cards[1]).toContain('Signature key (thumbprint)');
    expect(cards[1]).toContain(signKey);
    expect(cards[0]).not.toMatch(/thumbprint/i);
    expect(cards[0]).not.toContain(signKey);
    expect(cards[2]).not.toContain(signKey);
    expect(cards[1]).not.toContain(guarantorKey);
    expect(cards.join('')).not.toContain('Step 1 holder key');
    if (SHOTS) {
      await checkScreen(page, 'dashboard-session-detail', SHOTS);
      // the step cards themselves, readable at both widths
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        for (const stage of [1, 2]) {
          const shot = path.join(SHOTS, `dashboard-step-${stage}-${width}.png`);
          await page.getByTestId(`step-result-${stage}`).screenshot({ path: shot });
        }
      }
    } else expect(await axeFindings(page)).toEqual([]);
    await context.close();
  });
  it('the dashboard detail of an age check shows over and threshold, and no holder key (ADR 0046)', async () => {
    const biz = await createBusiness(t, 'Age Shop GmbH');
    const bizApi = new Api(t.baseUrl, biz.apiKey);
    const { workflowId: wf } = await setUpSignWorkflow(bizApi, {
      before: [{ primitive: 'age_verify', threshold: 18 }],
      webhookUrl: receiver.url,
      name: 'Age check, then a contract',
    });
    const { id, signer } = await startSignSession(bizApi, wf, [
      pdfPart('Contract.pdf', minimalPdf('Contract')),
    ]);
    for (let i = 0; i < 2; i++) {
      const wr = await signer.walletRequest();
      const answer = await t.svc.wallet.respond({
        persona: 'adult',
        request: wr.body.request,
        origin: t.baseUrl,
      });
      expect((await signer.submit(wr.body.request_id, answer)).status).toBe(200);
    }
    // the sign step's own key is the holder key of the age check too (bound by holder_key)
    const results = (await bizApi.rest('GET', `/v1/sessions/${id}`)).body.results;
    expect(results[1].holder_binding).toEqual({ by: 'holder_key', bound_to_stage: 0 });
    const { thumbprint, jwk } = results[1].holder_key as {
      thumbprint: string;
      jwk: { x: string; y: string };
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const token = biz.dashboard.cookie.replace(/^svc_dashboard=/, '');
    await context.addCookies([{ name: 'svc_dashboard', value: token, url: t.baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/dashboard/sessions/${id}`);
    const age = page.getByTestId('step-result-0');
    await age.waitFor({ timeout: 20_000 });
    // the signed audit record (its JSON is on the card) has loaded before the card is read
    await page.getByTestId('audit-0').getByText('Signed at').waitFor({ timeout: 20_000 });
    const card = (await age.textContent()) as string;
    expect(card).toContain('Age at least 18');
    expect(card).toContain('The person this session is bound to (first step)');
    for (const leak of [thumbprint, jwk.x, jwk.y, 'thumbprint', '"idx"']) expect(card).not.toContain(leak);
    await context.close();
  });
});
