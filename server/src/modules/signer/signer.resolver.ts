// Thin GraphQL read of the signer page (hosted SPA): the session as its page shows it. No API key: a signer
// operation authorised by the browser's binding cookie (signer.view.ts decides, as the /t routes do). Start,
// the wallet requests and the wallet response stay on the /t transport routes (signer.rest.ts).
import { Arg, Ctx as GqlCtx, ID, Query, Resolver } from 'type-graphql';
import { SignerOperation } from '../../graphql/authorization';
import type { GqlContext } from '../../graphql/context';
import { browserTokenOf } from './browser-cookie';
import { SignerSessionGql } from './signer.graphql';
import { type SignerViewDeps, signerSession } from './signer.view';

export function createSignerResolver(deps: SignerViewDeps) {
  @Resolver()
  class SignerResolver {
    @Query(() => SignerSessionGql, {
      description:
        'The signer page’s session: status projection, steps, wallet requests and sandbox persons (binding cookie).',
    })
    @SignerOperation()
    async signerSession(
      @Arg('sessionId', () => ID) sessionId: string,
      @GqlCtx() c: GqlContext,
    ): Promise<SignerSessionGql> {
      return signerSession(deps, sessionId, c.req ? browserTokenOf(c.req) : undefined);
    }
  }
  return SignerResolver;
}
