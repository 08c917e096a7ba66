// The GraphQL request context: the same service Ctx the REST layer uses.
import type { Request } from 'express';
import type { Ctx } from '../common/context';

export interface GqlContext {
  ctx: Ctx;
  /** The HTTP request: signer operations read the binding cookie from it (modules/receipt). */
  req?: Request;
}
