// The one error the signer page's calls throw (a /t route's problem body or a GraphQL error): the server's
// stable code, the HTTP status and the request id to quote.
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
