// Owns the shape of the OpenID4VP 1.0 request the hosted page hands to the browser's Digital Credentials API
// (unsigned DC API profile): no client_id, response_mode dc_api, a fresh nonce and one DCQL credential query.
import { randomToken } from '../../common/ids';
import { buildIdentifyDcqlQuery } from './dcql';

/** Protocol identifier for `navigator.credentials.get({ digital: { requests: [{ protocol, data }] } })`. */
export const DC_API_PROTOCOL = 'openid4vp-v1-unsigned';

/** The id of the single credential query in our requests (the key of the answer in `vp_token`). */
export const CREDENTIAL_QUERY_ID = 'pid';

/** Algorithms we accept for the issuer signature and the key-binding JWT (HAIP/EUDI baseline). */
export const SD_JWT_ALGS = ['ES256'] as const;

/** A fresh request nonce: 256 random bits, base64url. */
export const newWalletNonce = (): string => randomToken(32);

export function buildWalletRequest(spec: { nonce: string; claims: string[]; vct: string }): {
  request: Record<string, unknown>;
  credentialQueryId: string;
} {
  // 22 base64url characters carry 132 bits: the minimum we accept for a nonce.
  if (!/^[A-Za-z0-9_-]{22,}$/.test(spec.nonce)) {
    throw new Error('wallet request nonce must carry >= 128 bits');
  }
  const dcqlQuery = buildIdentifyDcqlQuery(CREDENTIAL_QUERY_ID, spec.vct, spec.claims);
  return {
    request: {
      response_type: 'vp_token',
      response_mode: 'dc_api',
      nonce: spec.nonce,
      dcql_query: dcqlQuery,
      client_metadata: {
        vp_formats_supported: {
          'dc+sd-jwt': { 'sd-jwt_alg_values': [...SD_JWT_ALGS], 'kb-jwt_alg_values': [...SD_JWT_ALGS] },
        },
      },
    },
    credentialQueryId: CREDENTIAL_QUERY_ID,
  };
}
