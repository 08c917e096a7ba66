// Owns fetching Token Status Lists over HTTP (TSL "Validation Rules"): Accept statuslist+jwt, follow redirects,
// require the matching content type, bounded time and size. Verification of the token is the verifier's job.
import { decodeJwt } from 'jose';
import type { Clock } from '../../common/clock';

const MAX_BYTES = 1_000_000;

export function httpStatusListFetcher(opts: { timeoutMs?: number } = {}): (uri: string) => Promise<string> {
  return async (uri) => {
    const url = new URL(uri);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error('status list uri must be http(s)');
    }
    const res = await fetch(url, {
      headers: { accept: 'application/statuslist+jwt' },
      redirect: 'follow',
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
    });
    if (!res.ok) throw new Error(`status list fetch failed: HTTP ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/statuslist+jwt') throw new Error(`status list has content type ${type}`);
    const body = await res.text();
    if (body.length > MAX_BYTES) throw new Error('status list too large');
    return body.trim();
  };
}

/**
 * Caches fetched status list tokens for as long as the token itself allows (TSL: the `ttl` claim governs
 * caching, never beyond `exp`). Tokens without `ttl` are not cached. The verifier still verifies the token
 * (signature, `sub`, `exp`) on every use: the cache only saves the network round trip. Bounded in size.
 */
export function cachingStatusListFetcher(
  inner: (uri: string) => Promise<string>,
  clock: Clock,
  opts: { maxEntries?: number; maxTtlSeconds?: number } = {},
): (uri: string) => Promise<string> {
  const maxEntries = opts.maxEntries ?? 1000;
  const maxTtl = opts.maxTtlSeconds ?? 3600;
  const cache = new Map<string, { token: string; until: number }>();
  return async (uri) => {
    const now = clock.now().getTime();
    const hit = cache.get(uri);
    if (hit && now < hit.until) return hit.token;
    cache.delete(uri);
    const token = await inner(uri);
    let claims: { ttl?: unknown; exp?: unknown } = {};
    try {
      claims = decodeJwt(token);
    } catch {
      return token; // not a JWT: the verifier refuses it; nothing to cache
    }
    if (typeof claims.ttl === 'number' && claims.ttl > 0) {
      let until = now + Math.min(claims.ttl, maxTtl) * 1000;
      if (typeof claims.exp === 'number') until = Math.min(until, claims.exp * 1000);
      if (until > now) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(uri, { token, until });
      }
    }
    return token;
  };
}
