// Owns the audit HTTP surface: a business reads its audit records; anyone reads the audit public key set.
import { createHash } from 'node:crypto';
import type { RouteRegistry } from '../../common/http';
import { AuditRecordSchema, JwksSchema } from './audit.contract';
import type { AuditService } from './audit.service';

/** True when an If-None-Match header value matches the strong ETag (weak comparison, as RFC 9110 asks). */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

export function registerAuditRoutes(reg: RouteRegistry, audit: AuditService): void {
  reg.add({
    method: 'get',
    path: '/v1/audits/:id',
    auth: 'api_key',
    scope: 'audits:read',
    summary: 'Get an audit record with its detached service_signature',
    contract: {
      operationId: 'getAuditRecord',
      response: { status: 200, description: 'audit record', schema: AuditRecordSchema },
      errors: ['not_found'],
    },
    answer: async (ctx, { params }) => ({
      status: 200,
      body: await audit.getForBusiness(ctx, String(params.id)),
    }),
  });

  reg.add({
    method: 'get',
    path: '/.well-known/service-audit-jwks.json',
    auth: 'public',
    summary: 'Audit public key set (current and retained signing keys)',
    contract: {
      operationId: 'getAuditJwks',
      response: {
        status: 200,
        description: 'key set (public, CORS `*`, `max-age=300`, ETag; 304 on If-None-Match)',
        schema: JwksSchema,
      },
      errors: [],
    },
    handler: async (req, res) => {
      const body = JSON.stringify(await audit.jwks());
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Cache-Control', 'public, max-age=300');
      res.setHeader('ETag', etag);
      if (matchesEtag(req.get('If-None-Match'), etag)) {
        res.status(304).end();
        return;
      }
      res.status(200).type('application/json').send(body);
    },
  });
}
