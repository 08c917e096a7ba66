// The signer's record on the hosted page: GraphQL signer operations (authorized by the binding cookie, which
// travels by itself on the same origin) and the plain GET download paths. The operations are the named ones
// in graphql/signer.graphql, sent as that file's text; their types are generated from schema/schema.graphql
// (scripts/codegen.mjs), so a server change that breaks them fails `codegen:check` and the typecheck.

import { gql } from './gql';
import type {
  CloseReceiptAccessMutationVariables,
  RequestReceiptEmailCodeMutationVariables,
  SendReceiptEmailMutationVariables,
  SignerReceiptFieldsFragment,
  SignerReceiptQueryVariables,
} from './graphql/generated';

export type SignerReceipt = SignerReceiptFieldsFragment;

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
