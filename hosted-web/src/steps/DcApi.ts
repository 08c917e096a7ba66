// The W3C Digital Credentials API from the hosted page, detected at run time: whether this browser can reach a
// wallet on the device, which OpenID4VP protocol to ask for (signed when the browser allows it), and the call
// itself. The wallet's answer (`credential.data`) goes to the server unchanged: {response: <JWE>} for the
// signed request (dc_api.jwt), {vp_token} for the unsigned one.
import { ApiError } from '../api';

export const SIGNED_PROTOCOL = 'openid4vp-v1-signed';
export const UNSIGNED_PROTOCOL = 'openid4vp-v1-unsigned';
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

/** Asks a wallet on this device; resolves to the wallet's `data`, unchanged. */
export async function askBrowserWallet(input: {
  protocol: string;
  data: Record<string, unknown>;
  expires: string;
}): Promise<Record<string, unknown>> {
  // The `digital` member is not in TypeScript's DOM lib yet, hence the casts on the way in and out.
  const options = {
    digital: { requests: [{ protocol: input.protocol, data: input.data }] },
    // The request is worthless after it expires; stop waiting then so the page does not stay busy.
    signal: AbortSignal.timeout(Math.max(Date.parse(input.expires) - Date.now(), 1000)),
  };
  let credential: (Credential & { data?: unknown }) | null;
  try {
    credential = (await navigator.credentials.get(options as CredentialRequestOptions)) as
      | (Credential & { data?: unknown })
      | null;
  } catch (err) {
    const cancelled =
      err instanceof DOMException && (err.name === 'AbortError' || err.name === 'NotAllowedError');
    throw new ApiError(cancelled ? 'wallet_cancelled' : 'wallet_unavailable', 0);
  }
  const data = credential?.data;
  if (!data || typeof data !== 'object') throw new ApiError('wallet_unavailable', 0);
  return data as Record<string, unknown>;
}
