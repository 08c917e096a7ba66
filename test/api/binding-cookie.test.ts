// The browser-binding cookie as a browser keeps it (issue 17 finding 7, ADR 0028): its lifetime never ends a
// session or its 48-hour receipt access early (renewed on every use), and the spec's signer receipt read
// `GET /v1/sessions/{id}/receipt` works both when the hosted page and the API share an origin and when
// HOSTED_URL and BASE_URL are different origins. The browser below is a cookie jar that does what a browser
// does with Set-Cookie: host-only cookies, Max-Age counted on the injected clock, redirects followed.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import type { Api, Json, TestService } from '../support/harness';
import { identifyFixture } from '../support/page-fixture';

const HOUR = 3600_000;

/** A browser's cookie jar and fetch: cookies per host (no Domain attribute: host-only), expiring by Max-Age. */
class Browser {
  private readonly jar = new Map<string, { name: string; value: string; expiresAt: number }>();
  constructor(private readonly clock: ManualClock) {}

  cookieFor(host: string): string | undefined {
    const c = this.jar.get(host);
    if (!c || c.expiresAt <= this.clock.now().getTime()) return undefined;
    return `${c.name}=${c.value}`;
  }

  async fetch(
    url: string,
    init: RequestInit = {},
    hops = 0,
  ): Promise<{ status: number; body: Json; url: string }> {
    const u = new URL(url);
    const cookie = this.cookieFor(u.host);
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { Cookie: cookie } : {}) },
    });
    const set = res.headers.get('set-cookie');
    if (set) {
      const [pair, ...attrs] = set.split(';').map((p) => p.trim());
      const [name, value] = (pair as string).split('=') as [string, string];
      expect(attrs.some((a) => /^domain=/i.test(a))).toBe(false); // host-only: no Domain attribute
      const maxAge = Number(attrs.find((a) => /^max-age=/i.test(a))?.split('=')[1]);
      this.jar.set(u.host, { name, value, expiresAt: this.clock.now().getTime() + maxAge * 1000 });
    }
    if (res.status >= 300 && res.status < 400 && res.headers.get('location') && hops < 3) {
      await res.arrayBuffer();
      return this.fetch(new URL(res.headers.get('location') as string, url).toString(), init, hops + 1);
    }
    return { status: res.status, body: res.status === 204 ? {} : await res.json(), url };
  }
}

/** One person's browser on one session's hosted page at `hostedUrl`. */
const hostedPage = (browser: Browser, hostedUrl: string, id: string) => {
  const t = (suffix: string, method = 'GET', body?: unknown) =>
    browser.fetch(`${hostedUrl}/t/sessions/${id}${suffix}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }),
    });
  return {
    open: () => t('/open', 'POST'),
    start: () => t('/start', 'POST'),
    wallet: () => t('/wallet-request', 'POST'),
    submit: (requestId: string, response: unknown) =>
      t('/wallet-response', 'POST', { request_id: requestId, response }),
  };
};

async function completeIdentify(
  t: TestService,
  api: Api,
  browser: Browser,
  workflowId: string,
): Promise<{ id: string; hostedUrl: string }> {
  const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const hostedUrl = new URL(created.body.url as string).origin;
  const page = hostedPage(browser, hostedUrl, id);
  expect((await page.open()).status).toBe(204);
  expect((await page.start()).status).toBe(200);
  const wr = await page.wallet();
  expect(wr.status).toBe(200);
  const response = await t.svc.wallet.respond({
    persona: 'adult',
    request: wr.body.request,
    origin: hostedUrl,
  });
  const done = await page.submit(wr.body.request_id, response);
  expect(done.status).toBe(200);
  expect(done.body.status).toBe('completed');
  return { id, hostedUrl };
}

describe('binding cookie lifetime', () => {
  const clock = new ManualClock(Date.now());
  const page = identifyFixture({ clock, workers: false, label: 'binding_lifetime' });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  beforeAll(() => ({ t, api, workflowId } = page));

  it('a browser whose cookie was issued 70 h ago starts a session now and reads its receipt 48 h after completion', async () => {
    const browser = new Browser(clock);
    // 70 hours ago this browser opened another session's page and got its cookie
    const earlier = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect((await hostedPage(browser, t.baseUrl, earlier.body.id).open()).status).toBe(204);
    const host = new URL(t.baseUrl).host;
    const issued = browser.cookieFor(host);
    expect(issued).toMatch(/^svc_browser=/);
    clock.advance(70 * HOUR);

    const { id } = await completeIdentify(t, api, browser, workflowId);
    expect(browser.cookieFor(host)).toBe(issued); // the same browser, the same cookie: renewed, not replaced
    clock.advance(48 * HOUR - 60_000);
    const read = await browser.fetch(`${t.baseUrl}/v1/sessions/${id}/receipt`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ session_id: id, status: 'completed', partial: false });
    expect(read.body.results).toHaveLength(1);
    // the 48 hours are the server's: a minute later access has ended, cookie or not
    clock.advance(2 * 60_000);
    expect((await browser.fetch(`${t.baseUrl}/v1/sessions/${id}/receipt`)).body.code).toBe(
      'receipt_access_ended',
    );
  });
});

describe.each([
  ['same origin', undefined],
  ['split origins', 'localhost'],
] as const)('signer receipt read, %s', (_layout, hostedHost) => {
  const clock = new ManualClock(Date.now());
  const page = identifyFixture({ clock, workers: false, label: 'binding_origins', hostedHost });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  beforeAll(() => ({ t, api, workflowId } = page));

  it('the bound browser reads GET {base_url}/v1/sessions/{id}/receipt; another browser cannot', async () => {
    const browser = new Browser(clock);
    const { id, hostedUrl } = await completeIdentify(t, api, browser, workflowId);
    expect(hostedUrl !== new URL(t.baseUrl).origin).toBe(hostedHost !== undefined);

    const read = await browser.fetch(`${t.baseUrl}/v1/sessions/${id}/receipt`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ session_id: id, status: 'completed', partial: false });
    // answered where the cookie lives: the API origin itself, or the hosted origin it redirected to
    expect(new URL(read.url).origin).toBe(hostedUrl);
    // the hosted origin answers the same read
    expect((await browser.fetch(`${hostedUrl}/v1/sessions/${id}/receipt`)).status).toBe(200);

    const stranger = new Browser(clock);
    const refused = await stranger.fetch(`${t.baseUrl}/v1/sessions/${id}/receipt`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('session_bound_elsewhere');
  });
});
