// The signer page's GraphQL client, as small as a fetch: it sends graphql/signer.graphql's text with the name
// of one of its operations. Same origin, so the HttpOnly binding cookie that authorises every signer operation
// travels by itself. The result types are generated from schema/schema.graphql (graphql/generated.ts); a
// GraphQL error becomes an ApiError carrying the server's code, like a /t route's problem body.
import { ApiError } from './api-error';
import DOCUMENT from './graphql/signer.graphql?raw';
import type { SignerReadRequest } from './transport.generated';

export function gql<T>(operationName: string, variables: Record<string, unknown>): Promise<T> {
  return gqlAt<T>('/graphql', operationName, variables);
}

/**
 * One of the document's operations sent to `path`: /graphql, or a /t route that carries the page's read and
 * answers it as GraphQL does (the open and Start, whose body is the read, ADR 0062; the wallet response, whose
 * body holds it: `wrap` builds that body around the read). A /t refusal is a problem body: its `code` is the
 * error's.
 */
export async function gqlAt<T>(
  path: string,
  operationName: string,
  variables: Record<string, unknown>,
  wrap: (read: SignerReadRequest) => unknown = (read) => read,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(wrap({ query: DOCUMENT, operationName, variables })),
    });
  } catch {
    throw new ApiError('network_error', 0);
  }
  let body: {
    data?: Record<string, unknown> | null;
    errors?: { extensions?: { code?: string; request_id?: string } }[];
    code?: string;
    request_id?: string;
  };
  try {
    body = await res.json();
  } catch {
    throw new ApiError('internal_error', res.status);
  }
  const e = body.errors?.[0] ?? (body.code ? { extensions: body } : undefined);
  if (e || !body.data)
    throw new ApiError(e?.extensions?.code ?? 'internal_error', res.status, e?.extensions?.request_id);
  return Object.values(body.data)[0] as T;
}
