// Passkeys in real Chromium with a CDP virtual authenticator (WebAuthn.addVirtualAuthenticator): the owner
// accepts an invitation in the browser, registers a passkey, signs out, then signs in with the passkey alone
// (discoverable credential, no email). The service runs on http://localhost (a secure context, and a domain
// RP ID, which WebAuthn needs).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVirtualAuthenticator, launchChromium } from '../support/browser';
import { linkToken } from '../support/dashboard';
import { type Json, startTestService, type TestService } from '../support/harness';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

/** Runs in the page: JSON fetch with the CSRF token, and the WebAuthn JSON <-> binary conversions. */
const PAGE_HELPERS = `
  window.b64u = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  window.fromB64u = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0));
  window.post = async (path, body, csrf) => {
    const res = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(csrf ? { 'X-CSRF-Token': csrf } : {}) }, body: JSON.stringify(body ?? {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
`;

describe('passkeys in Chromium (virtual authenticator)', () => {
  let t: TestService;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestService({ label: 'passkeys', host: 'localhost', smtpUrl: smtp.url, workers: false });
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    // any page of the dashboard origin: the public key set is a plain JSON page
    await page.goto(`${t.baseUrl}/.well-known/service-audit-jwks.json`);
    await page.evaluate(PAGE_HELPERS);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await smtp?.stop();
  });

  it('registers a passkey, signs out, and signs in with it alone', async () => {
    const { link } = await t.svc.accounts.invitations.createBusinessWithOwner(
      'Acme GmbH',
      'pk-owner@acme.test',
      'e2e',
    );
    const mailed = await smtp.waitFor((m) => JSON.stringify(m.to).includes('pk-owner@acme.test'));
    expect(linkToken(mailed.text)).toBe(linkToken(link));

    // the browser accepts the invitation: the HttpOnly cookie lives in the browser, the page keeps the CSRF token
    const accepted = await page.evaluate(
      (token) => (window as Json).post('/auth/invitations/accept', { token }),
      linkToken(link),
    );
    expect(accepted.status).toBe(201);
    expect(await page.evaluate(() => document.cookie)).toBe(''); // HttpOnly: invisible to scripts
    const cookies = await context.cookies(t.baseUrl);
    expect(cookies.find((c) => c.name === 'svc_dashboard')).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });

    const registered = await page.evaluate(async (csrf) => {
      const w = window as Json;
      const o = await w.post('/auth/passkeys/register/options', {}, csrf);
      const opts = o.body.options;
      const cred = (await navigator.credentials.create({
        publicKey: {
          ...opts,
          challenge: w.fromB64u(opts.challenge),
          user: { ...opts.user, id: w.fromB64u(opts.user.id) },
          excludeCredentials: (opts.excludeCredentials ?? []).map((c: Json) => ({
            ...c,
            id: w.fromB64u(c.id),
          })),
        },
      })) as Json;
      const response = {
        id: cred.id,
        rawId: w.b64u(cred.rawId),
        type: cred.type,
        response: {
          clientDataJSON: w.b64u(cred.response.clientDataJSON),
          attestationObject: w.b64u(cred.response.attestationObject),
          transports: cred.response.getTransports?.() ?? [],
        },
        clientExtensionResults: cred.getClientExtensionResults(),
        authenticatorAttachment: cred.authenticatorAttachment,
      };
      return w.post('/auth/passkeys/register', { challenge_id: o.body.challenge_id, response }, csrf);
    }, accepted.body.csrf_token);
    expect(registered.status).toBe(201);
    expect(registered.body.id).toMatch(/^pk_/);

    const out = await page.evaluate(
      (csrf) => (window as Json).post('/auth/sign-out', {}, csrf),
      accepted.body.csrf_token,
    );
    expect(out.status).toBe(204);
    expect(await page.evaluate(async () => (await fetch('/auth/session')).status)).toBe(401);

    // sign in with the passkey alone: no email, no user name
    const signIn = await page.evaluate(async () => {
      const w = window as Json;
      const o = await w.post('/auth/passkeys/authenticate/options');
      const opts = o.body.options;
      const cred = (await navigator.credentials.get({
        publicKey: { ...opts, challenge: w.fromB64u(opts.challenge), allowCredentials: [] },
      })) as Json;
      const response = {
        id: cred.id,
        rawId: w.b64u(cred.rawId),
        type: cred.type,
        response: {
          clientDataJSON: w.b64u(cred.response.clientDataJSON),
          authenticatorData: w.b64u(cred.response.authenticatorData),
          signature: w.b64u(cred.response.signature),
          userHandle: cred.response.userHandle ? w.b64u(cred.response.userHandle) : undefined,
        },
        clientExtensionResults: cred.getClientExtensionResults(),
        authenticatorAttachment: cred.authenticatorAttachment,
      };
      const first = await w.post('/auth/passkeys/authenticate', {
        challenge_id: o.body.challenge_id,
        response,
      });
      // the same assertion again: its challenge is used up
      const replay = await w.post('/auth/passkeys/authenticate', {
        challenge_id: o.body.challenge_id,
        response,
      });
      return { first, replay };
    });
    expect(signIn.first.status).toBe(200);
    expect(signIn.first.body.user).toMatchObject({ email: 'pk-owner@acme.test', role: 'owner' });
    expect([signIn.replay.status, signIn.replay.body.code]).toEqual([401, 'passkey_invalid']);

    const me = await page.evaluate(async (csrf) => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: JSON.stringify({ query: '{ me { email } mySessions { method current } }' }),
      });
      return res.json();
    }, signIn.first.body.csrf_token);
    expect(me.data.me.email).toBe('pk-owner@acme.test');
    expect(me.data.mySessions).toEqual([{ method: 'passkey', current: true }]);
  }, 60_000);
});
