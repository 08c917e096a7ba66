// The hosted page logo (issue 10, ADR 0019), black-box over real HTTP, MariaDB and Chromium: a dashboard user
// uploads a logo as a GraphQL multipart request; only PNG, JPEG and WebP files (judged by their bytes) of at
// most 256 KiB and 16-2048 pixels per side are taken, each refusal has its own code and stores nothing; the
// logo is served by content hash with its real type, nosniff, a sandboxing CSP and a year of caching, and the
// signer page shows it with the display name as its text. Every branding, logo and return-origin change
// leaves an account_audit entry naming who did what, and when.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import { axeFindings } from '../support/axe';
import { launchChromium } from '../support/browser';
import {
  Api,
  createBusiness,
  type DashboardCredentials,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { jpegHeader, png, webpHeader } from '../support/images';
import { SignerClient } from '../support/signer';

const SET_LOGO = 'mutation($logo: Upload) { setLogo(logo: $logo) { displayName accentColor logoUrl } }';
const BRANDING = '{ branding { displayName accentColor logoUrl } }';
const SHOTS = process.env.BRANDING_SHOTS_DIR;

/** setLogo as a GraphQL multipart request with the dashboard user's cookie, CSRF token and environment. */
async function uploadLogo(
  baseUrl: string,
  as: DashboardCredentials,
  file: { bytes: Uint8Array; type: string; filename: string },
): Promise<{ status: number; body: { data?: Json; errors?: Json[] } }> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: SET_LOGO, variables: { logo: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.logo'] }));
  form.append('0', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type }), file.filename);
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      Cookie: as.cookie,
      'X-CSRF-Token': as.csrfToken,
      'X-Environment': as.environment,
      'apollo-require-preflight': 'true',
    },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as { data?: Json; errors?: Json[] } };
}

