// ISO mdoc through the hosted page in real Chromium: a person picks "Erika Mustermann (mdoc PID)" in the sandbox
// wallet, the page hands the wallet the real identify request (SD-JWT VC or mdoc alternatives), and the
// business receives the mdoc's claims in a signed webhook. Then "Open in sandbox wallet" with the mobile
// driving licence runs the cross-device exchange (signed request_uri, encrypted direct_post.jwt). A sign step
// with the mdoc PID: the page shows the document, the wallet device-signs its transaction data hash.
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { showDocumentsToEnd, startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, setUpIdentifyWorkflow, type TestService } from '../support/harness';
import { createSignSession, pdfPart, setUpSignWorkflow } from '../support/sign-workflow';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';
import { minimalPdf } from '../support/workflows';

describe('ISO mdoc from the hosted page (Chromium)', () => {
  let t: TestService;
  let browser: Browser;
  let api: Api;
  let workflowId: string;
  let webhookSecret: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_mdoc', receiver));
    const { apiKey } = await createBusiness(t);
    api = new Api(t.baseUrl, apiKey);
    ({ workflowId, webhookSecret } = await setUpIdentifyWorkflow(api, receiver.url));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  async function openAtWalletStep() {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').waitFor();
    return { page, context, id: created.body.id as string };
  }

  it('identify: the person picks the mdoc PID in the sandbox wallet; the business gets its claims', async () => {
    const { page, context, id } = await openAtWalletStep();
    const options = await page.getByTestId('persona').locator('option').allTextContents();
    expect(options).toEqual(
      expect.arrayContaining([
        'Erika Mustermann',
        'Erika Mustermann (mdoc PID)',
        'Erika Mustermann (mobile driving licence)',
      ]),
    );
    await page.getByTestId('persona').selectOption('adult_mdoc');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });

    const [step] = (await receiver.waitFor('step.completed')).filter((d) => d.body.data.session_id === id);
    expect(step && signatureValid(step, webhookSecret)).toBe(true);
    expect(step?.body.data).toMatchObject({
      session_id: id,
      primitive: 'identify',
      claims: {
        given_name: 'Erika',
        family_name: 'Mustermann',
        birth_date: '1984-01-12',
        nationality: 'DE',
        document_status: 'valid',
      },
    });
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(JSON.stringify(audit.body)).toContain('"format":"mso_mdoc"');
    await context.close();
  });

  it('cross-device: "Open in sandbox wallet" presents the mobile driving licence', async () => {
    const { page, context, id } = await openAtWalletStep();
    await page.getByTestId('cross-device-qr').waitFor();
    await page.getByTestId('persona').selectOption('adult_mdl');
    await page.getByTestId('open-sandbox-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });
    const read = await api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results[0].claims).toMatchObject({ family_name: 'Mustermann' });
    const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
    expect(audit).toContain('org.iso.18013.5.1.mDL');
    expect(audit).toContain('openid4vp-cross-device');
    await context.close();
  });

  it('sign: the person picks the mdoc PID; the business gets the documents and the device-signed proof', async () => {
    const { workflowId: signWf } = await setUpSignWorkflow(api);
    const contract = minimalPdf('Lease agreement');
    const created = await createSignSession(api, signWf, [pdfPart('Lease.pdf', contract)]);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').click();
    await page.getByTestId('step-sign').waitFor();
    const sha256 = createHash('sha256').update(contract).digest('hex');
    expect(await page.getByTestId('document-0').getByTestId('document-sha256').textContent()).toBe(sha256);
    await showDocumentsToEnd(page);
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('adult_mdoc');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });

    await expect
      .poll(
        () =>
          receiver.deliveries.some(
            (d) => d.body.data?.session_id === id && d.body.event === 'step.completed',
          ),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);
    const step = receiver.deliveries.find(
      (d) => d.body.event === 'step.completed' && d.body.data.session_id === id,
    );
    expect(step && signatureValid(step, webhookSecret)).toBe(true);
    expect(step?.body.data).toMatchObject({
      primitive: 'sign',
      documents: [{ label: 'Lease.pdf', sha256, size: contract.length, content_type: 'application/pdf' }],
      holder_signature: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      holder_key: { jwk: { kty: 'EC', crv: 'P-256' } },
    });
    const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
    expect(audit).toContain('"format":"mso_mdoc"');
    expect(audit).toContain('"transaction_data"');
    await context.close();
  });
});
