// The W3C Digital Credentials API from the hosted page, detected at run time: whether this browser can reach a
// wallet on the device, which protocols to ask with (OpenID4VP signed when the browser allows it, and ISO
// 18013-7 Annex C `org-iso-mdoc` for steps an mdoc can answer over it), and the call itself: one call with
// every request, the browser (or the person) picks one. The wallet's answer (`credential.data`) goes to the
// server unchanged with the request id of the protocol that answered: {response: <JWE>} for the signed request
// (dc_api.jwt), {vp_token} for the unsigned one, {response: <HPKE EncryptedResponse>} for Annex C.
import { ApiError } from '../api';

export const SIGNED_PROTOCOL = 'openid4vp-v1-signed';
export const UNSIGNED_PROTOCOL = 'openid4vp-v1-unsigned';
export const ANNEX_C_PROTOCOL = 'org-iso-mdoc';
export type DcApiProtocol = typeof SIGNED_PROTOCOL | typeof UNSIGNED_PROTOCOL;

/** `DigitalCredential` is not in TypeScript's DOM lib yet. */
interface DigitalCredentialStatic {
  userAgentAllowsProtocol?: (protocol: string) => boolean;
}

const digitalCredential = (): DigitalCredentialStatic | undefined =>
  typeof window !== 'undefined' && 'DigitalCredential' in window
    ? ((window as unknown as { DigitalCredential: DigitalCredentialStatic }).DigitalCredential ?? undefined)
    : undefined;

export const hasDigitalCredentials = (): boolean =>
  digitalCredential() !== undefined && typeof navigator !== 'undefined' && !!navigator.credentials;

/**
 * The protocol to request: signed (our verifier certificate, encrypted response) when the browser says it
 * allows it or cannot say; unsigned only when the browser allows that one alone; null without the API.
 */
export function preferredProtocol(): DcApiProtocol | null {
  const dc = digitalCredential();
  if (!dc || !hasDigitalCredentials()) return null;
  const allows = dc.userAgentAllowsProtocol;
  if (typeof allows !== 'function') return SIGNED_PROTOCOL;
  try {
    if (allows.call(dc, SIGNED_PROTOCOL)) return SIGNED_PROTOCOL;
    if (allows.call(dc, UNSIGNED_PROTOCOL)) return UNSIGNED_PROTOCOL;
  } catch {
    return SIGNED_PROTOCOL;
  }
  return null;
}

/** Whether the browser allows Annex C (`org-iso-mdoc`); true when it cannot say (it then picks what it can). */
export function allowsAnnexC(): boolean {
  const dc = digitalCredential();
  if (!dc || !hasDigitalCredentials()) return false;
  const allows = dc.userAgentAllowsProtocol;
  if (typeof allows !== 'function') return true;
  try {
    return allows.call(dc, ANNEX_C_PROTOCOL) === true;
  } catch {
    return true;
  }
}

/**
 * Asks a wallet on this device with one or more requests (one per protocol); resolves to the protocol that
 * answered (DigitalCredential.protocol; the only request's when the browser does not say) and its `data`,
 * unchanged.
 */
export async function askBrowserWallet(input: {
  requests: { protocol: string; data: Record<string, unknown> }[];
  expires: string;
}): Promise<{ protocol: string; data: Record<string, unknown> }> {
  // The `digital` member is not in TypeScript's DOM lib yet, hence the casts on the way in and out.
  const options = {
    digital: { requests: input.requests },
    // The request is worthless after it expires; stop waiting then so the page does not stay busy.
    signal: AbortSignal.timeout(Math.max(Date.parse(input.expires) - Date.now(), 1000)),
  };
  let credential: (Credential & { data?: unknown; protocol?: unknown }) | null;
  try {
    credential = (await navigator.credentials.get(options as CredentialRequestOptions)) as
      | (Credential & { data?: unknown; protocol?: unknown })
      | null;
  } catch (err) {
    const cancelled =
      err instanceof DOMException && (err.name === 'AbortError' || err.name === 'NotAllowedError');
    throw new ApiError(cancelled ? 'wallet_cancelled' : 'wallet_unavailable', 0);
  }
  const data = credential?.data;
  if (!data || typeof data !== 'object') throw new ApiError('wallet_unavailable', 0);
  const asked = input.requests.map((r) => r.protocol);
  const protocol =
    typeof credential?.protocol === 'string'
      ? credential.protocol
      : asked.length === 1
        ? asked[0]
        : undefined;
  if (!protocol || !asked.includes(protocol)) throw new ApiError('wallet_unavailable', 0);
  return { protocol, data: data as Record<string, unknown> };
}