describe('hosted page logo', () => {
  const clock = new ManualClock(Date.parse('2030-03-01T10:00:00.000Z'));
  let t: TestService;
  let api: Api;
  let owner: DashboardCredentials;
  let businessId: string;
  let other: Api;
  let workflowId: string;
  let browser: Browser | undefined;

  /** The account_audit entries of the business, oldest first, as (actor, action, detail). */
  const auditTrail = async () =>
    (
      await t.svc.ds
        .getRepository(AccountAuditEntity)
        .find({ where: { businessId }, order: { createdAt: 'ASC', id: 'ASC' } })
    )
      .filter((a) => a.action.startsWith('branding.') || a.action.startsWith('return_origins.'))
      .map((a) => ({
        actor: `${a.actorKind}:${a.actorId}`,
        action: a.action,
        at: a.createdAt.toISOString(),
        detail: a.detail ? JSON.parse(a.detail) : null,
      }));
  const logoRows = async () =>
    Number(
      (
        (await t.svc.ds.query('SELECT COUNT(*) AS n FROM hosted_page_logo WHERE business_id = ?', [
          businessId,
        ])) as { n: number | string }[]
      )[0]?.n,
    );

  beforeAll(async () => {
    t = await startTestService({ clock, workers: false, label: 'branding_logo' });
    const biz = await createBusiness(t, 'Logo AG');
    businessId = biz.businessId;
    owner = biz.dashboard;
    api = new Api(t.baseUrl, biz.apiKey, owner);
    ({ workflowId } = await setUpIdentifyWorkflow(api, 'https://8.8.8.8/hooks', ['given_name']));
    other = new Api(t.baseUrl, (await createBusiness(t, 'Other AG')).apiKey);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('refuses files that are not a PNG, JPEG or WebP by their bytes, whatever they claim to be', async () => {
    const cases: [string, { bytes: Uint8Array; type: string; filename: string }][] = [
      [
        'svg',
        {
          bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          type: 'image/png',
          filename: 'logo.png',
        },
      ],
      [
        'gif',
        {
          bytes: Buffer.from('GIF89a\x10\x00\x10\x00\x00\x00\x00;', 'latin1'),
          type: 'image/gif',
          filename: 'l.gif',
        },
      ],
      ['text', { bytes: Buffer.from('hello'), type: 'image/jpeg', filename: 'logo.jpg' }],
      ['empty', { bytes: new Uint8Array(0), type: 'image/png', filename: 'logo.png' }],
      ['cut-off png', { bytes: png(32, 32).subarray(0, 20), type: 'image/png', filename: 'logo.png' }],
      [
        'webp without size',
        { bytes: webpHeader(32, 32).subarray(0, 16), type: 'image/webp', filename: 'l.webp' },
      ],
    ];
    for (const [name, file] of cases) {
      const r = await uploadLogo(t.baseUrl, owner, file);
      expect(r.body.errors?.[0]?.extensions, name).toMatchObject({
        code: 'logo_type_unsupported',
        status: 400,
        param: 'logo',
      });
    }
    // no file at all (a JSON request)
    const none = await api.gql('mutation { setLogo { logoUrl } }');
    expect(none.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', param: 'logo' });
    expect((await api.gql(BRANDING)).data.branding.logoUrl).toBeNull();
    expect(await logoRows()).toBe(0);
    expect(await auditTrail()).toEqual([]);
  });

  it('refuses a logo over 256 KiB and one too small or too large in pixels', async () => {
    const big = png(64, 64, 256 * 1024);
    expect(big.length).toBeGreaterThan(256 * 1024);
    const tooBig = await uploadLogo(t.baseUrl, owner, { bytes: big, type: 'image/png', filename: 'big.png' });
    expect(tooBig.body.errors?.[0]?.extensions).toMatchObject({
      code: 'logo_too_large',
      status: 413,
      param: 'logo',
      max_bytes: 262144,
    });
    // exactly at the limit is fine as far as size goes (then judged as an image)
    for (const [w, h] of [
      [8, 64],
      [64, 15],
      [2049, 100],
      [100, 5000],
    ] as const) {
      const r = await uploadLogo(t.baseUrl, owner, {
        bytes: png(w, h),
        type: 'image/png',
        filename: 'l.png',
      });
      expect(r.body.errors?.[0]?.extensions, `${w}x${h}`).toMatchObject({
        code: 'logo_dimensions_invalid',
        width: w,
        height: h,
      });
    }
    const jpegHuge = await uploadLogo(t.baseUrl, owner, {
      bytes: jpegHeader(4000, 300),
      type: 'image/jpeg',
      filename: 'l.jpg',
    });
    expect(jpegHuge.body.errors?.[0]?.extensions?.code).toBe('logo_dimensions_invalid');
    expect((await api.gql(BRANDING)).data.branding.logoUrl).toBeNull();
    expect(await logoRows()).toBe(0);
    expect(await auditTrail()).toEqual([]);
  });

  it('refuses a viewer (role) and an anonymous caller', async () => {
    const viewer = await t.svc.accounts.members.createUserDirect(
      businessId,
      'viewer@logo.test',
      'viewer',
      'test',
    );
    const s = await t.svc.accounts.signIn.signInDirect(viewer.id);
    const asViewer: DashboardCredentials = {
      cookie: `svc_dashboard=${s.token}`,
      csrfToken: s.csrfToken,
      environment: 'sandbox',
    };
    const file = { bytes: png(32, 32), type: 'image/png', filename: 'l.png' };
    const r = await uploadLogo(t.baseUrl, asViewer, file);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'role_insufficient', status: 403 });
    const removed = await new Api(t.baseUrl, undefined, asViewer).gql('mutation { removeLogo { logoUrl } }');
    expect(removed.errors?.[0]?.extensions?.code).toBe('role_insufficient');
    // a wrong CSRF token: the upload is refused before its body is read
    const noCsrf = await uploadLogo(t.baseUrl, { ...owner, csrfToken: 'wrong' }, file);
    expect([noCsrf.status, (noCsrf.body as Json).code]).toEqual([403, 'csrf_token_invalid']);
    expect(await logoRows()).toBe(0);
  });

  it('stores a PNG and serves it by content hash with its real type, nosniff, a CSP and long caching', async () => {
    const bytes = png(120, 40);
    const sha = createHash('sha256').update(bytes).digest('hex');
    // the declared type and name are ignored: the bytes are a PNG
    const r = await uploadLogo(t.baseUrl, owner, { bytes, type: 'image/svg+xml', filename: 'logo.svg' });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.setLogo).toEqual({
      displayName: null,
      accentColor: null,
      logoUrl: `/branding/logos/${sha}`,
    });
    const res = await fetch(`${t.baseUrl}/branding/logos/${sha}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    // a revalidation with the hash as ETag needs no body
    const again = await fetch(`${t.baseUrl}/branding/logos/${sha}`, {
      headers: { 'If-None-Match': `"${sha}"` },
    });
    expect(again.status).toBe(304);
    for (const bad of ['0'.repeat(64), 'not-a-hash', `${sha}.svg`]) {
      const miss = await fetch(`${t.baseUrl}/branding/logos/${bad}`);
      expect(miss.status, bad).toBe(404);
      expect(((await miss.json()) as Json).code).toBe('not_found');
    }
    // the hosted projection links to it; another business's does not
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    const projection = await new SignerClient(t.baseUrl, created.body.id).view();
    expect(projection.business).toEqual({
      name: 'Logo AG',
      accentColor: null,
      logoUrl: `/branding/logos/${sha}`,
    });
    expect((await other.gql(BRANDING)).data.branding.logoUrl).toBeNull();
    expect(await logoRows()).toBe(1);
  });

  it('takes JPEG and WebP files too, each replacing the last, and removes the logo', async () => {
    for (const [bytes, type] of [
      [jpegHeader(300, 100), 'image/jpeg'],
      [webpHeader(256, 256), 'image/webp'],
    ] as const) {
      const r = await uploadLogo(t.baseUrl, owner, {
        bytes,
        type: 'application/octet-stream',
        filename: 'x',
      });
      expect(r.body.errors).toBeUndefined();
      const res = await fetch(`${t.baseUrl}${r.body.data.setLogo.logoUrl}`);
      expect(res.headers.get('content-type')).toBe(type);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect(await logoRows()).toBe(1);
    const webpUrl = (await api.gql(BRANDING)).data.branding.logoUrl as string;
    const removed = await api.gql('mutation { removeLogo { logoUrl } }');
    expect(removed.data.removeLogo).toEqual({ logoUrl: null });
    expect((await fetch(`${t.baseUrl}${webpUrl}`)).status).toBe(404);
    expect(await logoRows()).toBe(0);
    // removing again changes nothing (and records nothing)
    expect((await api.gql('mutation { removeLogo { logoUrl } }')).data.removeLogo.logoUrl).toBeNull();
  });

  it('records every branding, logo and return-origin change in account_audit with who, what and when', async () => {
    const before = await auditTrail();
    clock.advance(60_000);
    await api.gql('mutation($i: BrandingInput!) { setBranding(input: $i) { displayName } }', {
      i: { displayName: 'Logo Shop', accentColor: '#0f5132' },
    });
    clock.advance(60_000);
    await api.gql('mutation($o: [String!]!) { setReturnOrigins(origins: $o) }', {
      o: ['https://logo.example'],
    });
    const trail = await auditTrail();
    const me = (await t.svc.ds.query('SELECT id FROM dashboard_user WHERE business_id = ? AND role = ?', [
      businessId,
      'owner',
    ])) as { id: string }[];
    const user = `user:${me[0]?.id}`;
    // the earlier tests' logo changes happened at one clock instant: compared as a set
    expect(before.map((a) => [a.actor, a.action]).sort()).toEqual([
      [user, 'branding.logo.remove'],
      [user, 'branding.logo.set'],
      [user, 'branding.logo.set'],
      [user, 'branding.logo.set'],
    ]);
    expect(trail.slice(4).map((a) => [a.actor, a.action])).toEqual([
      [user, 'branding.set'],
      [user, 'return_origins.set'],
    ]);
    const sets = before.filter((a) => a.action === 'branding.logo.set').map((a) => a.detail.contentType);
    expect(sets.sort()).toEqual(['image/jpeg', 'image/png', 'image/webp']);
    expect(before.find((a) => a.detail.contentType === 'image/png')?.detail).toMatchObject({
      environment: 'sandbox',
      contentType: 'image/png',
      width: 120,
      height: 40,
    });
    expect(before.find((a) => a.action === 'branding.logo.remove')?.detail).toMatchObject({
      environment: 'sandbox',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(trail[4]).toMatchObject({
      at: '2030-03-01T10:01:00.000Z',
      detail: { environment: 'sandbox', displayName: 'Logo Shop', accentColor: '#0f5132' },
    });
    expect(trail[5]).toMatchObject({ at: '2030-03-01T10:02:00.000Z' });
    expect(trail[5]?.detail).toEqual({ environment: 'sandbox', origins: ['https://logo.example'] });
    // a refused change records nothing
    await api.gql('mutation($i: BrandingInput!) { setBranding(input: $i) { displayName } }', {
      i: { accentColor: '#ffff00' },
    });
    expect((await auditTrail()).length).toBe(6);
  });

  it('shows the logo on the signer page with the display name as its text, with no serious axe finding', async () => {
    const bytes = png(160, 48);
    const up = await uploadLogo(t.baseUrl, owner, { bytes, type: 'image/png', filename: 'logo.png' });
    expect(up.body.errors).toBeUndefined();
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(created.body.url);
    await page.getByTestId('start').waitFor();
    const logo = page.getByTestId('business-logo');
    await logo.waitFor();
    expect(await logo.getAttribute('alt')).toBe('Logo Shop');
    expect(await logo.getAttribute('src')).toBe(up.body.data.setLogo.logoUrl);
    // the browser decoded it (served with the right type under the page's CSP)
    await expect.poll(() => logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(160);
    expect(await page.locator('h1').textContent()).toContain('Logo Shop');
    expect(await axeFindings(page)).toEqual([]);
    if (SHOTS) {
      fs.mkdirSync(SHOTS, { recursive: true });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: path.join(SHOTS, `signer-branded-${width}.png`), fullPage: true });
      }
    }
  }, 60_000);
});
