// The signer page's calls. Its session is read over GraphQL (signerSession, generated types); the wallet
// protocol stays on the hosted transport routes (/t: open, start, wallet requests, wallet response, documents).
// Same origin as the page, so paths are relative and the HttpOnly binding cookie travels by itself. Every
// failure becomes an ApiError carrying the server's code.
import { ApiError } from './api-error';
import { gql, gqlAt } from './gql';
import type { SignerSessionQueryVariables, WalletTransport } from './graphql/generated';
import type {
  AnnexCWalletRequest,
  CrossDeviceRequest,
  DocumentsShown,
  SignedWalletRequest,
  WalletRequest,
  WalletResponseSubmission,
} from './transport.generated';
import type {
  Problem,
  ReferenceWalletAnswer,
  SandboxCrossDeviceAnswer,
  SignerSession,
  WalletRequestOffer,
  WalletResponse,
  WalletShown,
} from './types';

export { ApiError };

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
  if (res.status === 204) return undefined as T;
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
  call<DocumentsShown>('POST', `${sessionPath(id)}/documents/${position}/shown`);

/** The session as the page shows it: the GraphQL signer query, authorised by the binding cookie. */
export const getSession = (sessionId: string) =>
  gql<SignerSession>('SignerSession', { sessionId } satisfies SignerSessionQueryVariables);

/**
 * Opening the link: the server issues (or renews) this browser's binding cookie, and answers the page's first
 * read, which the open carries (the GraphQL signerSession operation, ADR 0062): one request, one round trip.
 */
export const openSession = (sessionId: string) =>
  gqlAt<SignerSession>(`${sessionPath(sessionId)}/open`, 'SignerSession', {
    sessionId,
  } satisfies SignerSessionQueryVariables);

/**
 * Start binds this browser and answers the page's read of the session it started, which the Start carries
 * (ADR 0062 amendment): one request, read in the Start's own round trip.
 */
export const startSession = (id: string) =>
  gqlAt<SignerSession>(`${sessionPath(id)}/start`, 'SignerSession', {
    sessionId: id,
  } satisfies SignerSessionQueryVariables);

/** The session's offer of a wallet transport for the running step, if it offers it now. */
export const walletOffer = (s: SignerSession, transport: WalletTransport) =>
  s.walletRequests.find((o) => o.transport === transport);

/** A fresh single-use wallet request of one of the transports the session offers now (walletRequests). */
export const createWalletRequest = <
  T extends WalletRequest | SignedWalletRequest | AnnexCWalletRequest | CrossDeviceRequest,
>(
  offer: WalletRequestOffer,
) => call<T>('POST', offer.path);

/** Sandbox only: the reference wallet runs the cross-device exchange for an openid4vp:// link. */
export const sandboxWalletCrossDevice = (persona: string, uri: string) =>
  call<SandboxCrossDeviceAnswer>('POST', '/sandbox/wallet/cross-device', { persona, uri });

/**
 * Sandbox only: the reference wallet verifies the request it was handed (a signed DC API request, or the
 * cross-device link) and answers what it shows before the person agrees (ADR 0040).
 */
export const sandboxWalletRead = (
  received: { request: SignedWalletRequest['request'] } | { uri: string },
): Promise<WalletShown> =>
  call<WalletShown>('POST', '/sandbox/wallet/read', { ...received, origin: location.origin });

/** Sandbox only: the reference wallet answers a signed DC API request as `persona`. */
export const sandboxWalletRespondSigned = (persona: string, request: SignedWalletRequest['request']) =>
  call<{ response: string }>('POST', '/sandbox/wallet/respond-signed', {
    persona,
    request,
    origin: location.origin,
  });

/**
 * The wallet's answer for this step, carrying the page's read of the session it moved (`read`, ADR 0062
 * amendment): answered from the completion's own round trips, one request. A refused answer is its error.
 */
export const submitWalletResponse = (
  id: string,
  requestId: string,
  response: WalletResponse | Record<string, unknown>,
) =>
  gqlAt<SignerSession>(
    `${sessionPath(id)}/wallet-response`,
    'SignerSession',
    { sessionId: id } satisfies SignerSessionQueryVariables,
    (read): WalletResponseSubmission => ({ request_id: requestId, response, read }),
  );

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
