// Owns encrypted wallet responses (OpenID4VP §Encrypted Responses, HAIP): one ephemeral ECDH-ES P-256 key per
// wallet request, published in the request's client_metadata.jwks (with kid, alg and use), its private half
// sealed at rest under the local master key and bound to the request id, and the decryption of the wallet's
// `response` JWE (direct_post.jwt, dc_api.jwt) with the checks the libraries leave to the caller: compact JWE,
// `alg` equal to the key's alg, `kid` echoing the key's kid, `enc` from the advertised list.
import {
  compactDecrypt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type ProtectedHeaderParameters,
} from 'jose';
import { AppError } from '../../common/errors';
import { randomToken } from '../../common/ids';
import type { KeySealer } from '../kms/key-sealer';

/** Key agreement and content encryption we offer (HAIP: ECDH-ES on P-256; A128GCM and A256GCM). */
export const RESPONSE_ENCRYPTION_ALG = 'ECDH-ES';
export const RESPONSE_ENCRYPTION_ENC_VALUES = ['A128GCM', 'A256GCM'] as const;

/** Response modes whose answer must be a JWE encrypted to the request's key. */
export const ENCRYPTED_RESPONSE_MODES = ['direct_post.jwt', 'dc_api.jwt'] as const;
export const isEncryptedResponseMode = (mode: string | null | undefined): boolean =>
  (ENCRYPTED_RESPONSE_MODES as readonly (string | null | undefined)[]).includes(mode);

export interface EphemeralResponseKey {
  /** Public JWK for client_metadata.jwks: kty, crv, x, y, kid, alg, use. */
  publicJwk: JWK;
  /** Sealed private JWK, for the wallet_request row only (never sent anywhere). */
  sealedPrivateJwk: string;
}

const aadFor = (requestId: string) => `wallet_request:${requestId}:response-key`;

export class ResponseEncryption {
  constructor(private readonly sealer: KeySealer) {}

  /** A fresh P-256 key for the responses to one wallet request. */
  async newKey(requestId: string): Promise<EphemeralResponseKey> {
    const { publicKey, privateKey } = await generateKeyPair(RESPONSE_ENCRYPTION_ALG, {
      crv: 'P-256',
      extractable: true,
    });
    const kid = randomToken(16);
    const pub = await exportJWK(publicKey);
    const priv = await exportJWK(privateKey);
    const meta = { kid, alg: RESPONSE_ENCRYPTION_ALG, use: 'enc' };
    return {
      publicJwk: { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, ...meta },
      sealedPrivateJwk: this.sealer.seal(
        aadFor(requestId),
        Buffer.from(JSON.stringify({ ...priv, ...meta })),
      ),
    };
  }

  /** The private JWK sealed for `requestId` by newKey (Annex C opens its HPKE answer with it). */
  privateJwk(requestId: string, sealedPrivateJwk: string): JWK {
    return JSON.parse(this.sealer.open(aadFor(requestId), sealedPrivateJwk).toString('utf8')) as JWK;
  }

  /**
   * The wallet's answer to an encrypted-response request: `{response: <compact JWE>}` whose plaintext is the
   * JSON object of response parameters (vp_token, state, ...). Anything else is refused: a plain vp_token is
   * `response_not_encrypted`, a JWE that is not for this request's key is `response_decryption_failed`.
   */
  async open(requestId: string, sealedPrivateJwk: string, answer: unknown): Promise<Record<string, unknown>> {
    const jwe =
      typeof answer === 'object' && answer !== null && !Array.isArray(answer)
        ? (answer as Record<string, unknown>).response
        : undefined;
    if (typeof jwe !== 'string' || jwe.split('.').length !== 5) {
      throw new AppError(
        'response_not_encrypted',
        'This request needs the response as a JWE in `response`, encrypted to the key in client_metadata.jwks.',
      );
    }
    const priv = JSON.parse(this.sealer.open(aadFor(requestId), sealedPrivateJwk).toString('utf8')) as JWK;
    let header: ProtectedHeaderParameters;
    try {
      header = decodeProtectedHeader(jwe);
    } catch (e) {
      throw new AppError('response_decryption_failed', 'The response JWE header cannot be read.', {
        cause: e,
      });
    }
    if (header.alg !== priv.alg) {
      throw new AppError('response_decryption_failed', `The response JWE alg must be ${priv.alg}.`);
    }
    if (header.kid !== priv.kid) {
      throw new AppError('response_decryption_failed', 'The response JWE is for another key (kid).');
    }
    if (!(RESPONSE_ENCRYPTION_ENC_VALUES as readonly unknown[]).includes(header.enc)) {
      throw new AppError('response_decryption_failed', 'The response JWE enc is not one we offered.');
    }
    let plaintext: Uint8Array;
    try {
      const key = await importJWK(priv, RESPONSE_ENCRYPTION_ALG);
      ({ plaintext } = await compactDecrypt(jwe, key, {
        keyManagementAlgorithms: [RESPONSE_ENCRYPTION_ALG],
        contentEncryptionAlgorithms: [...RESPONSE_ENCRYPTION_ENC_VALUES],
      }));
    } catch (e) {
      throw new AppError(
        'response_decryption_failed',
        'The response cannot be decrypted with this request’s key.',
        {
          cause: e,
        },
      );
    }
    let params: unknown;
    try {
      params = JSON.parse(new TextDecoder().decode(plaintext));
    } catch (e) {
      throw new AppError('presentation_malformed', 'The decrypted response is not JSON.', { cause: e });
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw new AppError('presentation_malformed', 'The decrypted response is not a JSON object.');
    }
    return params as Record<string, unknown>;
  }
}
