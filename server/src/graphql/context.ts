// The GraphQL request context: the same service Ctx the REST layer uses.
import type { Ctx } from '../common/context';

export interface GqlContext {
  ctx: Ctx;
}
