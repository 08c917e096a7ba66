// Owns the shape of the OpenID4VP 1.0 request the hosted page hands to the browser's Digital Credentials API
// (unsigned DC API profile): no client_id, response_mode dc_api, a fresh nonce and a DCQL query (one credential
// query, or alternatives in several formats), with vp_formats_supported for exactly the formats it asks for.

import type { DcqlQuery } from 'dcql';
import { randomToken } from '../../common/ids';
import { buildIdentifyDcqlQuery, PID_VCT } from './dcql';
import { MDOC_FORMAT, MDOC_VP_FORMAT } from './mdoc/mdoc-query';

/** Protocol identifier for `navigator.credentials.get({ digital: { requests: [{ protocol, data }] } })`. */
export const DC_API_PROTOCOL = 'openid4vp-v1-unsigned';

/** The id of the single credential query in our requests (the key of the answer in `vp_token`). */
export const CREDENTIAL_QUERY_ID = 'pid';

/** Algorithms we accept for the issuer signature and the key-binding JWT (HAIP/EUDI baseline). */
export const SD_JWT_ALGS = ['ES256'] as const;

/** A fresh request nonce: 256 random bits, base64url. */
export const newWalletNonce = (): string => randomToken(32);

/**
 * `dcqlQuery` (built for credential query id CREDENTIAL_QUERY_ID) wins over `claims` + `vct`, which build the
 * identify query. `transactionData` are the exact base64url strings to send (OpenID4VP `transaction_data`);
 * the verifier later checks the KB-JWT hashes against these stored strings.
 */
export function buildWalletRequest(spec: {
  nonce: string;
  claims?: string[];
  vct?: string;
  dcqlQuery?: DcqlQuery;
  transactionData?: string[];
}): {
  request: Record<string, unknown>;
  credentialQueryId: string;
} {
  // 22 base64url characters carry 132 bits: the minimum we accept for a nonce.
  if (!/^[A-Za-z0-9_-]{22,}$/.test(spec.nonce)) {
    throw new Error('wallet request nonce must carry >= 128 bits');
  }
  const dcqlQuery =
    spec.dcqlQuery ?? buildIdentifyDcqlQuery(CREDENTIAL_QUERY_ID, spec.vct ?? PID_VCT, spec.claims ?? []);
  return {
    request: {
      response_type: 'vp_token',
      response_mode: 'dc_api',
      nonce: spec.nonce,
      dcql_query: dcqlQuery,
      ...(spec.transactionData?.length ? { transaction_data: [...spec.transactionData] } : {}),
      client_metadata: {
        vp_formats_supported: {
          ...(dcqlQuery.credentials.some((c) => c.format === 'dc+sd-jwt')
            ? {
                'dc+sd-jwt': {
                  'sd-jwt_alg_values': [...SD_JWT_ALGS],
                  'kb-jwt_alg_values': [...SD_JWT_ALGS],
                },
              }
            : {}),
          // offered only when the query asks for an mdoc (the signed requests of jar.ts keep this metadata)
          ...(dcqlQuery.credentials.some((c) => c.format === MDOC_FORMAT) ? MDOC_VP_FORMAT : {}),
        },
      },
    },
    credentialQueryId: CREDENTIAL_QUERY_ID,
  };
}
