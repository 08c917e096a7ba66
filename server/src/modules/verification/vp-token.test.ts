// dcqlPresentations reads the plain vp_token shape without the openid4vp library (vp-token.ts,
// plainDcqlPresentations): for every shape below, plain or not, its answer must be the library's (the same
// presentations, or a refusal as presentation_malformed where the library throws).
import {
  parseOpenid4VpAuthorizationResponsePayload,
  validateOpenid4vpAuthorizationResponsePayload,
} from '@openid4vc/openid4vp';
import { describe, expect, it } from 'vitest';
import { dcqlPresentations } from './vp-token';

type Json = Record<string, unknown>;
const dcql_query = { credentials: [{ id: 'pid', format: 'mso_mdoc', meta: { doctype_value: 'x' } }] };
const request: Json = { response_type: 'vp_token', nonce: 'n', dcql_query };
const withState: Json = { ...request, state: 's1' };

/** What the library alone answers: the presentations, or 'refused'. */
function library(req: Json, response: unknown): unknown {
  try {
    const payload = parseOpenid4VpAuthorizationResponsePayload(response as Json);
    const validated = validateOpenid4vpAuthorizationResponsePayload({
      authorizationRequestPayload: req as never,
      authorizationResponsePayload: payload,
    });
    return validated.type === 'dcql' ? validated.dcql.presentations : 'refused';
  } catch {
    return 'refused';
  }
}

function ours(req: Json, response: unknown): unknown {
  try {
    return dcqlPresentations(req, response);
  } catch (e) {
    expect((e as { code?: string }).code).toBe('presentation_malformed');
    return 'refused';
  }
}

const cases: [string, Json, unknown][] = [
  ['one string', request, { vp_token: { pid: ['abc'] } }],
  ['two strings, two ids', request, { vp_token: { pid: ['a', 'b'], other: ['c'] } }],
  ['no id', request, { vp_token: {} }],
  ['matching state', withState, { vp_token: { pid: ['abc'] }, state: 's1' }],
  ['other state', withState, { vp_token: { pid: ['abc'] }, state: 's2' }],
  ['state missing', withState, { vp_token: { pid: ['abc'] } }],
  ['state not a string', request, { vp_token: { pid: ['abc'] }, state: 1 }],
  ['state the request does not have', request, { vp_token: { pid: ['abc'] }, state: 's' }],
  ['an id_token', request, { vp_token: { pid: ['abc'] }, id_token: 'x.y.z' }],
  ['a presentation_submission', request, { vp_token: { pid: ['abc'] }, presentation_submission: {} }],
  ['an object presentation', request, { vp_token: { pid: [{ a: 1 }] } }],
  ['a number presentation', request, { vp_token: { pid: [1] } }],
  ['vp_token as JSON text', request, { vp_token: JSON.stringify({ pid: ['abc'] }) }],
  ['vp_token an array', request, { vp_token: ['abc'] }],
  ['vp_token missing', request, {}],
  ['a __proto__ id', request, JSON.parse('{"vp_token":{"__proto__":["abc"]}}')],
  ['a request without dcql_query', { response_type: 'vp_token' }, { vp_token: { pid: ['abc'] } }],
];

describe('dcqlPresentations answers as the openid4vp library does', () => {
  for (const [name, req, response] of cases) {
    it(name, () => {
      expect(ours(req, response)).toEqual(library(req, response));
    });
  }

  it('hands out copies of the arrays (the caller may not change the response through them)', () => {
    const entries = ['abc'];
    const got = dcqlPresentations(request, { vp_token: { pid: entries } });
    expect(got.pid).toEqual(entries);
    expect(got.pid).not.toBe(entries);
  });
});
