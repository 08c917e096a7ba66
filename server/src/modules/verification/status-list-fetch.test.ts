import { UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../common/clock';
import { cachingStatusListFetcher } from './status-list-fetch';

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
