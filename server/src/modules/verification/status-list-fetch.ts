// Owns fetching Token Status Lists over HTTP (TSL "Validation Rules"): Accept statuslist+jwt (SD-JWT VC) or
// statuslist+cwt (mdoc), follow redirects, require the matching content type, bounded time and size, and the
// ttl-bounded caches of both forms. Verification of the token is the verifier's job.
import { cborDecode, Sign1 } from '@owf/mdoc';
import { decodeJwt } from 'jose';
import type { Clock } from '../../common/clock';

const MAX_BYTES = 1_000_000;

/** One GET of a list: http(s) only, redirects followed, one of `types` as the content type, bounded. */
async function fetchList(uri: string, types: readonly string[], timeoutMs = 5000): Promise<Uint8Array> {
  const url = new URL(uri);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('status list uri must be http(s)');
  }
  const res = await fetch(url, {
    headers: { accept: types.join(', ') },
    redirect: 'follow',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`status list fetch failed: HTTP ${res.status}`);
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!types.includes(type)) throw new Error(`status list has content type ${type}`);
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length > MAX_BYTES) throw new Error('status list too large');
  return body;
}

export function httpStatusListFetcher(opts: { timeoutMs?: number } = {}): (uri: string) => Promise<string> {
  return async (uri) =>
    Buffer.from(await fetchList(uri, ['application/statuslist+jwt'], opts.timeoutMs))
      .toString('utf8')
      .trim();
}

/** The mdoc lists' media types: the Token Status List in CWT form; `application/cwt` for an ISO identifier list. */
const CWT_TYPES = ['application/statuslist+cwt', 'application/cwt'];

/** GET of an mdoc status list (Token Status List CWT, or an ISO 18013-5 identifier list): the COSE_Sign1 bytes. */
export function httpStatusListCwtFetcher(
  opts: { timeoutMs?: number } = {},
): (uri: string) => Promise<Uint8Array> {
  return (uri) => fetchList(uri, CWT_TYPES, opts.timeoutMs);
}

type CacheOpts = { maxEntries?: number; maxTtlSeconds?: number };

/**
 * A fetcher that keeps each list for as long as the list itself allows (TSL: `ttl` governs caching, never
 * beyond `exp`); lists without `ttl`, or whose times cannot be read, are not cached. The verifier still
 * verifies the list on every use: the cache only saves the network round trip. Bounded in size.
 */
function ttlCache<T>(
  inner: (uri: string) => Promise<T>,
  clock: Clock,
  timesOf: (token: T) => { ttl?: unknown; exp?: unknown } | undefined,
  opts: CacheOpts,
): (uri: string) => Promise<T> {
  const maxEntries = opts.maxEntries ?? 1000;
  const maxTtl = opts.maxTtlSeconds ?? 3600;
  const cache = new Map<string, { token: T; until: number }>();
  // one fetch per list at a time: a burst of answers on a cold cache shares it instead of sending one GET each
  // (at 64 answers at once each GET waited behind the others and timed out; issue 27). It runs before any
  // transaction (verification precedes the completion's), so waiting for it holds no connection.
  const inflight = new Map<string, Promise<T>>();
  return async (uri) => {
    const now = clock.now().getTime();
    const hit = cache.get(uri);
    if (hit && now < hit.until) return hit.token;
    cache.delete(uri);
    let pending = inflight.get(uri);
    if (!pending) {
      pending = inner(uri).finally(() => inflight.delete(uri));
      inflight.set(uri, pending);
    }
    const token = await pending;
    if (cache.has(uri)) return token;
    const { ttl, exp } = timesOf(token) ?? {};
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

/** Caches status list JWTs by their `ttl` and `exp` claims (read without verification). */
export function cachingStatusListFetcher(
  inner: (uri: string) => Promise<string>,
  clock: Clock,
  opts: CacheOpts = {},
): (uri: string) => Promise<string> {
  return ttlCache(
    inner,
    clock,
    (token) => {
      try {
        return decodeJwt(token);
      } catch {
        return undefined; // not a JWT: the verifier refuses it; nothing to cache
      }
    },
    opts,
  );
}

/**
 * The mdoc counterpart of cachingStatusListFetcher: caches a list for its CWT `ttl` (65534), never beyond its
 * `exp` (4), read without verification.
 */
export function cachingStatusListCwtFetcher(
  inner: (uri: string) => Promise<Uint8Array>,
  clock: Clock,
  opts: CacheOpts = {},
): (uri: string) => Promise<Uint8Array> {
  return ttlCache(
    inner,
    clock,
    (token) => {
      try {
        const claims = cborDecode(Sign1.decode(token).payload ?? new Uint8Array());
        if (!(claims instanceof Map)) return undefined;
        return { ttl: claims.get(65534), exp: claims.get(4) };
      } catch {
        return undefined; // not a COSE_Sign1 CWT: the verifier refuses it; nothing to cache
      }
    },
    opts,
  );
}
