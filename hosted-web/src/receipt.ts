// The signer's record on the hosted page: GraphQL signer operations (authorized by the binding cookie, which
// travels by itself on the same origin) and the plain GET download paths. The operations are the named ones
// in graphql/signer.graphql, sent as that file's text; their types are generated from schema/schema.graphql
// (scripts/codegen.mjs), so a server change that breaks them fails `codegen:check` and the typecheck.
import { ApiError } from './api';
import type {
  CloseReceiptAccessMutationVariables,
  RequestReceiptEmailCodeMutationVariables,
  SendReceiptEmailMutationVariables,
  SignerReceiptFieldsFragment,
  SignerReceiptQueryVariables,
} from './graphql/generated';
import DOCUMENT from './graphql/signer.graphql?raw';

export type SignerReceipt = SignerReceiptFieldsFragment;

async function gql<T>(operationName: string, variables: Record<string, unknown>): Promise<T> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ query: DOCUMENT, operationName, variables }),
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
  gql<SignerReceipt>('SignerReceipt', { sessionId } satisfies SignerReceiptQueryVariables);

/** The page's language and the browser's time zone: the emails and the emailed PDF are written in them. */
export interface ReceiptWriting {
  lang: string;
  timeZone: string;
}

export const requestReceiptEmailCode = (sessionId: string, email: string, w: ReceiptWriting) =>
  gql<SignerReceipt>('RequestReceiptEmailCode', {
    sessionId,
    email,
    lang: w.lang,
    timeZone: w.timeZone,
  } satisfies RequestReceiptEmailCodeMutationVariables);

export const sendReceiptEmail = (sessionId: string, code: string, w: ReceiptWriting) =>
  gql<SignerReceipt>('SendReceiptEmail', {
    sessionId,
    code,
    lang: w.lang,
    timeZone: w.timeZone,
  } satisfies SendReceiptEmailMutationVariables);

export const closeReceiptAccess = (sessionId: string) =>
  gql<SignerReceipt>('CloseReceiptAccess', { sessionId } satisfies CloseReceiptAccessMutationVariables);
