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
