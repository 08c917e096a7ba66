// Owns the signed wallet transports of a session step, next to the unsigned DC API request of
// session.transport.ts:
// - signed DC API (`openid4vp-v1-signed`, response_mode dc_api.jwt): the hosted page hands {request: <JAR>} to
//   navigator.credentials.get and posts the wallet's {response: <JWE>} to the usual wallet-response route;
// - cross-device: the hosted page shows a QR code / `openid4vp://` link with client_id and request_uri; the
//   wallet GETs the JAR at request_uri and POSTs `response` (JWE, direct_post.jwt) to response_uri.
// Both are signed with the verifier certificate (x509_hash client id) and carry an ephemeral ECDH-ES P-256 key
// per request. request_uri and response_uri name the wallet request by its unguessable id (never the session
// id); the step completes through SessionTransport's one completion path, exactly like a hosted submission.

import type { DcqlQuery } from 'dcql';
import QRCode from 'qrcode';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import type { GoogleRpMetadata } from '../relying-party/gw-rp-metadata';
import {
  buildCrossDeviceRequest,
  buildSignedDcApiRequest,
  resignForWallet,
  SIGNED_DC_API_PROTOCOL,
} from '../relying-party/jar';
import type { ReaderCertificates } from '../relying-party/reader-certificates';
import {
  type RegistrationCertificates,
  registrationSubjectFor,
} from '../relying-party/registration-certificates';
import { isEncryptedResponseMode, type ResponseEncryption } from '../relying-party/response-encryption';
import type { SpeakingMode } from '../relying-party/speaking';
import type { VerifierIdentityService } from '../relying-party/verifier-identity';
import { encryptRequestObject, readWalletPost } from '../relying-party/wallet-metadata';
import { SessionEntity } from '../session/session.entity';
import {
  ANNEX_C_PROTOCOL,
  ANNEX_C_RESPONSE_MODE,
  type AnnexCStoredRequest,
  buildAnnexCRequest,
  openAnnexCResponse,
} from '../verification/mdoc/annex-c';
import { DC_API_PROTOCOL } from '../verification/request';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import type { IntendedUse } from '../workflow/workflow.intended-use';
import type { AnnexCWalletRequest, CrossDeviceRequest, SignedWalletRequest } from './signer.contract';

type Json = Record<string, unknown>;

type ForPage<T> = Omit<T, 'request_id' | 'expires' | 'sandbox_personas'>;
type WalletRequestForPage =
  | ForPage<SignedWalletRequest>
  | ForPage<AnnexCWalletRequest>
  | ForPage<CrossDeviceRequest>;

/** How the hosted page reaches a wallet: `dc_api` is the unsigned request of the walking skeleton. */
export type WalletRequestKind = 'dc_api' | 'dc_api_signed' | 'cross_device' | 'org_iso_mdoc';

/** Path prefix of the routes a wallet calls directly (no cookie; the request id is the capability). */
export const WALLET_PATH = '/oid4vp';

export interface BuiltWalletRequest {
  /** The authorization request parameters stored with the row (what the response is verified against). */
  stored: Json;
  audience: string;
  responseMode: string;
  requestObject: string;
  responseKey: string;
  /** What the hosted page receives besides request_id, expires and sandbox_personas (its contract's words). */
  forPage: WalletRequestForPage;
}

/** The audit record's name for the transport a request used. */
export function protocolOf(responseMode: string | null | undefined): string {
  if (responseMode === ANNEX_C_RESPONSE_MODE) return ANNEX_C_PROTOCOL;
  if (responseMode === 'dc_api.jwt') return SIGNED_DC_API_PROTOCOL;
  if (responseMode === 'direct_post.jwt') return 'openid4vp-cross-device';
  return DC_API_PROTOCOL;
}

export class WalletTransports {
  readonly origin: string;

  constructor(
    private readonly deps: {
      ds: DataSource;
      clock: Clock;
      hostedUrl: string;
      identity: VerifierIdentityService;
      encryption: ResponseEncryption;
      /** Imported registration certificates (ADR 0040). */
      registrationCerts?: RegistrationCertificates;
      /** Production requests carry the imported certificate (off by default). */
      verifierInfoProduction?: boolean;
      /** Google Wallet's gw_rp_metadata_bytes per signing leaf (ADR 0050). */
      gwMetadata?: Pick<GoogleRpMetadata, 'forLeaf'>;
      /** Reader certificates: who signs an Annex C request's readerAuthAll (ADR 0049). */
      readerCerts?: ReaderCertificates;
    },
  ) {
    this.origin = new URL(deps.hostedUrl).origin;
  }

  requestUri(requestId: string): string {
    return `${this.deps.hostedUrl}${WALLET_PATH}/requests/${requestId}`;
  }

  responseUri(requestId: string): string {
    return `${this.deps.hostedUrl}${WALLET_PATH}/responses/${requestId}`;
  }

