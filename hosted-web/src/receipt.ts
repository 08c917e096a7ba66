// The signer's record on the hosted page: GraphQL signer operations (authorized by the binding cookie, which
// travels by itself on the same origin) and the plain GET download paths. Types mirror schema/schema.graphql
// (SignerReceipt) by hand until the page's types are generated from it (issue 10).
import { ApiError } from './api';

export interface SignerReceipt {
  sessionId: string;
  sessionStatus: string;
  environment: string;
  partial: boolean;
  completedSteps: number;
  totalSteps: number;
  access: 'open' | 'ended' | 'closed';
  accessUntil: string | null;
  pdfDownloaded: boolean;
  canClose: boolean;
  receiptUrl: string;
  originals: {
    position: number;
    stage: number;
    label: string;
    sha256: string;
    size: number;
    contentType: string;
    url: string;
  }[];
  email: {
    codeSentTo: string | null;
    codeExpiresAt: string | null;
    resendAvailableAt: string | null;
    codesLeftThisHour: number;
    sentTo: string[];
  };
}

const FIELDS = `sessionId sessionStatus environment partial completedSteps totalSteps access accessUntil
  pdfDownloaded canClose receiptUrl originals { position stage label sha256 size contentType url }
  email { codeSentTo codeExpiresAt resendAvailableAt codesLeftThisHour sentTo }`;

async function gql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new ApiError('network_error', 0);
  }
  let body: {
    data?: Record<string, unknown>;
    errors?: { extensions?: { code?: string; request_id?: string } }[];
  };
  try {
    body = await res.json();
  } catch {
    throw new ApiError('internal_error', res.status);
  }
  const e = body.errors?.[0];
  if (e || !body.data)
    throw new ApiError(e?.extensions?.code ?? 'internal_error', res.status, e?.extensions?.request_id);
  return Object.values(body.data)[0] as T;
}

export const getSignerReceipt = (sessionId: string) =>
  gql<SignerReceipt>(`query($sessionId: ID!) { signerReceipt(sessionId: $sessionId) { ${FIELDS} } }`, {
    sessionId,
  });

export const requestReceiptEmailCode = (sessionId: string, email: string) =>
  gql<SignerReceipt>(
    `mutation($sessionId: ID!, $email: String!) { requestReceiptEmailCode(sessionId: $sessionId, email: $email) { ${FIELDS} } }`,
    { sessionId, email },
  );

export const sendReceiptEmail = (sessionId: string, code: string) =>
  gql<SignerReceipt>(
    `mutation($sessionId: ID!, $code: String!) { sendReceiptEmail(sessionId: $sessionId, code: $code) { ${FIELDS} } }`,
    { sessionId, code },
  );

export const closeReceiptAccess = (sessionId: string) =>
  gql<SignerReceipt>(
    `mutation($sessionId: ID!) { closeReceiptAccess(sessionId: $sessionId) { ${FIELDS} } }`,
    {
      sessionId,
    },
  );
