// Owns fetching Token Status Lists over HTTP (TSL "Validation Rules"): Accept statuslist+jwt (SD-JWT VC) or
// statuslist+cwt (mdoc), follow redirects, require the matching content type, bounded time and size, and the
// ttl-bounded caches of both forms. Verification of the token is the verifier's job.
import { cborDecode, Sign1 } from '@owf/mdoc';
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

/** The mdoc lists' media types: the Token Status List in CWT form; `application/cwt` for an ISO identifier list. */
const CWT_TYPES = ['application/statuslist+cwt', 'application/cwt'];

/** GET of an mdoc status list (Token Status List CWT, or an ISO 18013-5 identifier list): the COSE_Sign1 bytes. */
export function httpStatusListCwtFetcher(
  opts: { timeoutMs?: number } = {},
): (uri: string) => Promise<Uint8Array> {
  return async (uri) => {
    const url = new URL(uri);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new Error('status list uri must be http(s)');
    }
    const res = await fetch(url, {
      headers: { accept: CWT_TYPES.join(', ') },
      redirect: 'follow',
      signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
    });
    if (!res.ok) throw new Error(`status list fetch failed: HTTP ${res.status}`);
    const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!CWT_TYPES.includes(type)) throw new Error(`status list has content type ${type}`);
    const body = new Uint8Array(await res.arrayBuffer());
    if (body.length > MAX_BYTES) throw new Error('status list too large');
    return body;
  };
}

/**
 * The mdoc counterpart of cachingStatusListFetcher: caches a list for its CWT `ttl` (65534), never beyond its
 * `exp` (4), read without verification (the verifier verifies on every use; the cache only saves the round trip).
 */
export function cachingStatusListCwtFetcher(
  inner: (uri: string) => Promise<Uint8Array>,
  clock: Clock,
  opts: { maxEntries?: number; maxTtlSeconds?: number } = {},
): (uri: string) => Promise<Uint8Array> {
  const maxEntries = opts.maxEntries ?? 1000;
  const maxTtl = opts.maxTtlSeconds ?? 3600;
  const cache = new Map<string, { token: Uint8Array; until: number }>();
  return async (uri) => {
    const now = clock.now().getTime();
    const hit = cache.get(uri);
    if (hit && now < hit.until) return hit.token;
    cache.delete(uri);
    const token = await inner(uri);
    let claims: Map<number, unknown>;
    try {
      claims = cborDecode(Sign1.decode(token).payload ?? new Uint8Array()) as Map<number, unknown>;
      if (!(claims instanceof Map)) return token;
    } catch {
      return token; // not a COSE_Sign1 CWT: the verifier refuses it; nothing to cache
    }
    const ttl = claims.get(65534);
    const exp = claims.get(4);
    if (typeof ttl === 'number' && ttl > 0) {
      let until = now + Math.min(ttl, maxTtl) * 1000;
      if (typeof exp === 'number') until = Math.min(until, exp * 1000);
      if (until > now) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(uri, { token, until });
      }
    }
    return token;
  };
}
