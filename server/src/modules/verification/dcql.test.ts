// StoredDcqlQueries memoizes the parse of our own stored DCQL queries: the same text gives the same (frozen)
// result, a different text a different one, and a query the parser refuses is refused every time.
// The dcql package (patches/dcql@3.0.0.patch) builds a frozen query's matching schemas once: its answers must
// stay those of fresh schemas, whatever was matched before.
import { DcqlPresentationResult, type DcqlSdJwtVcCredential } from 'dcql';
import { describe, expect, it } from 'vitest';
import { buildAgeDcqlQuery, buildIdentifyDcqlQuery, PID_VCT, StoredDcqlQueries, sameJson } from './dcql';

const queries = new StoredDcqlQueries();
const storedDcqlQuery = (input: unknown) => queries.get(input);

describe('StoredDcqlQueries', () => {
  it('parses once per exact query text and shares a frozen result', () => {
    const query = JSON.parse(JSON.stringify(buildIdentifyDcqlQuery('pid', PID_VCT, ['given_name'])));
    const first = storedDcqlQuery(query);
    expect(storedDcqlQuery(JSON.parse(JSON.stringify(query)))).toBe(first);
    expect(Object.isFrozen(first.credentials[0]?.meta)).toBe(true);
    const other = storedDcqlQuery({ ...query, credentials: [{ ...query.credentials[0], id: 'pid2' }] });
    expect(other).not.toBe(first);
    expect(other.credentials[0]?.id).toBe('pid2');
  });

  it('holds at most its bound, oldest out', () => {
    const one = new StoredDcqlQueries(1);
    const a = buildIdentifyDcqlQuery('a', PID_VCT, ['given_name']);
    const first = one.get(a);
    expect(one.get(a)).toBe(first);
    one.get(buildIdentifyDcqlQuery('b', PID_VCT, ['given_name']));
    expect(one.get(a)).not.toBe(first);
    expect(one.get(a)).toEqual(first);
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

describe('DCQL matching against a stored (frozen) query', () => {
  const presented = (claims: Record<string, unknown>, vct = PID_VCT) => ({
    pid: [
      {
        credential_format: 'dc+sd-jwt' as const,
        vct,
        claims: claims as DcqlSdJwtVcCredential['claims'],
        cryptographic_holder_binding: true,
      },
    ],
  });
  const matches = (
    query: Parameters<typeof DcqlPresentationResult.fromDcqlPresentation>[1]['dcqlQuery'],
    claims: Record<string, unknown>,
    vct?: string,
  ) =>
    DcqlPresentationResult.fromDcqlPresentation(presented(claims, vct), { dcqlQuery: query })
      .credential_matches.pid?.success;

  it('answers as a fresh, unfrozen query does, call after call, passes and failures mixed', () => {
    const fresh = () => buildAgeDcqlQuery('pid', PID_VCT, 18);
    const stored = storedDcqlQuery(JSON.parse(JSON.stringify(fresh())));
    const cases: [Record<string, unknown>, string | undefined, boolean][] = [
      [{ age_over_18: true }, undefined, true],
      [{ family_name: 'x' }, undefined, false],
      [{ birth_date: '2000-01-01' }, undefined, true],
      [{ age_over_18: null }, undefined, false],
      [{ age_over_18: true }, 'urn:other', false],
      [{ age_over_18: true }, undefined, true],
    ];
    for (let round = 0; round < 2; round++)
      for (const [claims, vct, expected] of cases) {
        expect(matches(fresh(), claims, vct)).toBe(expected);
        expect(matches(stored, claims, vct)).toBe(expected);
      }
  });
});

describe('StoredDcqlQueries compares a fresh query with the stored ones of its shape', () => {
  const text = JSON.stringify(buildAgeDcqlQuery('pid', PID_VCT, 18));
  const fresh = () => JSON.parse(text) as Record<string, unknown>;

  it('finds the stored query for an equal fresh object, and another query for any change', () => {
    const own = new StoredDcqlQueries();
    const first = own.get(fresh());
    expect(own.get(fresh())).toBe(first);
    // same credential ids (same shape), another threshold: parsed on its own
    const other = own.get(JSON.parse(JSON.stringify(buildAgeDcqlQuery('pid', PID_VCT, 21))));
    expect(other).not.toBe(first);
    expect(JSON.stringify(other)).toContain('age_over_21');
    expect(own.get(fresh())).toBe(first);
    // keys in another order: another JSON text, so another (equal) parse, never the stored one
    const [{ format, ...credential }] = fresh().credentials as Record<string, unknown>[];
    const reordered = own.get({ credentials: [{ ...credential, format }] });
    expect(reordered).not.toBe(first);
    expect(reordered).toEqual(first);
  });

  it('agrees with JSON.stringify equality on values JSON converts or skips', () => {
    const source = JSON.parse('{"a":[1,"x",null,true],"b":{"c":0}}');
    const same = (v: unknown) => sameJson(v, source);
    expect(same({ a: [1, 'x', null, true], b: { c: 0 } })).toBe(true);
    expect(same({ a: [1, 'x', null, true], b: { c: -0 } })).toBe(true); // both "0"
    for (const v of [
      { a: [1, 'x', undefined, true], b: { c: 0 } }, // undefined in an array is "null": not compared
      { a: [1, 'x', null, true], b: { c: 0 }, d: undefined }, // a skipped key
      { b: { c: 0 }, a: [1, 'x', null, true] }, // another order, another text
      { a: [1, 'x', null, true], b: { c: Number.NaN } },
      { a: [1, 'x', null, true], b: { c: '0' } },
      { a: [1, 'x', null, true], b: new Map([['c', 0]]) },
      { a: Object.assign([1, 'x', null, true], { toJSON: () => [] }), b: { c: 0 } },
      { a: [1, 'x', null, true], b: { c: 0, toJSON: () => ({ c: 0 }) } },
    ])
      expect(same(v)).toBe(false);
    const sparse = [1, 'x', null, true];
    delete sparse[2];
    expect(same({ a: sparse, b: { c: 0 } })).toBe(false);
  });
});
