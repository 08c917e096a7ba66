// Builds the GraphQL schema (TypeGraphQL) and the Apollo middleware. Every operation declares its
// authorization with @Authorized() or @Public(reason) (graphql/authorization.ts, enforced by a test); errors
// carry the same closed `code` list as REST.
import { ApolloServer } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { expressMiddleware } from '@as-integrations/express5';
import type { RequestHandler } from 'express';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { type AuthChecker, buildSchema, type NonEmptyArray } from 'type-graphql';
import type { Ctx } from '../common/context';
import { AppError, isAppError } from '../common/errors';
import type { Logger } from '../common/logger';
import { checkAccess } from '../common/roles';
import type { GqlContext } from './context';

/**
 * @Authorized(roles) operations: the roles encode an access rule (common/roles.ts): the least role
 * per environment for a dashboard user, and whether an API key (with which scope) may call it too.
 */
export const authChecker: AuthChecker<GqlContext> = ({ context }, roles) =>
  checkAccess(context.ctx.actor, roles);

// biome-ignore lint/complexity/noBannedTypes: TypeGraphQL takes resolver classes as Function values
export async function buildGraphqlSchema(resolvers: NonEmptyArray<Function>): Promise<GraphQLSchema> {
  return buildSchema({ resolvers, authChecker, validate: false, emitSchemaFile: false });
}

export function formatGraphqlError(
  logger: Logger,
  /** Maps an infrastructure error to its closed code (the database outage), logging it its own way. */
  classify?: (e: unknown) => AppError | undefined,
) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const raw = unwrapResolverError(error);
    const original = isAppError(raw) ? raw : (classify?.(raw) ?? raw);
    const requestId = (formatted.extensions?.request_id as string | undefined) ?? undefined;
    if (isAppError(original)) {
      return {
        message: original.message,
        path: formatted.path,
        extensions: {
          code: original.code,
          status: original.status,
          ...(original.param ? { param: original.param } : {}),
          ...(original.extra ?? {}),
          request_id: requestId,
        },
      };
    }
    const code = formatted.extensions?.code;
    if (
      code === 'GRAPHQL_VALIDATION_FAILED' ||
      code === 'BAD_USER_INPUT' ||
      code === 'GRAPHQL_PARSE_FAILED' ||
      code === 'BAD_REQUEST' || // a malformed HTTP request, e.g. refused by csrfPrevention
      code === 'INVALID_UPLOAD_VALUE' || // an Upload variable that is not a multipart file part
      code === 'UPLOAD_LITERAL_UNSUPPORTED'
    ) {
      return {
        message: formatted.message,
        locations: formatted.locations,
        extensions: { code: 'validation_failed', status: 400 },
      };
    }
    logger.error('graphql error', { error: original instanceof Error ? original.stack : String(original) });
    return {
      message: 'An unexpected error occurred.',
      path: formatted.path,
      extensions: { code: 'internal_error', status: 500 },
    };
  };
}

export async function graphqlMiddleware(
  schema: GraphQLSchema,
  logger: Logger,
  contextFor: (req: Parameters<RequestHandler>[0]) => Promise<Ctx>,
  opts: { classify?: (e: unknown) => AppError | undefined } = {},
): Promise<{ handler: RequestHandler; stop: () => Promise<void> }> {
  const apollo = new ApolloServer<GqlContext>({
    schema,
    formatError: formatGraphqlError(logger, opts.classify),
    introspection: true,
    // Simple requests (GET, multipart/form-data uploads) need `apollo-require-preflight` or
    // `x-apollo-operation-name`; app/graphql-uploads.ts applies the same rule before reading an upload.
    csrfPrevention: true,
    includeStacktraceInErrorResponses: false,
  });
  await apollo.start();
  const handler = expressMiddleware(apollo, {
    context: async ({ req }: { req: Parameters<RequestHandler>[0] }) => ({
      ctx: await contextFor(req),
      req,
    }),
  });
  return { handler, stop: () => apollo.stop() };
}

export { AppError };
