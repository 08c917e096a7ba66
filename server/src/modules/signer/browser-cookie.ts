// Owns the HTTP side of the browser binding: reading a request's cookies safely, the binding cookie's name,
// scope and lifetime, and setting it. What a cookie value means (issued by us or not, bound or not) is
// browser-binding.ts's decision.
import type { IncomingMessage } from 'node:http';
import { readCookie } from '../../common/cookies';
import { BROWSER_COOKIE_NAME } from './browser-binding';

/** The server-issued browser cookie (browser-binding.ts). */
export const BROWSER_COOKIE = BROWSER_COOKIE_NAME;
/**
 * The binding cookie's lifetime, renewed on every use (opening the hosted page, Start, the receipt read): 400 days,
 * the most a browser keeps a cookie (RFC 6265bis). The cookie only says which browser this is; when a session
 * and its 48-hour receipt access end is the server's decision, so its lifetime never ends either early (a
 * session may wait at a gate for days). ADR 0028.
 */
export const BROWSER_COOKIE_MAX_AGE_S = 400 * 24 * 3600;

/**
 * The browser token as the transport reads it: a bounded URL-safe string (today 32 random bytes in base64url;
 * kept loose enough for a signed form), anything else is no token at all.
 */
export const browserTokenOf = (req: Pick<IncomingMessage, 'headers'>): string | undefined => {
  const v = readCookie(req, BROWSER_COOKIE);
  return v !== undefined && /^[\w.~-]{16,256}$/.test(v) ? v : undefined;
};

/**
 * Sets (or renews) the binding cookie. Scope: host-only on the host that answered, which for the hosted page is
 * `{hosted_url}`'s host (no Domain attribute), Path=/, HttpOnly, Secure, SameSite=Strict.
 */
export function setBrowserCookie(
  res: { setHeader(name: string, value: string): unknown },
  token: string,
): void {
  res.setHeader(
    'Set-Cookie',
    `${BROWSER_COOKIE}=${token}; Path=/; Max-Age=${BROWSER_COOKIE_MAX_AGE_S}; HttpOnly; Secure; SameSite=Strict`,
  );
}
