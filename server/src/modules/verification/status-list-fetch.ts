// Owns fetching Token Status Lists over HTTP (TSL "Validation Rules"): Accept statuslist+jwt, follow redirects,
// require the matching content type, bounded time and size. Verification of the token is the verifier's job.
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
