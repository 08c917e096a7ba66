// The lean lane's own rules (fast-lane.ts, ADR 0023): which requests it takes, how it parses JSON, and that a
// lane can never shadow another route. Its answers are compared with Express's in test/api/fast-lane.test.ts.
import { describe, expect, it } from 'vitest';
import { AppError } from './errors';
import { parseStrictJson } from './fast-lane';
import { RouteRegistry } from './http';

const lane = { handle: async () => ({ status: 200, body: {} }) };
const noop = () => {};

describe('lane routes', () => {
  it('matches only the plain form of a path and names its parameters', () => {
    const reg = new RouteRegistry();
    reg.add({ method: 'get', path: '/v1/sessions/:id', auth: 'api_key', handler: noop, lane });
    const [route] = reg.lanes();
    expect(route?.method).toBe('GET');
    expect(route?.match('/v1/sessions/sess_abc-1')).toEqual({ id: 'sess_abc-1' });
    for (const other of [
      '/v1/sessions/sess%5Fabc', // escapes: Express decodes them
      '/v1/sessions/sess_abc/', // trailing slash
      '/V1/sessions/sess_abc', // case
      '/v1/sessions/a/b',
      '/v1/sessions/',
      `/v1/sessions/${'a'.repeat(129)}`,
    ])
      expect(route?.match(other), other).toBeUndefined();
  });

  it('refuses a lane that would take a request routed elsewhere, or a lane on a route without an API key', () => {
    const reg = new RouteRegistry();
    reg.add({ method: 'get', path: '/v1/things/:id', auth: 'api_key', handler: noop, lane });
    reg.add({ method: 'get', path: '/v1/things/stats', auth: 'api_key', handler: noop });
    expect(() => reg.lanes()).toThrow(/would take \/v1\/things\/stats/);
    expect(() =>
      new RouteRegistry().add({ method: 'get', path: '/t/x', auth: 'signer', handler: noop, lane }),
    ).toThrow(/non-api_key/);
  });
});

describe('strict JSON, as body-parser reads it', () => {
  const code = (text: string) => {
    try {
      parseStrictJson(text);
      return 'ok';
    } catch (e) {
      return e instanceof AppError ? e.code : 'thrown';
    }
  };
  it('accepts objects and arrays, an empty body as {}, and drops a byte order mark', () => {
    expect(parseStrictJson('')).toEqual({});
    expect(parseStrictJson(' \n{"a":1}')).toEqual({ a: 1 });
    expect(parseStrictJson('[1]')).toEqual([1]);
    expect(parseStrictJson('\ufeff{"a":1}')).toEqual({ a: 1 });
    expect(parseStrictJson('\ufeff')).toEqual({});
  });
  it('refuses scalars, whitespace only and broken JSON with invalid_json', () => {
    for (const t of ['"x"', '1', 'null', 'true', '   ', '{"a":', '{a:1}', '\u00a0{}'])
      expect(code(t), JSON.stringify(t)).toBe('invalid_json');
  });
});
