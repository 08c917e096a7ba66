// Thin GraphQL mirror of GET /v1/audits/{id} for the dashboard (session detail: audit records verified in the
// browser). Scoped like REST: another business's or environment's record is not_found, never forbidden.
import { Arg, Ctx as GqlCtx, ID, Query, Resolver } from 'type-graphql';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import { AuditRecordGql } from './audit.graphql';
import type { AuditService } from './audit.service';

export function createAuditResolver(audit: AuditService) {
  @Resolver()
  class AuditResolver {
    @Roles({ ...RULES.read, apiKey: 'audits:read' })
    @Query(() => AuditRecordGql, {
      description:
        'A signed audit record of a completed step (mirror of GET /v1/audits/{id}); verify it against ' +
        'GET /.well-known/service-audit-jwks.json.',
    })
    async auditRecord(
      @Arg('id', () => ID) id: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<AuditRecordGql> {
      const { view, digest } = await audit.getWithDigest(ctx, id);
      return {
        auditId: view.audit_id,
        sessionId: view.session_id,
        stage: view.stage,
        kid: view.service_signature.kid,
        digest,
        record: view as unknown as Record<string, unknown>,
      };
    }
  }
  return AuditResolver;
}
