// The same-device redirect of OpenID4VP 1.0 §8.2 (issue 26, ADR 0050): the independent test wallet (which
// shares no library with the verifier) answers a direct_post.jwt request, reads the redirect_uri the response
// endpoint returns, and the test follows it as a browser would: the session's own browser sees the outcome,
// another browser is refused with redirect_other_browser and learns nothing; the response_code is single-use
// and expires.
import { beforeAll, describe, expect, it } from 'vitest';
import { annexCSuite } from '../support/annex-c-suite';
import type { Json } from '../support/harness';
import type { AnnexCWallet } from '../support/independent-wallet/annex-c-wallet';
import { answerCrossDeviceMdoc, resolveRequest } from '../support/independent-wallet/cross-device';
import { SignerClient } from '../support/signer';

describe('same-device redirect after direct_post.jwt, bound to the session browser', () => {
  const s = annexCSuite('wallet_redirect');
  const { newSession, clock } = s;
  let baseUrl: string;
  let wallet: AnnexCWallet;
  let rootPem: string;
  beforeAll(async () => {
    baseUrl = s.state.t.baseUrl;
    wallet = s.state.wallet;
    rootPem = await (await fetch(`${baseUrl}/oid4vp/verifier-root.pem`)).text();
  });

  /** A started session whose wallet answered at response_uri; what the response endpoint answered. */
  const answered = async () => {
    const { id, signer } = await newSession('identify');
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    const request = await resolveRequest(cd.body.uri as string, rootPem);
    const res = await answerCrossDeviceMdoc({ request, wallet });
    expect(res.status).toBe(200);
    return { id, signer, redirectUri: String(res.body.redirect_uri) };
  };
  /** What the hosted page does at the redirect: the response_code from the fragment, posted with its cookie. */
  const present = (browser: SignerClient, redirectUri: string) => {
    const code = new URLSearchParams(new URL(redirectUri).hash.slice(1)).get('response_code');
    return browser.call('POST', '/wallet-redirect', { response_code: code });
  };

  it('answers a redirect_uri to the hosted page with a fresh response_code; the bound browser sees the completion', async () => {
    const { id, signer, redirectUri } = await answered();
    const url = new URL(redirectUri);
    expect(url.origin).toBe(new URL(baseUrl).origin);
    expect(url.pathname).toBe(`/s/${id}/return`);
    expect(url.search).toBe('');
    const code = new URLSearchParams(url.hash.slice(1)).get('response_code') ?? '';
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // the step completed at the wallet's POST, before any browser came back
    expect((await s.state.api.rest('GET', `/v1/sessions/${id}`)).body.status).toBe('completed');
    // the hosted page is served at the redirect
    const page = await fetch(redirectUri);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const shown = await present(signer, redirectUri);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ session_id: id, status: 'completed', stage: 1 });
    // single-use: the same code again is refused
    const again = await present(signer, redirectUri);
    expect({ status: again.status, code: again.body.code }).toEqual({
      status: 422,
      code: 'request_not_found',
    });
  });

  it('a redirect completed in another browser is refused with redirect_other_browser and discloses nothing', async () => {
    const { id, signer, redirectUri } = await answered();
    const other = new SignerClient(baseUrl, id);
    expect((await other.open()).status).toBe(204); // another browser with its own binding cookie
    const refused = await present(other, redirectUri);
    expect({ status: refused.status, code: refused.body.code }).toEqual({
      status: 403,
      code: 'redirect_other_browser',
    });
    const text = JSON.stringify(refused.body);
    for (const leak of ['completed', 'in_progress', 'stage', 'given_name']) expect(text).not.toContain(leak);
    // a browser with no cookie at all is refused the same way
    const { id: id2, redirectUri: uri2 } = await answered();
    const bare = await present(new SignerClient(baseUrl, id2), uri2);
    expect({ status: bare.status, code: bare.body.code }).toEqual({
      status: 403,
      code: 'redirect_other_browser',
    });
    // the first presentation burned the code: the bound browser cannot reuse it, but its session view is intact
    const late = await present(signer, redirectUri);
    expect(late.body.code).toBe('request_not_found');
    expect(((await signer.session()).body as Json).status).toBe('completed');
  });

  it('an expired, malformed or other-session response_code is request_not_found', async () => {
    const { signer, redirectUri } = await answered();
    clock.advance(10 * 60 * 1000 + 1);
    const expired = await present(signer, redirectUri);
    expect({ status: expired.status, code: expired.body.code }).toEqual({
      status: 422,
      code: 'request_not_found',
    });
    for (const bad of [undefined, 42, 'short', 'x'.repeat(43).replace(/x/g, '%')]) {
      const res = await signer.call('POST', '/wallet-redirect', { response_code: bad });
      expect({ status: res.status, code: res.body.code }).toEqual({
        status: 422,
        code: 'request_not_found',
      });
    }
    const a = await answered();
    const b = await newSession('identify');
    const cross = await present(b.signer, a.redirectUri.replace(`/s/${a.id}/`, `/s/${b.id}/`));
    expect(cross.body.code).toBe('request_not_found');
    // the right session still redeems it (the wrong-session attempt did not burn it)
    expect((await present(a.signer, a.redirectUri)).status).toBe(200);
  });
});