  /** Signs a step's request for a signed transport, with a fresh response-encryption key. */
  async build(
    kind: Exclude<WalletRequestKind, 'dc_api'>,
    input: {
      requestId: string;
      base: Json;
      now: Date;
      expiresAt: Date;
      /** Only the leaf in the request object's x5c (a route's rule; ADR 0050). */
      leafOnly?: boolean;
      /** How the service speaks for the business on the step's routes (ADR 0053). */
      speaking?: SpeakingMode;
      /**
       * Whose request it is: in registrar mode it is signed with that business's own leaf (ADR 0034); the
       * intended use of the session's workflow revision goes into its registration certificate (ADR 0042).
       */
      business?: { id: string; environment: string; intendedUse?: IntendedUse | null };
      /** The routes the step may be answered through: their reader certificates sign Annex C (ADR 0049). */
      routes?: readonly string[];
    },
  ): Promise<BuiltWalletRequest> {
    const key = await this.deps.encryption.newKey(input.requestId);
    if (kind === 'org_iso_mdoc') {
      // ISO 18013-7 Annex C: the one-time key is the HPKE recipient key of EncryptionInfo (its private half
      // sealed to this request id like the OpenID4VP response keys); the transcript binds HOSTED_URL's origin.
      const { kty, crv, x, y } = key.publicJwk;
      const annexC = buildAnnexCRequest({
        dcqlQuery: input.base.dcql_query as DcqlQuery,
        nonce: String(input.base.nonce),
        origin: this.origin,
        recipientPublicJwk: { kty, crv, x, y },
        readerAuth:
          this.deps.readerCerts && input.business && input.routes
            ? await this.deps.readerCerts.signersFor(input.routes, input.business.environment, input.now)
            : undefined,
      });
      return {
        stored: annexC.stored as unknown as Json,
        audience: `origin:${this.origin}`,
        responseMode: ANNEX_C_RESPONSE_MODE,
        requestObject: '',
        responseKey: key.sealedPrivateJwk,
        forPage: annexC.forPage,
      };
    }
    const identity = await this.deps.identity.forSpeaking(input.business, input.speaking);
    const base = await this.withVerifierInfo(input.base, identity, input.business, input.speaking);
    if (kind === 'dc_api_signed') {
      // Google Wallet: the metadata Google returned with this leaf, verbatim (ADR 0050)
      const gw = await this.deps.gwMetadata?.forLeaf(identity.x5c[0] as string);
      const meta = (base.client_metadata ?? {}) as Json;
      const signed = await buildSignedDcApiRequest({
        base: gw ? { ...base, client_metadata: { ...meta, gw_rp_metadata_bytes: gw } } : base,
        identity,
        origin: this.origin,
        responseJwk: key.publicJwk,
        now: input.now,
        expiresAt: input.expiresAt,
        leafOnly: input.leafOnly,
      });
      return {
        stored: signed.payload,
        // OpenID4VP §A.4: over the DC API the audience is the origin, even for signed requests
        audience: `origin:${this.origin}`,
        responseMode: 'dc_api.jwt',
        requestObject: signed.requestObject,
        responseKey: key.sealedPrivateJwk,
        forPage: { protocol: SIGNED_DC_API_PROTOCOL, request: { request: signed.requestObject } },
      };
    }
    const signed = await buildCrossDeviceRequest({
      base,
      identity,
      requestId: input.requestId,
      requestUri: this.requestUri(input.requestId),
      responseUri: this.responseUri(input.requestId),
      responseJwk: key.publicJwk,
      now: input.now,
      expiresAt: input.expiresAt,
      leafOnly: input.leafOnly,
    });
    return {
      stored: signed.payload,
      audience: identity.clientId,
      responseMode: 'direct_post.jwt',
      requestObject: signed.requestObject,
      responseKey: key.sealedPrivateJwk,
      forPage: {
        protocol: 'openid4vp' as const,
        uri: signed.uri,
        qr_svg: await QRCode.toString(signed.uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
      },
    };
  }

  /**
   * The request carries the business's registration certificate as OpenID4VP `verifier_info`
   * ([{format: 'jwt', data: <rc-wrp+jwt>}]), so a wallet shows who asks and why, with the service as the
   * intermediary: the one the operator imported for the business and environment when it names this
   * signer (ADR 0040; in production only with VERIFIER_INFO_PRODUCTION on), else in the sandbox the one the
   * registrar key issues (registrar mode, ADR 0035). Otherwise none.
   */
  private async withVerifierInfo(
    base: Json,
    signer: { clientId: string; x5c: string[] },
    business: { id: string; environment: string; intendedUse?: IntendedUse | null } | undefined,
    speaking?: SpeakingMode,
  ): Promise<Json> {
    const env = business?.environment;
    if (!business || (env !== 'sandbox' && env !== 'production')) return base;
    // business-certificate: the business speaks for itself, no intermediary (ADR 0053)
    if (speaking === 'business-certificate') return base;
    const clientId = signer.clientId;
    const subject = registrationSubjectFor(signer.x5c[0] as string, clientId);
    // intermediary: the registration certificate is what the mode is made of, in production too (ADR 0053)
    const imported =
      env === 'sandbox' || this.deps.verifierInfoProduction || speaking === 'intermediary'
        ? await this.deps.registrationCerts?.forRequest(business.id, env, subject)
        : undefined;
    const rc =
      imported ??
      (env === 'sandbox'
        ? await this.deps.identity.registrar.registrationCertificate(
            business.id,
            'sandbox',
            clientId,
            business.intendedUse,
            undefined,
            speaking === 'intermediary' ? subject : undefined,
          )
        : undefined);
    if (!rc && speaking === 'intermediary')
      throw new AppError(
        'registration_certificate_missing',
        `This route speaks as an intermediary and the business has no registration certificate naming ${subject} in ${env} (pnpm operator registration-cert import).`,
      );
    return rc ? { ...base, verifier_info: [{ format: 'jwt', data: rc }] } : base;
  }

  /**
   * The response parameters to verify: decrypted for the encrypted modes (a plain answer is refused), as
   * given for the unsigned DC API request. A wallet's plain error answer is refused as such.
   */
  async openResponse(req: WalletRequestEntity, answer: unknown): Promise<unknown> {
    if (req.responseMode === ANNEX_C_RESPONSE_MODE) {
      if (!req.responseKey) throw new Error('an Annex C request without its recipient key');
      const { kty, crv, x, y, d } = this.deps.encryption.privateJwk(req.id, req.responseKey);
      const stored = JSON.parse(req.request) as AnnexCStoredRequest;
      return openAnnexCResponse({ answer, recipientPrivateJwk: { kty, crv, x, y, d }, stored });
    }
    if (!isEncryptedResponseMode(req.responseMode)) return answer;
    const a = typeof answer === 'object' && answer !== null ? (answer as Json) : {};
    if (typeof a.error === 'string' && a.response === undefined) {
      throw new AppError('presentation_malformed', 'The wallet answered with an error.');
    }
    if (!req.responseKey) throw new Error('an encrypted-response request without its key');
    return this.deps.encryption.open(req.id, req.responseKey, answer);
  }

  /** PEM of the verifier root (trust anchor) that wallets trust for our signed requests. */
  async rootPem(): Promise<string> {
    return (await this.deps.identity.current()).rootPem;
  }

  /** The signed request object served at request_uri (GET), while its step is still waiting for it. */
  async requestObject(requestId: string): Promise<string> {
    const { req } = await this.waitingRequest(requestId);
    return req.requestObject as string;
  }

  /**
   * request_uri_method=post (OpenID4VP §5.10): the wallet POSTed `wallet_metadata` and `wallet_nonce`. The
   * answer is the same request (the stored parameters the response is verified against), signed now with the
   * same identity and x5c rule, carrying `wallet_nonce`, and encrypted to the wallet's key when its metadata
   * asks for it (wallet-metadata.ts). A wallet that cannot verify ES256 or x509_hash is wallet_metadata_invalid.
   */
  async requestObjectForWallet(requestId: string, form: Json): Promise<string> {
    const post = readWalletPost(form);
    const { req, s } = await this.waitingRequest(requestId);
    const payload = JSON.parse(req.request) as Json;
    const identity = await this.deps.identity.signerNamed(payload.client_id, {
      id: s.businessId,
      environment: s.environment,
    });
    if (identity.clientId !== payload.client_id) {
      // the signing key rotated since the request was made: its client_id no longer names our leaf
      throw new AppError(
        'request_not_found',
        'This wallet request was signed with a retired key; start again.',
      );
    }
    const first = JSON.parse(
      Buffer.from((req.requestObject as string).split('.')[0] as string, 'base64url').toString('utf8'),
    ) as { x5c?: unknown[] };
    const jws = await resignForWallet({
      payload,
      identity,
      requestUri: this.requestUri(requestId),
      walletNonce: post.walletNonce,
      leafOnly: first.x5c?.length === 1 && identity.x5c.length > 1,
      now: this.deps.clock.now(),
      expiresAt: req.expiresAt,
    });
    return post.encryptTo ? encryptRequestObject(jws, post.encryptTo) : jws;
  }

  private async waitingRequest(requestId: string): Promise<{ req: WalletRequestEntity; s: SessionEntity }> {
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the wallet request id is the capability)
    const req = await this.deps.ds.getRepository(WalletRequestEntity).findOneBy({ id: requestId });
    const now = this.deps.clock.now();
    if (req?.state !== 'open' || req.responseMode !== 'direct_post.jwt' || !req.requestObject) {
      throw new AppError('request_not_found', 'This wallet request is unknown or already used.');
    }
    if (now >= req.expiresAt) throw new AppError('step_window_expired');
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const s = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: req.sessionId });
    if (s?.status !== 'in_progress' || s.currentStage !== req.stage || now >= s.expiresAt) {
      throw new AppError('request_not_found', 'This wallet request is no longer waiting for an answer.');
    }
    return { req, s };
  }
}
