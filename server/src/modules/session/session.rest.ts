// Thin /v1 routes for sessions over SessionService (answered by the pipeline, app/pipeline.ts, each with its
// contract from session.contract.ts and the scope a scoped key needs). The hosted page's /t routes are the
// signer's (signer/signer.rest.ts).
import type { Ctx } from '../../common/context';
import { AppError } from '../../common/errors';
import { type ApiInput, jsonObject, type RouteRegistry } from '../../common/http';
import { readMultipart } from '../document/multipart';
import type { TenancyService } from '../tenancy/tenancy.service';
import {
  CreateSessionMultipartSchema,
  CreateSessionRequestSchema,
  idempotencyKeyHeader,
  SESSION_END_EVENTS,
  SessionCreatedSchema,
  SessionDecisionDueEventSchema,
  SessionSchema,
  StepCompletedEventSchema,
  sessionEndedEventSchema,
} from './session.contract';
import type { SessionService } from './session.service';

/** The form fields of a multipart create (besides the `file` parts). */
const FORM_FIELDS = ['workflow_id', 'metadata', 'expires_in', 'return_url'] as const;

const isType = (input: ApiInput, type: RegExp) => type.test(input.header('content-type') ?? '');

export function registerSessionRoutes(
  reg: RouteRegistry,
  sessions: SessionService,
  tenancy: TenancyService,
): void {
  reg.add({
    method: 'post',
    path: '/v1/sessions',
    auth: 'api_key',
    scope: 'sessions:create',
    summary: 'Create a session of a published workflow',
    contract: {
      operationId: 'createSession',
      request: CreateSessionRequestSchema,
      requestContent: { 'multipart/form-data': CreateSessionMultipartSchema },
      headers: { 'Idempotency-Key': idempotencyKeyHeader },
      response: { status: 201, description: 'session', schema: SessionCreatedSchema },
      errors: [
        'validation_failed',
        'documents_required',
        'unsupported_media_type',
        'workflow_not_found',
        'workflow_not_published',
        'webhook_endpoint_required',
        'idempotency_in_progress',
        'route_unavailable',
      ],
    },
    multipart: FORM_FIELDS,
    // A key this process verified before is not read again: the create's guarded INSERT checks that it is not
    // revoked, and the pipeline confirms it before any other answer (ADR 0025, 0037).
    read: (presented) => tenancy.authenticateRemembered(presented),
    answer: async (ctx: Ctx, input) => {
      let body: Record<string, unknown>;
      let uploads = null;
      if (isType(input, /^multipart\/form-data/i)) {
        // A workflow with a sign step: file parts "file" plus the form fields (metadata as a JSON string).
        const form = await readMultipart(input.req, FORM_FIELDS);
        body = createInputFromForm(form.fields);
        uploads = form.files;
      } else if (isType(input, /^application\/json\s*(;|$)/i)) {
        body = jsonObject(input.body);
      } else {
        throw new AppError(
          'unsupported_media_type',
          'Send the body as application/json, or as multipart/form-data for a workflow with a sign step.',
        );
      }
      // a remembered key is confirmed by the pipeline before any answer but this INSERT's own (ADR 0025)
      const out = await sessions.create(ctx, body, input.header('idempotency-key'), uploads);
      return {
        status: out.statusCode,
        body: out.session,
        headers: out.replayed ? { 'Idempotent-Replayed': 'true' } : undefined,
        // a new session: its INSERT checked the key (or the service confirmed it first)
        keyChecked: !out.replayed,
      };
    },
  });
  reg.add({
    method: 'get',
    path: '/v1/sessions/:id',
    auth: 'api_key',
    scope: 'sessions:read',
    summary: 'Read a session with the results produced so far (reconciliation)',
    contract: {
      operationId: 'getSession',
      response: { status: 200, description: 'status + results', schema: SessionSchema },
      errors: ['not_found'],
    },
    // the key and the tenant's session in one statement (ADR 0023)
    read: (presented, params) => tenancy.authenticateAnd(presented, sessions.getJoin(String(params.id))),
    answer: async (ctx, { params, auth }) => ({
      status: 200,
      body: await sessions.viewOfJoin(ctx, String(params.id), auth?.rows ?? []),
    }),
  });
  reg.add({
    method: 'post',
    path: '/v1/sessions/:id/continue',
    auth: 'api_key',
    scope: 'sessions:write',
    summary: 'Continue a session waiting in awaiting_decision',
    contract: {
      operationId: 'continueSession',
      response: { status: 200, description: 'session', schema: SessionSchema },
      errors: ['not_found', 'session_state_conflict'],
    },
    answer: async (ctx, { params }) => ({
      status: 200,
      body: await sessions.continue(ctx, String(params.id)),
    }),
  });
  reg.add({
    method: 'post',
    path: '/v1/sessions/:id/stop',
    auth: 'api_key',
    scope: 'sessions:write',
    summary: 'Stop a session that has not ended',
    contract: {
      operationId: 'stopSession',
      response: { status: 200, description: 'session', schema: SessionSchema },
      errors: ['not_found', 'session_state_conflict'],
    },
    answer: async (ctx, { params }) => ({ status: 200, body: await sessions.stop(ctx, String(params.id)) }),
  });
  // the events of a session's life, as webhook payloads (schema/webhooks)
  reg.addEvent('step.completed', StepCompletedEventSchema);
  reg.addEvent('session.decision_due', SessionDecisionDueEventSchema);
  for (const status of SESSION_END_EVENTS) reg.addEvent(`session.${status}`, sessionEndedEventSchema(status));
}

/**
 * Form fields as create input. Values that do not convert stay strings, so the create's one validation
 * refuses them with the same errors as a JSON create (a repeat of a key that created a session replays it).
 */
function createInputFromForm(fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields.workflow_id !== undefined) out.workflow_id = fields.workflow_id;
  if (fields.return_url !== undefined) out.return_url = fields.return_url;
  if (fields.expires_in !== undefined)
    out.expires_in = /^\d{1,9}$/.test(fields.expires_in) ? Number(fields.expires_in) : fields.expires_in;
  if (fields.metadata !== undefined) {
    try {
      out.metadata = JSON.parse(fields.metadata) as unknown;
    } catch {
      out.metadata = fields.metadata; // not JSON: refused as "metadata must be a JSON object"
    }
  }
  return out;
}
