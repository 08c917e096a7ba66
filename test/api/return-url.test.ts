// return_url (issue 10, ADR 0019), black-box over real HTTP, MariaDB and Chromium: a business registers the
// origins of its environment in the dashboard; a create with a return_url elsewhere is refused with
// return_url_not_allowed; the hosted page offers the way back only after the session ended, to the exact URL.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser';
import { Api, createBusiness, type TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient } from '../support/signer';

const SET = 'mutation($o: [String!]!) { setReturnOrigins(origins: $o) }';
const READ = '{ returnOrigins }';

describe('return_url on registered origins', () => {
  const page = identifyFixture(
    {
      workers: false,
      label: 'returnurl',
      businessName: 'Shop AG',
      webhook: 'https://8.8.8.8/hooks',
      claims: ['given_name'],
    },
    60_000,
  );
  let t: TestService;
  let api: Api;
  let other: Api;
  let workflowId: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    ({ t, api, workflowId } = page);
    other = new Api(t.baseUrl, (await createBusiness(t, 'Other AG')).apiKey);
  }, 60_000);

  afterAll(async () => browser?.close());

  it('registers origins normalised, per business', async () => {
    expect((await api.gql(READ)).data).toEqual({ returnOrigins: [] });
    const set = await api.gql(SET, {
      o: ['HTTPS://Shop.Example:443/', 'http://localhost:8080', 'https://shop.example'],
    });
    expect(set.errors).toBeUndefined();
    expect(set.data.setReturnOrigins).toEqual(['http://localhost:8080', 'https://shop.example']);
    expect((await api.gql(READ)).data.returnOrigins).toEqual([
      'http://localhost:8080',
      'https://shop.example',
    ]);
    // another business sees (and is allowed) none of them
    expect((await other.gql(READ)).data.returnOrigins).toEqual([]);
  });

  it('refuses origins that are not scheme://host[:port]', async () => {
    for (const bad of [
      'https://shop.example/back',
      'ftp://shop.example',
      'not a url',
      'https://u:p@shop.example',
    ]) {
      const r = await api.gql(SET, { o: [bad] });
      expect(r.errors?.[0]?.extensions?.code, bad).toBe('validation_failed');
    }
    // the registered list is unchanged by a refused call
    expect((await api.gql(READ)).data.returnOrigins).toEqual([
      'http://localhost:8080',
      'https://shop.example',
    ]);
  });

  it('refuses a return_url on an unregistered origin or that is not a URL (REST and GraphQL)', async () => {
    for (const url of ['https://evil.example/x', 'https://shop.example:8443/x', 'http://shop.example/x']) {
      const r = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, return_url: url });
      expect(r.status, url).toBe(400);
      expect(r.body).toMatchObject({ code: 'return_url_not_allowed', param: 'return_url' });
    }
    // another business's registered origins are not this one's
    const foreign = await other.rest('POST', '/v1/sessions', {
      workflow_id: workflowId,
      return_url: 'https://shop.example/',
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('return_url_not_allowed');
    for (const bad of ['javascript:alert(1)', 'shop.example/back', 42, 'x'.repeat(3000)]) {
      const r = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, return_url: bad });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'validation_failed', param: 'return_url' });
    }
    const g = await api.gql('mutation($i: CreateSessionInput!) { createSession(input: $i) { id } }', {
      i: { workflowId, returnUrl: 'https://evil.example/' },
    });
    expect(g.errors?.[0]?.extensions).toMatchObject({ code: 'return_url_not_allowed' });
  });

  it('shows the way back only after the end, to the exact URL', async () => {
    const back = 'https://shop.example/orders/42?step=done';
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId, return_url: back });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const projection = () => new SignerClient(t.baseUrl, id).view();
    expect((await projection()).returnUrl).toBeNull();

    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').waitFor();
    expect(await page.getByTestId('return-link').count()).toBe(0);

    expect((await api.rest('POST', `/v1/sessions/${id}/stop`)).status).toBe(200);
    expect((await projection()).returnUrl).toBe(back);
    await page.reload();
    const link = page.getByTestId('return-link');
    await link.waitFor();
    expect(await link.textContent()).toBe('Return to shop.example');
    expect(await link.getAttribute('href')).toBe(back);
  }, 60_000);

  it('allows only https origins in production', async () => {
    const key = await t.svc.tenancy.issueApiKey(
      (await t.svc.tenancy.createBusiness('Prod AG')).id,
      'production',
    );
    const prod = new Api(t.baseUrl, key.key);
    const r = await prod.gql(SET, { o: ['http://shop.example'] });
    expect(r.errors?.[0]?.extensions?.code).toBe('validation_failed');
    expect((await prod.gql(SET, { o: ['https://shop.example'] })).data.setReturnOrigins).toEqual([
      'https://shop.example',
    ]);
  });

  describe('branding', () => {
    const SET_BRANDING =
      'mutation($i: BrandingInput!) { setBranding(input: $i) { displayName accentColor } }';

    it('refuses an accent colour without AA contrast against white, and bad input', async () => {
      const pale = await api.gql(SET_BRANDING, { i: { accentColor: '#7aa7ff' } });
      expect(pale.errors?.[0]?.extensions).toMatchObject({
        code: 'branding_contrast_insufficient',
        param: 'input.accentColor',
      });
      for (const i of [
        { accentColor: 'blue' },
        { accentColor: '#12345' },
        { displayName: ' ' },
        { displayName: 'x'.repeat(81) },
      ]) {
        const r = await api.gql(SET_BRANDING, { i });
        expect(r.errors?.[0]?.extensions?.code, JSON.stringify(i)).toBe('validation_failed');
      }
      expect((await api.gql('{ branding { displayName accentColor } }')).data.branding).toEqual({
        displayName: null,
        accentColor: null,
      });
    });

    it('shows the display name and accent colour on the hosted page', async () => {
      const set = await api.gql(SET_BRANDING, {
        i: { displayName: '  Shop Online ', accentColor: '#0F5132' },
      });
      expect(set.data.setBranding).toEqual({ displayName: 'Shop Online', accentColor: '#0f5132' });
      // the return origins set earlier are kept
      expect((await api.gql(READ)).data.returnOrigins).toContain('https://shop.example');
      const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
      const projection = await new SignerClient(t.baseUrl, created.body.id).view();
      expect(projection.business).toEqual({ name: 'Shop Online', accentColor: '#0f5132', logoUrl: null });
      // another business is not branded by it
      expect((await other.gql('{ branding { displayName } }')).data.branding.displayName).toBeNull();

      browser ??= await launchChromium();
      const page = await (await browser.newContext()).newPage();
      await page.goto(created.body.url);
      await page.getByTestId('start').waitFor();
      expect(await page.locator('h1').textContent()).toBe('Shop Online');
      const bg = await page.getByTestId('start').evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(bg).toBe('rgb(15, 81, 50)');
    }, 60_000);
  });
});
