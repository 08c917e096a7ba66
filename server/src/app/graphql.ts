// GraphQL on /graphql: the request context (API key or dashboard session), the Apollo middleware, multipart
// uploads and the per-key budget shared with /v1.
import express, { type RequestHandler } from 'express';
import type { NonEmptyArray } from 'type-graphql';
import type { Ctx } from '../common/context';
import { AppError } from '../common/errors';
import type { AppRequest } from '../common/http';
import type { Logger } from '../common/logger';
import type { DatabaseAvailability } from '../db/availability';
import { buildGraphqlSchema, graphqlMiddleware } from '../graphql/server';
import { CSRF_HEADER, dashboardCtx } from '../modules/accounts/accounts.rest';
import type { AccountsService } from '../modules/accounts/accounts.service';
import { GRAPHQL_JSON, type SignerPageReads } from '../modules/signer/signer.page-reads';
import { bearerToken, type TenancyService } from '../modules/tenancy/tenancy.service';
import { graphqlUploads } from './graphql-uploads';

export interface GraphqlDeps {
  // biome-ignore lint/complexity/noBannedTypes: TypeGraphQL takes resolver classes as Function values
  resolvers: NonEmptyArray<Function>;
  logger: Logger;
  tenancy: TenancyService;
  accounts: AccountsService;
  availability: DatabaseAvailability;
  /** Draws one request of an API key's budget (the same one as /v1). */
  limitByApiKey: RequestHandler;
  /**
   * The signer page's fixed reads, compiled (modules/signer/signer.page-reads.ts, ADR 0062): a request they
   * answer skips Apollo and TypeGraphQL; any other (or an error) goes on to Apollo.
   */
  pageReads?: Pick<SignerPageReads, 'useSchema' | 'graphql'>;
}

/** An Accept header for which Apollo answers `application/json; charset=utf-8` (or none at all). */
const acceptsPlainJson = (accept: string | undefined): boolean =>
  accept === undefined || accept === '*/*' || accept === 'application/json';

/** Mounts /graphql on `app`; resolves to the Apollo server's stop(), which shutdown calls. */
export async function mountGraphql(app: express.Express, d: GraphqlDeps): Promise<{ stop(): Promise<void> }> {
  const gqlContext = async (req: express.Request): Promise<Ctx> => {
    const base = (req as AppRequest).ctx;
    if (base.actor.kind === 'api_key' || base.actor.kind === 'dashboard') return base; // already resolved (graphqlActor)
    const key = bearerToken(req.header('authorization'));
    // No API key: a dashboard session cookie, whose requests must carry its CSRF token (accounts). A request
    // with no CSRF header at all is not a dashboard request: it stays anonymous (every dashboard operation
    // answers `unauthenticated`), so the signer page, whose operations the binding cookie authorises, works in
    // a browser that is also signed in to the dashboard. A wrong or empty token is refused.
    if (!key) {
      if (req.header(CSRF_HEADER) === undefined) return base;
      return (await dashboardCtx(d.accounts, req, base, true)) ?? base;
    }
    try {
      return { ...base, actor: await d.tenancy.authenticate(key) };
    } catch (e) {
      // A wrong key is not an internal error: the request stays anonymous and every @Authorized
      // operation answers `unauthenticated`, exactly as without a key.
      if (e instanceof AppError && e.code === 'unauthenticated') return base;
      throw e;
    }
  };
  const schema = await buildGraphqlSchema(d.resolvers);
  d.pageReads?.useSchema(schema);
  const gql = await graphqlMiddleware(schema, d.logger, gqlContext, {
    classify: (e) => d.availability.classify(e),
  });
  // GraphQL multipart requests (createSession with documents): CSRF header and API key checked before the
  // body is read, then parsed by graphql-upload-ts with the REST upload limits (app/graphql-uploads.ts).
  const uploads = graphqlUploads({
    param: 'documents',
    authenticate: async (req) => {
      const ctx = await gqlContext(req);
      (req as AppRequest).ctx = ctx;
      return ctx.actor.kind === 'api_key' || ctx.actor.kind === 'dashboard'; // dashboard: CSRF already checked
    },
  });
  // The API key of a GraphQL request is resolved once, up front, and draws on the same per-key budget as /v1.
  const graphqlActor: RequestHandler = (req, res, next) => {
    gqlContext(req)
      .then((ctx) => {
        (req as AppRequest).ctx = ctx;
        if (ctx.actor.kind === 'api_key') d.limitByApiKey(req, res, next);
        else next();
      })
      .catch(next);
  };
  // The page's fixed reads (ADR 0062): after the actor and the body, as Apollo gets them; the same answer bytes
  // and headers as Apollo's for them (a JSON POST, which Apollo's CSRF prevention lets through).
  const pageReads: RequestHandler = (req, res, next) => {
    const reads = d.pageReads;
    if (
      !reads ||
      req.method !== 'POST' ||
      !req.is('application/json') ||
      !acceptsPlainJson(req.headers.accept)
    )
      return next();
    reads
      .graphql(req.body, req)
      .then((body) => {
        if (body === undefined) return next();
        res.status(200);
        res.setHeader('content-type', GRAPHQL_JSON);
        res.setHeader('cache-control', 'no-store');
        res.send(body);
      })
      .catch(next);
  };
  app.use(
    '/graphql',
    graphqlActor,
    express.json({ limit: '256kb' }),
    pageReads,
    ...uploads.before,
    gql.handler,
    uploads.onError,
  );
  return gql;
}
