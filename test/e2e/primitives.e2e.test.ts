// age_verify, sign and attestation through the hosted page in real Chromium with the sandbox reference wallet:
// one session of three steps, as a person sees it (the threshold, the documents with their hashes and a
// download of the exact original, the terms) and as the business receives it (signed webhooks per step).
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { showDocumentsToEnd, startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf, publishWorkflow } from '../support/workflows';

const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const TERMS = 'I agree that my data may be used to open a customer account. I can withdraw at any time.';

describe('age_verify, sign and attestation end to end (Chromium, MariaDB, real webhooks)', () => {
  let t: TestService;
  let browser: Browser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_primitives', receiver));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  async function shareAs(page: import('playwright-core').Page, persona: string) {
    await showDocumentsToEnd(page);
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption(persona);
    await page.getByTestId('share-reference-wallet').click();
  }

  it('completes an age check, a signature and an attestation from the hosted page', async () => {
    const { apiKey } = await createBusiness(t);
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId, webhookSecret } = await setUpSignWorkflow(api, {
      before: [{ primitive: 'age_verify', threshold: 18 }],
      after: [{ primitive: 'attestation', terms: TERMS }],
      webhookUrl: receiver.url,
      name: 'Account opening',
    });
    const contract = minimalPdf('Account agreement');
    const created = await createSignSession(api, workflowId, [pdfPart('Account agreement.pdf', contract)], {
      metadata: '{"ref":"C-9"}',
    });
    expect(created.status).toBe(201);
    const session = created.body;

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByTestId('start').click();

    // 1. age_verify: the threshold is shown; only yes/no leaves the service
    await page.getByTestId('step-age_verify').waitFor();
    expect(await page.getByTestId('age-threshold').textContent()).toContain('18 or older');
    await shareAs(page, 'adult');

    // 2. sign: the document, its hash and the original are there before sharing
    await page.getByTestId('step-sign').waitFor({ timeout: 20_000 });
    const doc = page.getByTestId('document-0');
    expect(await doc.textContent()).toContain('Account agreement.pdf');
    expect(await doc.getByTestId('document-sha256').textContent()).toBe(sha256Hex(contract));
    const href = await doc.getByTestId('document-download').getAttribute('href');
    const original = await context.request.get(new URL(href as string, session.url).toString());
    expect(original.status()).toBe(200);
    expect(new Uint8Array(await original.body())).toEqual(contract);
    await shareAs(page, 'adult');

    // 3. attestation: the full terms and their hash
    await page.getByTestId('step-attestation').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('terms').textContent()).toBe(TERMS);
    expect(await page.getByTestId('terms-sha256').textContent()).toBe(sha256Hex(TERMS));
    await shareAs(page, 'adult');
    await page.getByTestId('done').waitFor({ timeout: 20_000 });

    const steps = await receiver.waitFor('step.completed', 3);
    const [done] = await receiver.waitFor('session.completed');
    for (const d of [...steps, done]) expect(d && signatureValid(d, webhookSecret as string)).toBe(true);
    expect(steps.map((d) => d.body.delivery_id)).toEqual(
      [0, 1, 2].map((n) => `${session.id}:step.completed:${n}`),
    );
    const [age, sign, attest] = steps.map((d) => d.body.data);
    expect(age).toEqual({
      session_id: session.id,
      stage: 0,
      primitive: 'age_verify',
      audit_id: `${session.id}_0`,
      over: true,
      threshold: 18,
      holder_binding: { by: 'first', bound_to_stage: null },
    });
    expect(sign).toMatchObject({
      stage: 1,
      primitive: 'sign',
      documents: [
        {
          label: 'Account agreement.pdf',
          sha256: sha256Hex(contract),
          size: contract.length,
          content_type: 'application/pdf',
        },
      ],
      holder_signature: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      holder_key: {
        thumbprint: expect.any(String),
        jwk: expect.objectContaining({ kty: 'EC', crv: 'P-256' }),
      },
    });
    expect(attest).toMatchObject({ stage: 2, primitive: 'attestation', terms_sha256: sha256Hex(TERMS) });
    // the same person (holder key) signed and attested
    expect(attest?.holder_key).toEqual(sign?.holder_key);

    const read = await api.rest('GET', `/v1/sessions/${session.id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.metadata).toEqual({ ref: 'C-9' });
    expect(read.body.results.map((r: { primitive: string }) => r.primitive)).toEqual([
      'age_verify',
      'sign',
      'attestation',
    ]);
    await context.close();
  });

  it('shows a minor as not over the threshold, as a completed step', async () => {
    const { apiKey } = await createBusiness(t, 'Cinema GmbH');
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId } = await publishWorkflow(
      api,
      [{ primitive: 'age_verify', threshold: 16 }],
      receiver.url,
    );
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('step-age_verify').waitFor();
    await shareAs(page, 'minor');
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    const read = await api.rest('GET', `/v1/sessions/${created.body.id}`);
    expect(read.body.results[0]).toMatchObject({ primitive: 'age_verify', over: false, threshold: 16 });
    await context.close();
  });
});
