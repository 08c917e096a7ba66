// The error reference the service serves itself (issue 7): every problem `type` is `{base_url}/errors/<code>`
// and resolves to a page about exactly that code, generated from the closed list (HTML for people, JSON on
// request). Public: no API key needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../server/src/common/errors';
import { Api, createBusiness, startTestService, type TestService } from '../support/harness';

let t: TestService;

beforeAll(async () => {
  t = await startTestService({ label: 'errref', workers: false });
});
afterAll(async () => {
  await t?.stop();
});

const codes = Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[];

describe('error reference', () => {
  it('a real problem carries a type URL that resolves to its code', async () => {
    const { apiKey } = await createBusiness(t);
    const res = await new Api(t.baseUrl, apiKey).rest('GET', '/v1/sessions/sess_nope');
    expect(res.status).toBe(404);
    expect(res.body.type).toBe(`${t.baseUrl}/errors/not_found`);
    const page = await fetch(res.body.type);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('not_found');
    const anonymous = await new Api(t.baseUrl).rest('GET', '/v1/catalog');
    expect(anonymous.body.type).toBe(`${t.baseUrl}/errors/unauthenticated`);
  });

  it.each(codes)('the type URL of %s resolves (200) and describes that code', async (code) => {
    const url = `${t.baseUrl}/errors/${code}`;
    const html = await fetch(url);
    expect(html.status).toBe(200);
    const text = await html.text();
    expect(text).toContain(`<code>${code}</code>`);
    expect(text).toContain(`HTTP ${ERROR_CODES[code].status}`);
    const json = await fetch(url, { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual({
      code,
      status: ERROR_CODES[code].status,
      title: ERROR_CODES[code].title,
      type: url,
    });
  });

  it('lists every code, and an unknown code is a 404 problem', async () => {
    const list = await fetch(`${t.baseUrl}/errors`, { headers: { Accept: 'application/json' } });
    expect(list.status).toBe(200);
    const body = (await list.json()) as { errors: { code: string; type: string }[] };
    expect(body.errors.map((e) => e.code)).toEqual(codes);
    for (const e of body.errors) expect(e.type).toBe(`${t.baseUrl}/errors/${e.code}`);
    const html = await (await fetch(`${t.baseUrl}/errors`)).text();
    for (const c of codes) expect(html).toContain(`href="/errors/${c}"`);

    for (const bad of ['nope', '__proto__', 'constructor', 'toString', '%3Cscript%3E']) {
      const res = await fetch(`${t.baseUrl}/errors/${bad}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('not_found');
    }
  });
});
