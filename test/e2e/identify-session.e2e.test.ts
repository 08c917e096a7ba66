// The whole path, as a business and a person see it: create by REST, open the hosted URL in real Chromium,
// start, share with the sandbox reference wallet; the business's receiver gets signed webhooks in order,
// GET /v1/sessions/{id} shows the claims, and the audit record verifies with openssl against the JWKS.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2E, stopE2E } from '../support/browser';
import { Api, createBusiness, setUpIdentifyWorkflow, type TestService } from '../support/harness';
import { opensslVerifyAudit } from '../support/openssl';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';

describe('identify session end to end (Chromium, MariaDB, real webhooks)', () => {
  let t: TestService;
  let browser: Browser;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    ({ t, browser } = await startE2E('e2e_identify', receiver));
  });
  afterAll(async () => {
    await stopE2E({ t, browser, receiver });
  });

  it('completes an identify step and proves it to the business', async () => {
    const { apiKey } = await createBusiness(t);
    const api = new Api(t.baseUrl, apiKey);
    const { workflowId, webhookSecret } = await setUpIdentifyWorkflow(api, receiver.url);

    const created = await api.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      metadata: { ref: 'A-1' },
    });
    expect(created.status).toBe(201);
    const session = created.body;
    expect(Object.keys(session).sort()).toEqual([
      'expires',
      'id',
      'status',
      'url',
      'workflow_id',
      'workflow_revision',
    ]);
    expect(session).toMatchObject({ workflow_id: workflowId, workflow_revision: 1, status: 'created' });
    expect(session.id).toMatch(/^sess_[0-9a-z]{26}$/);
    expect(session.url).toBe(`${t.baseUrl}/s/${session.id}`);
    expect(new Date(session.expires).toISOString()).toBe(session.expires);

    const page = await (await browser.newContext()).newPage();
    await page.goto(session.url);
    await expect.poll(() => page.getByText('Acme GmbH').count()).toBeGreaterThan(0);
    await page.getByTestId('start').click();
    await page.getByTestId('share-wallet').click();
    await page.getByTestId('persona').selectOption('adult');
    await page.getByTestId('share-reference-wallet').click();
    await page.getByTestId('done').waitFor({ timeout: 20_000 });

    const [step] = await receiver.waitFor('step.completed');
    const [done] = await receiver.waitFor('session.completed');
    for (const d of [step, done]) {
      expect(signatureValid(d, webhookSecret)).toBe(true);
      expect(d.headers['x-service-event']).toBe(d.body.event);
      expect(d.headers['x-service-delivery-id']).toBe(d.body.delivery_id);
      expect(Math.abs(Number(d.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(signatureValid(step, 'whsec_wrong')).toBe(false);
    expect(step.body.delivery_id).toBe(`${session.id}:step.completed:0`);
    expect(done.body.delivery_id).toBe(`${session.id}:session.completed:0`);
    expect(receiver.deliveries.indexOf(step)).toBeLessThan(receiver.deliveries.indexOf(done));
    const claims = {
      given_name: 'Erika',
      family_name: 'Mustermann',
      birth_date: '1984-01-12',
      nationality: 'DE',
      document_status: 'valid',
    };
    expect(step.body.data).toEqual({
      session_id: session.id,
      stage: 0,
      primitive: 'identify',
      audit_id: `${session.id}_0`,
      claims,
      holder_binding: { by: 'first', bound_to_stage: null },
    });

    const read = await api.rest('GET', `/v1/sessions/${session.id}`);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('completed');
    expect(read.body.results).toEqual([
      expect.objectContaining({ stage: 0, primitive: 'identify', audit_id: `${session.id}_0`, claims }),
    ]);

    const audit = await api.rest('GET', `/v1/audits/${session.id}_0`);
    expect(audit.status).toBe(200);
    const jwks = await new Api(t.baseUrl).rest('GET', '/.well-known/service-audit-jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('access-control-allow-origin')).toBe('*');
    expect(jwks.headers.get('cache-control')).toMatch(/max-age=300/);
    expect(audit.body.service_signature.kid).toMatch(/cryptoKeyVersions\/\d+$/);
    expect(opensslVerifyAudit(audit.body, jwks.body)).toBe(true);
    // a changed record no longer verifies
    expect(opensslVerifyAudit({ ...audit.body, stage: 1 }, jwks.body)).toBe(false);
  });
});
