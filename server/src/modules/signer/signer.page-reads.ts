// Owns answering the signer page's fixed reads without the general GraphQL path (issue 27, ADR 0062): the
// `signerSession` operation of the page's document, compiled once (signer.page-operation.ts), answered from
// the read model (signer.read-model.ts) and the same view the resolver builds (signer.view.ts), authorised the
// same way (the binding cookie, checked on every read by signerSession/read). Two callers: /graphql, before
// Apollo (a request this cannot answer, or whose answer is an error, goes on to Apollo unchanged), and the /t
// routes that carry the page's read (open, Start, wallet response: answered from their own round trips, ADR
// 0062 and its amendment).
import type { Request } from 'express';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../../common/errors';
import type { SessionEntity } from '../session/session.entity';
import { browserTokenOf } from './browser-cookie';
import { type PageOperation, PageOperations } from './signer.page-operation';
import type { Projection } from './signer.projection';
import { type SignerViewDeps, signerSession, signerViewOf } from './signer.view';

/** The media type Apollo answers a single result with for `Accept: application/json` (or none). */
export const GRAPHQL_JSON = 'application/json; charset=utf-8';

export class SignerPageReads {
  private readonly operations = new PageOperations();

  constructor(private readonly deps: SignerViewDeps) {}

  /** The served schema (app/graphql.ts, once built, before Apollo starts): documents are validated against it. */
  useSchema(schema: GraphQLSchema): void {
    this.operations.use(schema);
  }

  /**
   * The body of a /graphql answer to `body` (Apollo's bytes: JSON and a newline), or undefined when the general
   * path must answer: not a compiled page read, or an error (Apollo then answers it, in its own words).
   */
  async graphql(body: unknown, req: Request): Promise<string | undefined> {
    const compiled = this.operations.of(body);
    if (!compiled) return undefined;
    const id = compiled.op.sessionIdOf(compiled.variables);
    if (id === undefined) return undefined;
    try {
      const view = await signerSession(this.deps, id, browserTokenOf(req));
      return `${JSON.stringify(compiled.op.answer(view))}\n`;
    } catch {
      // refused, not found, the database away, or a view the schema refuses: Apollo answers it in the
      // schema's own words (format and codes of graphql/server.ts), reading once more; never the fast answer
      return undefined;
    }
  }

  /**
   * The page's read a /t route carries (its GraphQL request: the open's and Start's body, the wallet response's
   * `read`), for session `id`: the compiled operation, or validation_failed (naming `param`, when given) when it
   * is not one of the page's reads of this session.
   */
  readOf(body: unknown, id: string, param?: string): PageOperation {
    const compiled = this.operations.of(body);
    if (!compiled || compiled.op.sessionIdOf(compiled.variables) !== id)
      throw new AppError(
        'validation_failed',
        'A /t route carries only the page’s signerSession read of this session (query, operationName, variables).',
        param ? { param } : {},
      );
    return compiled.op;
  }

  /** The GraphQL response (`{data}`) of `op` for a session a /t route read with its projection. */
  async answer(
    op: PageOperation,
    read: { session: SessionEntity; projection: Projection },
  ): Promise<{ data: Record<string, unknown> }> {
    return op.answer(await signerViewOf(this.deps, read));
  }
}
