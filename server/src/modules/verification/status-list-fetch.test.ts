import { cborEncode } from '@owf/mdoc';
import { UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock';
import { cachingStatusListCwtFetcher, cachingStatusListFetcher } from './status-list-fetch';

const token = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).encode();

describe('status list cache', () => {
  it('reuses a token for its ttl, never beyond exp, and refetches afterwards', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22));
    const nowS = clock.now().getTime() / 1000;
    const served = [token({ ttl: 300, exp: nowS + 3600 }), token({ ttl: 300, exp: nowS + 301 + 100 })];
    let fetches = 0;
    const fetcher = cachingStatusListFetcher(async () => served[Math.min(fetches++, 1)] as string, clock);
    const uri = 'https://issuer.example/status/1';

    expect(await fetcher(uri)).toBe(served[0]);
    clock.advance(299_000);
    expect(await fetcher(uri)).toBe(served[0]);
    expect(fetches).toBe(1);
    clock.advance(2_000); // ttl passed
    expect(await fetcher(uri)).toBe(served[1]);
    expect(fetches).toBe(2);
    clock.advance(99_000); // within ttl, but the token's exp (100 s) caps the cache
    await fetcher(uri);
    expect(fetches).toBe(2);
    clock.advance(2_000);
    await fetcher(uri);
    expect(fetches).toBe(3);
  });

  it('does not cache tokens without ttl, nor other URIs', async () => {
    const clock = new ManualClock();
    let fetches = 0;
    const fetcher = cachingStatusListFetcher(async (uri) => {
      fetches++;
      return uri.endsWith('/a') ? token({ exp: 9e9 }) : token({ ttl: 60 });
    }, clock);
    await fetcher('https://i.example/a');
    await fetcher('https://i.example/a');
    expect(fetches).toBe(2);
    await fetcher('https://i.example/b');
    await fetcher('https://i.example/c');
    expect(fetches).toBe(4);
  });
});

/** A COSE_Sign1 CWT with these claims (the cache reads, never verifies: a dummy signature is enough). */
const cwt = (claims: Map<number, unknown>): Uint8Array =>
  cborEncode([cborEncode(new Map([[1, -7]])), new Map(), cborEncode(claims), new Uint8Array(64)]);

describe('mdoc status list (CWT) cache', () => {
  it('reuses a list for its ttl (65534), never beyond exp (4), and refetches afterwards', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 25));
    const nowS = clock.now().getTime() / 1000;
    const served = [
      cwt(
        new Map([
          [65534, 300],
          [4, nowS + 3600],
        ]),
      ),
      cwt(
        new Map([
          [65534, 300],
          [4, nowS + 301 + 100],
        ]),
      ),
    ];
    let fetches = 0;
    const fetcher = cachingStatusListCwtFetcher(
      async () => served[Math.min(fetches++, 1)] as Uint8Array,
      clock,
    );
    const uri = 'https://issuer.example/mdoc-status/1';
    expect(await fetcher(uri)).toBe(served[0]);
    clock.advance(299_000);
    expect(await fetcher(uri)).toBe(served[0]);
    expect(fetches).toBe(1);
    clock.advance(2_000);
    expect(await fetcher(uri)).toBe(served[1]);
    clock.advance(99_000);
    await fetcher(uri);
    expect(fetches).toBe(2);
    clock.advance(2_000);
    await fetcher(uri);
    expect(fetches).toBe(3);
  });

  it('does not cache a list without ttl, nor bytes that are not a CWT', async () => {
    const clock = new ManualClock();
    let fetches = 0;
    const fetcher = cachingStatusListCwtFetcher(async (uri) => {
      fetches++;
      return uri.endsWith('/a') ? cwt(new Map([[4, 9e9]])) : new Uint8Array([1, 2, 3]);
    }, clock);
    await fetcher('https://i.example/a');
    await fetcher('https://i.example/a');
    await fetcher('https://i.example/b');
    await fetcher('https://i.example/b');
    expect(fetches).toBe(4);
  });
});
