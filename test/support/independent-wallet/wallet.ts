// The independent wallet as one holder over every transport the service offers, for both formats: it holds the
// adult persona's SD-JWT VC PID and mdocs (as issued) with the device key, and answers
//   - the unsigned DC API request (`openid4vp-v1-unsigned`, dc_api): {vp_token}, audience origin:<origin>;
//   - the signed DC API request (`openid4vp-v1-signed`, dc_api.jwt): the request object checked to the verifier
//     root, the page's origin in expected_origins, {response: JWE to the request's key}, audience origin:<origin>;
//   - the cross-device request (openid4vp:// link, request_uri, direct_post.jwt): request object fetched and
//     checked, JWE POSTed form-encoded to response_uri with state, audience = client_id;
//   - ISO 18013-7 Annex C (`org-iso-mdoc`, mdoc only): annex-c-wallet.ts.
// mdoc handovers (OpenID4VP 1.0 B.2.6): OpenID4VPDCAPIHandover [origin, nonce, null | key thumbprint] over the
// DC API, OpenID4VPHandover [client_id, nonce, key thumbprint, response_uri] cross-device.
// `WalletLies` make it deviate in exactly one way, for the tamper tests. No library of the verifier here.
import type { JWK } from 'jose';
import { type AnnexCOverrides, type AnnexCRequest, AnnexCWallet, type HeldMdoc } from './annex-c-wallet';
import { checkRequestObject, encryptToRequestKey, requestKeyThumbprint } from './cross-device';
import { type HeldSdJwt, presentSdJwt, type SdJwtOverrides } from './sd-jwt-presenter';

export type WalletFormat = 'dc+sd-jwt' | 'mso_mdoc';
type Json = Record<string, unknown>;

export interface WalletLies {
  sdJwt?: SdJwtOverrides;
  mdoc?: AnnexCOverrides & { handoverClientId?: string };
  /** Encrypt the response to this public JWK (with the request's kid) instead of the request's key. */
  encryptTo?: JWK;
  /** Send the response parameters unencrypted where a JWE is required. */
  plain?: boolean;
  /** Bare presentation string instead of an array of presentations (OpenID4VP 1.0 §8.1 says array). */
  bareString?: boolean;
}

export class IndependentWallet {
  readonly mdoc: AnnexCWallet;
  constructor(
    mdocs: HeldMdoc[],
    private readonly sdJwt: HeldSdJwt,
    private readonly clock: () => Date,
  ) {
    this.mdoc = new AnnexCWallet(mdocs);
  }

  /** {vp_token} for an OpenID4VP request object, in `format`, with the given audience and mdoc handover. */
  private async vpToken(
    request: Json,
    format: WalletFormat,
    aud: string,
    handover: { type: string; info: unknown[] },
    lies: WalletLies,
  ): Promise<Record<string, unknown>> {
    const { vp_token } =
      format === 'dc+sd-jwt'
        ? await presentSdJwt({ request, aud, held: this.sdJwt, now: this.clock(), overrides: lies.sdJwt })
        : this.mdoc.answerWithHandover(request, handover.type, handover.info, lies.mdoc);
    if (!lies.bareString) return vp_token;
    return Object.fromEntries(Object.entries(vp_token).map(([id, list]) => [id, list[0]]));
  }

  /** `openid4vp-v1-unsigned`: the answer `data` the browser hands the page. */
  async dcApiUnsigned(request: Json, origin: string, format: WalletFormat, lies: WalletLies = {}) {
    if (request.response_mode !== 'dc_api' || 'client_id' in request)
      throw new Error('not an unsigned OpenID4VP DC API request');
    const vp_token = await this.vpToken(
      request,
      format,
      `origin:${origin}`,
      { type: 'OpenID4VPDCAPIHandover', info: [lies.mdoc?.origin ?? origin, request.nonce, null] },
      lies,
    );
    return { vp_token };
  }

  /** `openid4vp-v1-signed` (dc_api.jwt): `{response: <JWE>}`. */
  async dcApiSigned(
    data: { request: string },
    verifierRootPem: string,
    origin: string,
    format: WalletFormat,
    lies: WalletLies = {},
  ): Promise<Json> {
    const request = await checkRequestObject(data.request, verifierRootPem);
    if (request.response_mode !== 'dc_api.jwt') throw new Error('not a signed DC API request');
    if (!(request.expected_origins as string[] | undefined)?.includes(origin))
      throw new Error('this origin is not among expected_origins');
    const vp_token = await this.vpToken(
      request,
      format,
      `origin:${origin}`,
      {
        type: 'OpenID4VPDCAPIHandover',
        info: [lies.mdoc?.origin ?? origin, request.nonce, await requestKeyThumbprint(request)],
      },
      lies,
    );
    return this.encrypted(request, { vp_token }, lies);
  }

  /** Cross-device: fetches the request object behind the link, answers, POSTs to response_uri. */
  async crossDevice(
    uri: string,
    verifierRootPem: string,
    format: WalletFormat,
    lies: WalletLies = {},
  ): Promise<{ status: number; body: Json; request: Json }> {
    const link = new URL(uri);
    const res = await fetch(link.searchParams.get('request_uri') ?? '');
    if (res.status !== 200) throw new Error(`request_uri answered ${res.status}`);
    const request = await checkRequestObject(await res.text(), verifierRootPem);
    if (
      request.client_id !== link.searchParams.get('client_id') ||
      request.response_mode !== 'direct_post.jwt'
    )
      throw new Error('request object does not match the link');
    const vp_token = await this.vpToken(
      request,
      format,
      String(request.client_id),
      {
        type: 'OpenID4VPHandover',
        info: [
          lies.mdoc?.handoverClientId ?? request.client_id,
          request.nonce,
          await requestKeyThumbprint(request),
          request.response_uri,
        ],
      },
      lies,
    );
    const body = await this.encrypted(request, { vp_token, state: request.state }, lies);
    const posted = await fetch(String(request.response_uri), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(
        Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      ).toString(),
    });
    return { status: posted.status, body: (await posted.json()) as Json, request };
  }

  /** ISO 18013-7 Annex C (`org-iso-mdoc`): `{response: <b64u CBOR EncryptedResponse>}`. */
  annexC(request: AnnexCRequest, origin: string, lies: WalletLies = {}): Promise<{ response: string }> {
    return this.mdoc.answer(request, origin, lies.mdoc);
  }

  private async encrypted(request: Json, params: Json, lies: WalletLies): Promise<Json> {
    if (lies.plain) return params;
    if (lies.encryptTo) {
      const kid = ((request.client_metadata as Json).jwks as { keys: JWK[] }).keys[0]?.kid;
      const other = { ...request, client_metadata: { jwks: { keys: [{ ...lies.encryptTo, kid }] } } };
      return { response: await encryptToRequestKey(other, params) };
    }
    return { response: await encryptToRequestKey(request, params) };
  }
}
