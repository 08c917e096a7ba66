// Owns reading a request's cookies safely (any browser, or attacker, can send any cookie).
import type { IncomingMessage } from 'node:http';

/**
 * A cookie's value, or undefined when it is absent or not a value we could have set: the raw value must be
 * cookie-octets (RFC 6265) whose percent-escapes decode. Validated before decoding, because
 * decodeURIComponent throws on a malformed escape and any browser (or attacker) can send any cookie.
 */
export function readCookie(req: Pick<IncomingMessage, 'headers'>, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      const raw = part.slice(i + 1).trim();
      if (raw.length > 4096 || !/^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/.test(raw)) return undefined;
      if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return undefined;
      try {
        return decodeURIComponent(raw);
      } catch {
        return undefined; // escapes that are not UTF-8
      }
    }
  }
  return undefined;
}
