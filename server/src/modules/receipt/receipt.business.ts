// The business's side of a session's signed originals (issue 20, dashboard): the list on the dashboard's
// session detail (SessionTimeline.originals) and the download of the exact bytes as a plain link
// (GET /business/sessions/{id}/originals/{position}?environment=…, dashboard cookie). Any dashboard role of
// the business may read them (RULES.read); another business's or environment's session is not_found.
import { FieldResolver, Ctx as GqlCtx, Resolver, Root } from 'type-graphql';
import type { Ctx } from '../../common/context';
import { AppError } from '../../common/errors';
import type { AppRequest, RouteRegistry } from '../../common/http';
import { checkAccess, isEnvironment, Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import type { DocumentEntity } from '../document/document.entity';
import { SessionTimelineGql } from '../support/support.graphql';
import { SessionOriginalGql } from './receipt.graphql';
import { sendDownload } from './receipt.rest';
import type { ReceiptService } from './receipt.service';

export const ENVIRONMENT_PARAM = 'environment';
const READ = [`sandbox:${RULES.read.sandbox}`, `production:${RULES.read.production}`];

/** Where the dashboard downloads one original (a link cannot set X-Environment, so it is a query parameter). */
export const businessOriginalUrl = (sessionId: string, position: number, environment: string): string =>
  `/business/sessions/${encodeURIComponent(sessionId)}/originals/${position}?${ENVIRONMENT_PARAM}=${environment}`;

/** The dashboard actor in the environment the link names (else the X-Environment one), role checked. */
function linkCtx(req: AppRequest): Ctx {
  const ctx = req.ctx;
  const a = ctx.actor;
  if (a.kind !== 'dashboard') throw new AppError('unauthenticated', 'Sign in to the dashboard first.');
  const raw = req.query[ENVIRONMENT_PARAM];
  if (raw !== undefined && !isEnvironment(raw))
    throw new AppError('validation_failed', 'environment must be sandbox or production.', {
      param: ENVIRONMENT_PARAM,
    });
  const out: Ctx = { ...ctx, actor: { ...a, environment: raw ?? a.environment } };
  checkAccess(out.actor, READ);
  return out;
}

export function registerBusinessOriginalRoutes(reg: RouteRegistry, receipts: ReceiptService): void {
  reg.add({
    method: 'get',
    path: '/business/sessions/:id/originals/:position',
    auth: 'dashboard',
    summary:
      "Dashboard: a signed original (exact bytes) of a completed sign step of the business's session " +
      '(any role; ?environment=sandbox|production, default sandbox).',
    handler: async (req, res) => {
      const ctx = linkCtx(req as AppRequest);
      const position = /^\d{1,2}$/.test(String(req.params.position)) ? Number(req.params.position) : -1;
      const { doc, bytes } = await receipts.businessOriginal(ctx, String(req.params.id), position);
      sendDownload(res, bytes, doc.contentType, doc.label, doc.sha256);
    },
  });
}

const originalOut = (sessionId: string, environment: string, d: DocumentEntity): SessionOriginalGql => ({
  position: d.position,
  stage: d.stage,
  name: d.label,
  mediaType: d.contentType,
  size: d.size,
  sha256: d.sha256,
  url: businessOriginalUrl(sessionId, d.position, environment),
});

export function createBusinessOriginalsResolver(receipts: ReceiptService) {
  @Resolver(() => SessionTimelineGql)
  class BusinessOriginalsResolver {
    @Roles(RULES.read)
    @FieldResolver(() => [SessionOriginalGql], {
      description:
        'The signed originals of completed sign steps (exact bytes at `url`, dashboard cookie; any role).',
    })
    async originals(
      @Root() t: SessionTimelineGql,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<SessionOriginalGql[]> {
      const env = t.session.environment;
      return (await receipts.businessOriginals(ctx, t.session.id)).map((d) =>
        originalOut(t.session.id, env, d),
      );
    }
  }
  return BusinessOriginalsResolver;
}
