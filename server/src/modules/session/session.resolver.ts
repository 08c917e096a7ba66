// Thin GraphQL mirror of the /v1 session operations over the same SessionService methods: map arguments,
// call, map results. Errors keep their code; `param` is renamed to the GraphQL argument at fault.
// createSession takes a sign workflow's documents as `Upload` values (GraphQL multipart request, parsed by
// graphql-upload-ts in app/graphql-uploads.ts); they are read into the same UploadedFile list as the REST form.
import { GraphQLUpload } from 'graphql-upload-ts';
import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { AppError, isAppError } from '../../common/errors';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import { FILE_FIELD } from '../document/multipart';
import { documentsFromUploads, type UploadValue } from '../document/uploads';
import { CreateSessionInputGql, SessionCreatedGql, SessionGql, type StepResultGql } from './session.graphql';
import { canExpire, isTerminal, type SessionStatus } from './session.machine';
import type { SessionCreated, SessionService, SessionView, StepResultView } from './session.service';

const GQL_PARAM: Record<string, string> = {
  workflow_id: 'input.workflowId',
  metadata: 'input.metadata',
  expires_in: 'input.expiresIn',
  return_url: 'input.returnUrl',
  'Idempotency-Key': 'idempotencyKey',
  [FILE_FIELD]: 'documents',
};

/** The REST how-to in a documents_required detail, told the GraphQL way. */
const gqlDetail = (e: AppError): string =>
  e.code === 'documents_required'
    ? e.message.replace(
        /send POST \/v1\/sessions as multipart\/form-data with (\d+) "file" part\(s\)/,
        'pass its $1 document(s) in `documents` (a GraphQL multipart request)',
      )
    : e.message;

/** Runs a service call, renaming a REST `param` to its GraphQL argument path. */
async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isAppError(e) && e.param && GQL_PARAM[e.param])
      throw new AppError(e.code, gqlDetail(e), { param: GQL_PARAM[e.param], cause: e, extra: e.extra });
    throw e;
  }
}

const resultOut = (r: StepResultView): StepResultGql => {
  const { stage, primitive, audit_id, completed_at, ...result } = r;
  return {
    stage,
    primitive: primitive as StepResultGql['primitive'],
    auditId: audit_id,
    completedAt: new Date(completed_at),
    result,
  };
};

const createdOut = (s: SessionCreated) => ({
  id: s.id,
  workflowId: s.workflow_id,
  workflowRevision: s.workflow_revision,
  url: s.url,
  status: s.status as SessionStatus,
  expires: new Date(s.expires),
});

const sessionOut = (s: SessionView): SessionGql => ({
  ...createdOut(s),
  created: new Date(s.created),
  metadata: s.metadata,
  results: s.results.map(resultOut),
  decisionDue: s.decision_due === null ? null : new Date(s.decision_due),
  ended: isTerminal(s.status as SessionStatus),
  expiring: canExpire(s.status as SessionStatus),
  failureReason: s.failure_reason
    ? {
        code: s.failure_reason.code,
        stage: s.failure_reason.stage,
        window: s.failure_reason.window,
        refusedResponses: s.failure_reason.refused_responses,
      }
    : null,
});

export function createSessionResolver(service: SessionService) {
  @Resolver()
  class SessionResolver {
    @Roles({ ...RULES.read, apiKey: 'sessions:read' })
    @Query(() => SessionGql, {
      description: 'A session with its status and results (mirror of GET /v1/sessions/{id}).',
    })
    async session(@Arg('id', () => ID) id: string, @GqlCtx() { ctx }: GqlContext): Promise<SessionGql> {
      return sessionOut(await mapped(() => service.get(ctx, id)));
    }

    @Roles({ ...RULES.build, apiKey: 'sessions:create' })
    @Mutation(() => SessionCreatedGql, {
      description: 'Creates a session of a published workflow (mirror of POST /v1/sessions).',
    })
    async createSession(
      @Arg('input', () => CreateSessionInputGql) input: CreateSessionInputGql,
      @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey: string | undefined,
      @Arg('documents', () => [GraphQLUpload], {
        nullable: true,
        description:
          'The documents of the sign steps, in order (the multipart `file` parts of POST /v1/sessions): ' +
          'file parts of a GraphQL multipart request, which needs the header `apollo-require-preflight: true`.',
      })
      documents: UploadValue[] | null | undefined,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<SessionCreatedGql> {
      const out = await mapped(async () =>
        service.create(
          ctx,
          {
            workflow_id: input.workflowId,
            metadata: input.metadata,
            expires_in: input.expiresIn,
            return_url: input.returnUrl,
          },
          idempotencyKey ?? undefined,
          // read completely first, as REST reads the whole form before the service runs
          await documentsFromUploads(documents),
        ),
      );
      return { ...createdOut(out.session), idempotentReplayed: out.replayed };
    }

    @Roles({ ...RULES.build, apiKey: 'sessions:write' })
    @Mutation(() => SessionGql, {
      description:
        'Continues a session waiting in awaiting_decision (mirror of POST /v1/sessions/{id}/continue).',
    })
    async continueSession(
      @Arg('id', () => ID) id: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<SessionGql> {
      return sessionOut(await mapped(() => service.continue(ctx, id)));
    }

    @Roles({ ...RULES.build, apiKey: 'sessions:write' })
    @Mutation(() => SessionGql, {
      description: 'Stops a session that has not ended (mirror of POST /v1/sessions/{id}/stop).',
    })
    async stopSession(@Arg('id', () => ID) id: string, @GqlCtx() { ctx }: GqlContext): Promise<SessionGql> {
      return sessionOut(await mapped(() => service.stop(ctx, id)));
    }
  }
  return SessionResolver;
}
