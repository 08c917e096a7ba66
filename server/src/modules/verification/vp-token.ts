// Owns reading a wallet's OpenID4VP response into its DCQL presentations (shared by the SD-JWT VC and the mdoc
// verifiers): a wallet error answer, a non-DCQL or malformed response are all presentation_malformed.
import {
  parseOpenid4VpAuthorizationResponsePayload,
  validateOpenid4vpAuthorizationResponsePayload,
} from '@openid4vc/openid4vp';
import { AppError } from '../../common/errors';

type Json = Record<string, unknown>;

/** The vp_token of `response` as `{ <credential query id>: [presentation, ...] }`, validated against `request`. */
export function dcqlPresentations(request: Json, response: unknown): Record<string, unknown[]> {
  if (typeof response === 'object' && response !== null && 'error' in response)
    throw new AppError('presentation_malformed', 'The wallet answered with an error.');
  requireArraysOfPresentations(response);
  const plain = plainDcqlPresentations(request, response);
  if (plain) return plain;
  try {
    const payload = parseOpenid4VpAuthorizationResponsePayload(response as Json);
    const validated = validateOpenid4vpAuthorizationResponsePayload({
      // The library's request type is a zod output type; our request is the same JSON object.
      authorizationRequestPayload: request as Parameters<
        typeof validateOpenid4vpAuthorizationResponsePayload
      >[0]['authorizationRequestPayload'],
      authorizationResponsePayload: payload,
    });
    if (validated.type !== 'dcql') throw new Error('not a DCQL response');
    return validated.dcql.presentations;
  } catch (e) {
    throw new AppError('presentation_malformed', 'The wallet response is not an OpenID4VP DCQL response.', {
      cause: e,
    });
  }
}

const isPlainObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/**
 * The answer of the library's parse and validation above, without its zod schemas (about a twentieth of an mdoc
 * verification), for the one shape a conforming wallet sends to a DCQL request: `{ vp_token, state? }` with
 * vp_token an object whose every value is a non-empty array of strings, and the request's state, if any,
 * matched. The library accepts exactly that and returns a copy of each array. Anything else (a JSON-text
 * vp_token of a form post, object presentations, other members, a state mismatch): undefined, and the library
 * decides, so every refusal is still its own.
 */
function plainDcqlPresentations(request: Json, response: unknown): Record<string, unknown[]> | undefined {
  if (!isPlainObject(response) || !request.dcql_query) return undefined;
  for (const key of Object.keys(response)) if (key !== 'vp_token' && key !== 'state') return undefined;
  const state = response.state;
  if (state !== undefined && typeof state !== 'string') return undefined;
  if (request.state && request.state !== state) return undefined;
  const vp = response.vp_token;
  if (!isPlainObject(vp)) return undefined;
  const out: Record<string, unknown[]> = {};
  for (const id of Object.keys(vp)) {
    const entries = vp[id];
    if (id === '__proto__' || !Array.isArray(entries) || entries.length === 0) return undefined;
    for (const e of entries) if (typeof e !== 'string') return undefined;
    out[id] = [...entries];
  }
  return out;
}

/**
 * OpenID4VP 1.0 §8.1: the value of each credential query id in a DCQL `vp_token` is "an array of one or more
 * Presentations". The library normalises a bare string into an array, so a non-conforming wallet would pass;
 * this checks the shape as received (vp_token as an object, or as its JSON text in a form post).
 */
function requireArraysOfPresentations(response: unknown): void {
  if (typeof response !== 'object' || response === null) return; // the library reports it
  let vp = (response as Json).vp_token;
  if (typeof vp === 'string') {
    try {
      vp = JSON.parse(vp);
    } catch {
      return; // not DCQL JSON: the library reports it
    }
  }
  if (typeof vp !== 'object' || vp === null || Array.isArray(vp)) return;
  for (const [id, value] of Object.entries(vp)) {
    if (!Array.isArray(value) || value.length === 0) {
      throw new AppError(
        'presentation_malformed',
        `The vp_token value for credential query ${JSON.stringify(id).slice(0, 80)} must be an array of one or more presentations.`,
      );
    }
  }
}
