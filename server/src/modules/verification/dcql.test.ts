// StoredDcqlQueries memoizes the parse of our own stored DCQL queries: the same text gives the same (frozen)
// result, a different text a different one, and a query the parser refuses is refused every time.
// The dcql package (patches/dcql@3.0.0.patch) builds a frozen query's matching schemas once: its answers must
// stay those of fresh schemas, whatever was matched before.
import { DcqlPresentationResult, type DcqlSdJwtVcCredential } from 'dcql';
import { describe, expect, it } from 'vitest';
import { buildAgeDcqlQuery, buildIdentifyDcqlQuery, PID_VCT, StoredDcqlQueries } from './dcql';

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
