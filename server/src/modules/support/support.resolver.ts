// Thin GraphQL resolver over SupportService (dashboard: sessions for support).
import { Arg, Ctx as GqlCtx, ID, Int, Query, Resolver } from 'type-graphql';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import type { FailureReason } from '../session/session.state';
import {
  SessionListFilterGql,
  type SessionSummaryGql,
  SessionSummaryPageGql,
  SessionTimelineGql,
} from './support.graphql';
import type { SessionSummary, SupportService } from './support.service';

const reasonOut = (r: FailureReason | null) =>
  r ? { code: r.code, stage: r.stage, window: r.window, refusedResponses: r.refused_responses } : null;

const summaryOut = (s: SessionSummary): SessionSummaryGql => ({
  ...s,
  failureReason: reasonOut(s.failureReason),
});

export function createSupportResolver(service: SupportService) {
  @Resolver()
  class SupportResolver {
    @Roles(RULES.read)
    @Query(() => SessionSummaryPageGql, {
      description:
        'Sessions, newest first (keyset pagination), filtered by status, workflow, environment, created range and your reference (metadata).',
    })
    async sessions(
      @Arg('filter', () => SessionListFilterGql, { nullable: true }) filter: SessionListFilterGql | null,
      @Arg('first', () => Int, { nullable: true, description: '1 to 100, default 20.' }) first: number | null,
      @Arg('after', () => String, { nullable: true }) after: string | null,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<SessionSummaryPageGql> {
      const page = await service.listSessions(ctx, { ...(filter ?? {}) }, first, after);
      return {
        nodes: page.nodes.map(summaryOut),
        pageInfo: { endCursor: page.endCursor, hasNextPage: page.hasNextPage },
      };
    }

    @Roles(RULES.read)
    @Query(() => SessionTimelineGql, {
      description:
        'What happened in a session, oldest first: created, opened, started, wallet requests and responses ' +
        '(refused ones with their code), steps, decisions, the end, and webhook deliveries with each attempt.',
    })
    async sessionTimeline(
      @Arg('id', () => ID) id: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<SessionTimelineGql> {
      const t = await service.timeline(ctx, id);
      return { session: summaryOut(t.session), entries: t.entries };
    }
  }
  return SupportResolver;
}
