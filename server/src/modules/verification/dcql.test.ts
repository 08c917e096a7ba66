// storedDcqlQuery memoizes the parse of our own stored DCQL queries: the same text gives the same (frozen)
// result, a different text a different one, and a query the parser refuses is refused every time.
import { describe, expect, it } from 'vitest';
import { buildIdentifyDcqlQuery, PID_VCT, storedDcqlQuery } from './dcql';

describe('storedDcqlQuery', () => {
  it('parses once per exact query text and shares a frozen result', () => {
    const query = JSON.parse(JSON.stringify(buildIdentifyDcqlQuery('pid', PID_VCT, ['given_name'])));
    const first = storedDcqlQuery(query);
    expect(storedDcqlQuery(JSON.parse(JSON.stringify(query)))).toBe(first);
    expect(Object.isFrozen(first.credentials[0]?.meta)).toBe(true);
    const other = storedDcqlQuery({ ...query, credentials: [{ ...query.credentials[0], id: 'pid2' }] });
    expect(other).not.toBe(first);
    expect(other.credentials[0]?.id).toBe('pid2');
  });

  it('refuses an invalid query on every call', () => {
    const bad = {
      credentials: [
        { id: 'a', format: 'dc+sd-jwt' },
        { id: 'a', format: 'dc+sd-jwt' },
      ],
    };
    expect(() => storedDcqlQuery(bad)).toThrow();
    expect(() => storedDcqlQuery(bad)).toThrow();
    expect(() => storedDcqlQuery(undefined)).toThrow();
  });
});
