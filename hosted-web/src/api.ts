// Typed fetch wrappers for the hosted transport routes. Same origin as the page, so paths are relative and the
// HttpOnly binding cookie travels by itself. Every failure becomes an ApiError carrying the server's code.
import type {
  AnnexCWalletRequest,
  CrossDeviceRequest,
  Problem,
  ReferenceWalletAnswer,
  SandboxCrossDeviceAnswer,
  SessionProjection,
  SignedWalletRequest,
  WalletRequest,
  WalletResponse,
} from './types';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly requestId?: string,
  ) {
    super(code);
    this.name = 'ApiError';
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('network_error', 0);
  }
  if (res.ok) return (await res.json()) as T;
  let problem: Problem = {};
  try {
    problem = (await res.json()) as Problem;
  } catch {
    // Not a problem body (e.g. a proxy error page): fall through to a generic code.
  }
  throw new ApiError(
    problem.code ?? (res.status === 404 ? 'not_found' : 'internal_error'),
    res.status,
    problem.request_id,
  );
}

const sessionPath = (id: string) => `/t/sessions/${encodeURIComponent(id)}`;

/** Download link of an original document of a sign step (the bound browser's cookie authorizes it). */
export const documentUrl = (id: string, position: number) => `${sessionPath(id)}/documents/${position}`;

/** The page showed this document of the current sign step to its end (the server records exactly that). */
export const reportDocumentShown = (id: string, position: number) =>
  call<{ shown_to_end: number[]; all_shown: boolean }>(
    'POST',
    `${sessionPath(id)}/documents/${position}/shown`,
  );

export const getSession = (id: string) => call<SessionProjection>('GET', sessionPath(id));

export const startSession = (id: string) => call<SessionProjection>('POST', `${sessionPath(id)}/start`);

export const createWalletRequest = (id: string) =>
  call<WalletRequest>('POST', `${sessionPath(id)}/wallet-request`);

/** The signed request (verifier certificate, encrypted response) for the Digital Credentials API. */
export const createSignedWalletRequest = (id: string) =>
  call<SignedWalletRequest>('POST', `${sessionPath(id)}/wallet-request/dc_api_signed`);

/** The ISO 18013-7 Annex C request (org-iso-mdoc: DeviceRequest + EncryptionInfo) for the same API call. */
export const createAnnexCWalletRequest = (id: string) =>
  call<AnnexCWalletRequest>('POST', `${sessionPath(id)}/wallet-request/org_iso_mdoc`);

/** A cross-device request: QR code and openid4vp:// link; the wallet answers the server directly. */
export const createCrossDeviceRequest = (id: string) =>
  call<CrossDeviceRequest>('POST', `${sessionPath(id)}/wallet-request/cross_device`);

/** Sandbox only: the reference wallet runs the cross-device exchange for an openid4vp:// link. */
export const sandboxWalletCrossDevice = (persona: string, uri: string) =>
  call<SandboxCrossDeviceAnswer>('POST', '/sandbox/wallet/cross-device', { persona, uri });

export const submitWalletResponse = (
  id: string,
  requestId: string,
  response: WalletResponse | Record<string, unknown>,
) =>
  call<SessionProjection>('POST', `${sessionPath(id)}/wallet-response`, { request_id: requestId, response });

/** Sandbox only: the service's reference wallet answers the request as the chosen test persona. */
export const referenceWalletRespond = (
  persona: string,
  request: WalletRequest['request'] | AnnexCWalletRequest['request'],
) =>
  call<ReferenceWalletAnswer>('POST', '/sandbox/wallet/respond', {
    persona,
    request,
    origin: location.origin,
  });
