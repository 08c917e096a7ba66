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
