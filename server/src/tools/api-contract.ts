// Owns the generated contracts and the schemas behind them:
// - schema/schema.graphql: the built TypeGraphQL schema, sorted;
// - schema/openapi.v1.json: OpenAPI 3.1 for every /v1 route and the audit JWKS, read from the RouteRegistry;
// - schema/webhooks/<event>.schema.json: the webhook payloads;
// - the endpoint table of README.md (between the generated markers).
// Everything is built without a database: declareApi() registers routes and resolvers over hollow stand-ins
// that are never called. The zod schemas here are the single source: the OpenAPI file is emitted from them
// and test/api/contracts.test.ts checks real answers and webhook bodies against the same objects.

import os from 'node:os';
import {
  buildClientSchema,
  type GraphQLSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
} from 'graphql';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../common/errors';
import type { RouteContract, RouteDef } from '../common/http';
import { configFrom } from '../config/config';
import { buildGraphqlSchema } from '../graphql/server';
import { scopeForRoute } from '../modules/accounts/roles';
import { ALLOWED_CONTENT_TYPES } from '../modules/document/document.service';
import { UPLOAD_LIMITS } from '../modules/document/multipart';
import { SESSION_STATUSES } from '../modules/session/session.machine';
import { SESSION_LIMITS } from '../modules/session/session.service';
import {
  CONDITION_FAILURE_REASONS,
  CONDITION_OPERATORS,
  CONDITION_OUTCOMES,
} from '../modules/workflow/conditions';
import { PRIMITIVES } from '../modules/workflow/workflow.steps';
import { type ApiServices, declareApi } from '../service';

// ---------------------------------------------------------------------------------------------- schemas

/** A schema of the contract (for callers that do not depend on zod themselves). */
export type ContractSchema = z.ZodType;

const timestamp = z.iso.datetime().describe('RFC 3339 timestamp in UTC with milliseconds.');
const sessionId = z.string().regex(/^sess_[0-9a-z]+$/);
const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

export const ProblemSchema = z
  .object({
    type: z
      .url()
      .describe('{base_url}/errors/<code>: the code’s entry in the error reference (GET /errors).'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().describe('Human-readable; may change. Match on `code`.'),
    code: z.enum(ERROR_CODE_LIST).describe('Stable machine-readable code (closed list).'),
    param: z.string().optional().describe('The input at fault, when one is.'),
    request_id: z.string().describe('Quote it to support.'),
    retry_after: z
      .number()
      .int()
      .optional()
      .describe('rate_limited, service_unavailable: seconds to wait (also Retry-After).'),
  })
  .strict()
  .meta({ title: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });

export const CreateSessionRequestSchema = z
  .object({
    workflow_id: z.string().min(1).describe('A workflow with a published revision.'),
    metadata: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe(`A JSON object of at most ${SESSION_LIMITS.metadataMaxBytes} bytes, returned as given.`),
    expires_in: z
      .number()
      .int()
      .min(SESSION_LIMITS.expiresInMin)
      .max(SESSION_LIMITS.expiresInMax)
      .default(SESSION_LIMITS.expiresInDefault)
      .describe('Seconds until the session expires.'),
    return_url: z
      .string()
      .max(2048)
      .url()
      .nullable()
      .optional()
      .describe(
        'Where the hosted page offers the way back once the session ended (never carrying results). Its origin must be registered for the environment (GraphQL setReturnOrigins), else 400 return_url_not_allowed.',
      ),
  })
  .meta({ title: 'CreateSessionRequest' });

/** The same create request as multipart/form-data, required when the workflow has a sign step. */
export const CreateSessionMultipartSchema = z
  .object({
    workflow_id: z.string().min(1).describe('A workflow with a published revision.'),
    metadata: z.string().optional().describe('The metadata JSON object, as a JSON string.'),
    expires_in: z.string().regex(/^\d+$/).optional().describe('Seconds until the session expires.'),
    return_url: z
      .string()
      .max(2048)
      .optional()
      .describe('As in the JSON request: on a registered origin, else 400 return_url_not_allowed.'),
    file: z
      .array(z.string().meta({ format: 'binary' }))
      .min(1)
      .max(UPLOAD_LIMITS.maxFiles)
      .describe(
        `The documents of the sign step, in order, each with its content type (${Object.keys(ALLOWED_CONTENT_TYPES).join(', ')}); ` +
          `at most ${UPLOAD_LIMITS.maxFileBytes / 1024 / 1024} MiB each and ${UPLOAD_LIMITS.maxTotalBytes / 1024 / 1024} MiB in total.`,
      ),
  })
  .meta({ title: 'CreateSessionMultipartRequest' });

export const SessionCreatedSchema = z
  .object({
    id: sessionId,
    workflow_id: z.string(),
    workflow_revision: z.number().int().min(1).describe('The published revision the session is pinned to.'),
    url: z.url().describe('The hosted page: {hosted_url}/s/{id}.'),
    status: z.enum(SESSION_STATUSES),
    expires: timestamp,
  })
  .strict()
  .meta({ title: 'SessionCreated' });

export const HolderBindingSchema = z
  .object({
    by: z
      .enum(['first', 'holder_key', 'claims', 'opted_out'])
      .describe(
        'first: the first step (the anchor); holder_key: same holder key as the anchor; claims: another key, ' +
          'same name and birth date as the anchor (normalised, ADR 0026); opted_out: the workflow step is holder "any".',
      ),
    bound_to_stage: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('The stage this step is bound to (0); null for the first step and opted-out steps.'),
    holder_key_thumbprint: z
      .string()
      .describe('RFC 7638 SHA-256 thumbprint (base64url) of the holder key that presented this step.'),
  })
  .strict()
  .meta({
    title: 'HolderBinding',
    description:
      'Who presented the step: every step is presented by the holder of the first step unless the workflow opts it out (ADR 0026).',
  });

export const StepResultSchema = z
  .object({
    stage: z.number().int().min(0),
    primitive: z.enum(PRIMITIVES),
    audit_id: z.string().describe('GET /v1/audits/{audit_id}.'),
    completed_at: timestamp,
    holder_binding: HolderBindingSchema.optional().describe(
      'Who presented the step (absent only on steps completed before holder binding existed).',
    ),
  })
  .loose()
  .meta({
    title: 'StepResult',
    description: 'One completed step. Primitive-specific fields follow; identify: `claims` (object).',
  });

export const FailureReasonSchema = z
  .object({
    code: z
      .string()
      .describe(
        'failed: the verification code of the refusal that failed the session (e.g. credential_revoked), ' +
          'or the code of the workflow condition that failed it (condition_not_met, age_requirement_not_met, ' +
          'nationality_not_accepted or document_not_accepted; `stage` is the step whose result it tested); ' +
          'expired: session_expired (the overall window passed) or step_window_expired (the step window).',
      ),
    stage: z.number().int().min(0).nullable().describe('Zero-based step; null when never started.'),
    window: z.enum(['overall', 'step']).nullable().describe('expired: which window passed; failed: null.'),
    refused_responses: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe('failed: refused wallet responses for that step; expired: null.'),
  })
  .strict()
  .meta({ title: 'FailureReason', description: 'Why a session failed or expired.' });

/** A workflow condition that matched a step's result (ADR 0031): which one, and what it decided. */
export const ConditionMatchSchema = z
  .object({
    index: z
      .number()
      .int()
      .min(0)
      .describe("Zero-based position in the step's conditions (first match wins)."),
    claim: z
      .string()
      .describe('What it tested: `over` (age_verify), nationality or document_status (identify).'),
    operator: z.enum(CONDITION_OPERATORS),
    outcome: z.enum(CONDITION_OUTCOMES),
    skip_to: z.number().int().min(0).optional().describe('skip: the zero-based step the session went on at.'),
    failure_reason: z.enum(CONDITION_FAILURE_REASONS).optional().describe('fail: the failure_reason code.'),
  })
  .strict()
  .meta({ title: 'ConditionMatch' });

/** The condition that ended a session (session.completed / session.failed `condition`). */
export const ConditionEndSchema = z
  .object({
    stage: z.number().int().min(0).describe('The step whose result the condition tested.'),
    index: z.number().int().min(0).describe("Zero-based position in that step's conditions."),
    outcome: z.enum(['fail', 'complete']),
  })
  .strict()
  .meta({ title: 'ConditionEnd', description: 'Present when a workflow condition ended the session.' });

export const SessionSchema = SessionCreatedSchema.extend({
  created: timestamp,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  results: z.array(StepResultSchema),
  decision_due: timestamp
    .nullable()
    .describe(
      'In awaiting_decision: when the business decision is due (session.decision_due is sent then); else null.',
    ),
  failure_reason: FailureReasonSchema.optional().describe('Present on failed and expired sessions only.'),
})
  .strict()
  .meta({ title: 'Session' });

export const AuditRecordSchema = z
  .object({
    audit_id: z.string(),
    version: z.literal(1),
    type: z.literal('step.completed'),
    session_id: sessionId,
    business_id: z.string(),
    environment: z.enum(['sandbox', 'production']),
    workflow_id: z.string(),
    workflow_revision: z.number().int(),
    stage: z.number().int(),
    primitive: z.enum(PRIMITIVES),
    result_digest: z.string().describe('SHA-256 of the business-visible result.'),
    verification: z.record(z.string(), z.unknown()),
    previous_audit_hash: z.string().nullable(),
    signed_at: timestamp,
    condition: ConditionMatchSchema.optional().describe(
      "Only when a workflow condition matched the step's result: which one and what it decided.",
    ),
    service_signature: z
      .object({
        kid: z.string().describe('KMS key-version resource name; the key is in the audit JWKS.'),
        value: z.string().describe('base64url DER ECDSA P-256 signature over SHA-256(JCS(record)).'),
      })
      .strict(),
  })
  .strict()
  .meta({ title: 'AuditRecord' });

export const JwksSchema = z
  .object({
    keys: z.array(
      z
        .object({
          kty: z.literal('EC'),
          crv: z.literal('P-256'),
          alg: z.literal('ES256'),
          use: z.literal('sig'),
          kid: z.string(),
          x: z.string(),
          y: z.string(),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ title: 'AuditJwks' });

// ----------------------------------------------------------------------------------------------- webhooks

const deliveryId = (event: string) =>
  z
    .string()
    .regex(new RegExp(`^sess_[0-9a-z]+:${event.replace('.', '\\.')}:\\d+$`))
    .describe('X-Service-Delivery-Id: <session_id>:<event>:<counter>, stable across retries.');

export const StepCompletedEventSchema = z
  .object({
    event: z.literal('step.completed'),
    delivery_id: deliveryId('step.completed'),
    data: z
      .object({
        session_id: sessionId,
        stage: z.number().int().min(0),
        primitive: z.enum(PRIMITIVES),
        audit_id: z.string(),
        holder_binding: HolderBindingSchema.optional().describe(
          'Who presented the step (absent only on events queued before holder binding existed).',
        ),
      })
      .loose()
      .describe(
        'Primitive-specific fields follow; identify: `claims` (object). `condition` (ConditionMatch) when a ' +
          "workflow condition matched the step's result.",
      ),
  })
  .strict();

export const SESSION_END_EVENTS = ['completed', 'stopped', 'failed', 'expired'] as const;

export const sessionEndedEventSchema = (status: (typeof SESSION_END_EVENTS)[number]) =>
  z
    .object({
      event: z.literal(`session.${status}`),
      delivery_id: deliveryId(`session.${status}`),
      data: z
        .object({
          session_id: sessionId,
          status: z.literal(status),
          workflow_id: z.string(),
          workflow_revision: z.number().int(),
          completed_steps: z.number().int().min(0),
          // why it ended, on the two unhappy endings only
          ...(status === 'failed' || status === 'expired' ? { failure_reason: FailureReasonSchema } : {}),
          // the workflow condition that ended it, when one did (ADR 0031)
          ...(status === 'failed' || status === 'completed'
            ? { condition: ConditionEndSchema.optional() }
            : {}),
        })
        .strict(),
    })
    .strict();

/** The reminder that a session waits at a gate past its decision deadline (ADR 0008); sent once per gate. */
export const SessionDecisionDueEventSchema = z
  .object({
    event: z.literal('session.decision_due'),
    delivery_id: deliveryId('session.decision_due'),
    data: z
      .object({
        session_id: sessionId,
        status: z.literal('awaiting_decision'),
        workflow_id: z.string(),
        workflow_revision: z.number().int(),
        completed_steps: z.number().int().min(0),
        decision_due: timestamp,
      })
      .strict(),
  })
  .strict();

/** The sandbox test event (sendTestWebhook): not tied to a session; its stream id is a `whtest_` id. */
export const WebhookTestEventSchema = z
  .object({
    event: z.literal('webhook.test'),
    delivery_id: z
      .string()
      .regex(/^whtest_[0-9a-z]+:webhook\.test:0$/)
      .describe('<whtest_ id>:webhook.test:0; a fresh id per test event.'),
    data: z
      .object({
        test: z.literal(true),
        endpoint_id: z.string(),
        environment: z.literal('sandbox'),
        sent_at: timestamp,
      })
      .strict(),
  })
  .strict();

export const WEBHOOK_EVENT_SCHEMAS: Record<string, z.ZodType> = {
  'step.completed': StepCompletedEventSchema,
  'session.decision_due': SessionDecisionDueEventSchema,
  ...Object.fromEntries(SESSION_END_EVENTS.map((s) => [`session.${s}`, sessionEndedEventSchema(s)])),
  'webhook.test': WebhookTestEventSchema,
};

// ------------------------------------------------------------------------------------ route contracts

const idempotencyKeyHeader = {
  description:
    'Optional. A repeat with the same key (same business and environment, within 24 h) returns the original ' +
    'session and status code with Idempotent-Replayed: true; bodies are not compared.',
  schema: z
    .string()
    .min(1)
    .max(SESSION_LIMITS.idempotencyKeyMaxLength)
    .regex(/^[\x21-\x7e]+$/),
};

/** Contracts of the routes registered before RouteDef.contract existed; a route's own contract wins. */
const KNOWN_CONTRACTS: Record<string, RouteContract> = {
  'post /v1/sessions': {
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
  'get /v1/sessions/:id': {
    operationId: 'getSession',
    response: { status: 200, description: 'status + results', schema: SessionSchema },
    errors: ['not_found'],
  },
  'post /v1/sessions/:id/continue': {
    operationId: 'continueSession',
    response: { status: 200, description: 'session', schema: SessionSchema },
    errors: ['not_found', 'session_state_conflict'],
  },
  'post /v1/sessions/:id/stop': {
    operationId: 'stopSession',
    response: { status: 200, description: 'session', schema: SessionSchema },
    errors: ['not_found', 'session_state_conflict'],
  },
  'get /v1/audits/:id': {
    operationId: 'getAuditRecord',
    response: { status: 200, description: 'audit record', schema: AuditRecordSchema },
    errors: ['not_found'],
  },
  'get /.well-known/service-audit-jwks.json': {
    operationId: 'getAuditJwks',
    response: {
      status: 200,
      description: 'key set (public, CORS `*`, `max-age=300`, ETag; 304 on If-None-Match)',
      schema: JwksSchema,
    },
    errors: [],
  },
};

const routeKey = (r: Pick<RouteDef, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** Routes in the OpenAPI contract: the business API and public well-known documents. */
export const inOpenApi = (r: RouteDef): boolean =>
  r.path.startsWith('/v1/') ||
  (r.auth === 'public' && (r.path.startsWith('/.well-known/') || /^\/errors(\/|$)/.test(r.path)));

export interface ResolvedContract extends RouteContract {
  route: RouteDef;
  documented: boolean;
  /** Every error code the route can answer, in status order. */
  allErrors: ErrorCode[];
}

export function contractOf(route: RouteDef): ResolvedContract {
  const known = KNOWN_CONTRACTS[routeKey(route)];
  const own: RouteContract = { ...known, ...route.contract };
  // error codes add up: a route's own contract extends what the table knows
  own.errors = [...(known?.errors ?? []), ...(route.contract?.errors ?? [])];
  const documented = known !== undefined || route.contract !== undefined;
  const errors = new Set<ErrorCode>(own.errors ?? []);
  if (own.request || own.requestContent) {
    for (const c of ['validation_failed', 'invalid_json', 'payload_too_large'] as const) errors.add(c);
  }
  if (route.auth === 'api_key') {
    errors.add('unauthenticated');
    errors.add('rate_limited');
    // scoped API keys (modules/accounts/roles.ts)
    if (scopeForRoute(route.method, route.path)) errors.add('api_key_scope_missing');
  }
  errors.add('internal_error');
  // any route can find the database away (db/availability.ts); the error reference never needs it
  if (!route.path.startsWith('/errors')) errors.add('service_unavailable');
  const allErrors = [...errors].sort(
    (a, b) =>
      ERROR_CODES[a].status - ERROR_CODES[b].status ||
      ERROR_CODE_LIST.indexOf(a) - ERROR_CODE_LIST.indexOf(b),
  );
  return { ...own, route, documented, allErrors };
}

// --------------------------------------------------------------------------------------------- emitters

/** JSON Schema 2020-12 of a zod schema, without the top-level $schema and noisy date-time patterns. */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: (ctx) => {
      const s = ctx.jsonSchema as Record<string, unknown>;
      if (s.format === 'date-time') delete s.pattern;
    },
  }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

const opIdFallback = (r: RouteDef) =>
  `${r.method}${r.path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('')}`;

export function buildOpenApi(routes: readonly RouteDef[]): {
  doc: Record<string, unknown>;
  undocumented: string[];
} {
  const undocumented: string[] = [];
  const paths: Record<string, Record<string, unknown>> = {};
  const rateHeaders = {
    RateLimit: { $ref: '#/components/headers/RateLimit' },
    'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  };
  const methodOrder = ['get', 'post', 'put', 'delete'];
  const selected = routes
    .filter(inOpenApi)
    .slice()
    .sort(
      (a, b) => a.path.localeCompare(b.path) || methodOrder.indexOf(a.method) - methodOrder.indexOf(b.method),
    );
  for (const route of selected) {
    const c = contractOf(route);
    if (!c.documented) undocumented.push(`${route.method.toUpperCase()} ${route.path}`);
    const oaPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const m of route.path.matchAll(/:([A-Za-z0-9_]+)/g))
      parameters.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
    for (const [name, h] of Object.entries(c.headers ?? {}))
      parameters.push({
        name,
        in: 'header',
        required: false,
        description: h.description,
        schema: jsonSchema(h.schema),
      });

    const isApiKey = route.auth === 'api_key';
    const responses: Record<string, unknown> = {};
    const ok = c.response ?? { status: 200, description: 'Success' };
    const okHeaders: Record<string, unknown> = { ...(isApiKey ? rateHeaders : {}) };
    if (ok.status === 201 && c.headers?.['Idempotency-Key'])
      okHeaders['Idempotent-Replayed'] = {
        description: '`true` when the answer replays an earlier request with the same Idempotency-Key.',
        schema: { type: 'string', const: 'true' },
      };
    if (routeKey(route) === 'get /.well-known/service-audit-jwks.json') {
      okHeaders.ETag = { schema: { type: 'string' } };
      okHeaders['Cache-Control'] = { schema: { type: 'string', const: 'public, max-age=300' } };
      okHeaders['Access-Control-Allow-Origin'] = { schema: { type: 'string', const: '*' } };
      responses['304'] = { description: 'Not Modified: If-None-Match matched the current ETag.' };
    }
    responses[String(ok.status)] = {
      description: ok.description,
      ...(Object.keys(okHeaders).length ? { headers: okHeaders } : {}),
      ...(ok.schema
        ? { content: { [ok.contentType ?? 'application/json']: { schema: jsonSchema(ok.schema) } } }
        : {}),
    };
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of c.allErrors) {
      const st = ERROR_CODES[code].status;
      byStatus.set(st, [...(byStatus.get(st) ?? []), code]);
    }
    for (const [st, codes] of byStatus) {
      const headers: Record<string, unknown> = { ...(isApiKey && st !== 401 ? rateHeaders : {}) };
      if (st === 429 || st === 503) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
      responses[String(st)] = {
        description: codes.map((code) => `${code}: ${ERROR_CODES[code].title}`).join('; '),
        ...(Object.keys(headers).length ? { headers } : {}),
        content: {
          'application/problem+json': {
            schema: {
              allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { code: { enum: codes } } }],
            },
          },
        },
      };
    }
    const requestContent: Record<string, unknown> = {};
    if (c.request) requestContent['application/json'] = { schema: jsonSchema(c.request, 'input') };
    for (const [type, s] of Object.entries(c.requestContent ?? {}))
      requestContent[type] = { schema: jsonSchema(s, 'input') };

    paths[oaPath] ??= {};
    paths[oaPath][route.method] = {
      operationId: c.operationId ?? opIdFallback(route),
      summary: route.summary ?? '',
      security: isApiKey ? [{ apiKey: [] }] : [],
      'x-auth': route.auth,
      ...(parameters.length ? { parameters } : {}),
      ...(Object.keys(requestContent).length
        ? { requestBody: { required: true, content: requestContent } }
        : {}),
      responses,
    };
  }

  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'Credential verification service: business API',
      version: '1',
      description:
        'Generated by `pnpm schema:generate` from the route registry (server/src/tools/api-contract.ts); ' +
        'do not edit. Errors are RFC 9457 problem+json with a stable `code` from one closed list.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:3000' } } }],
    paths,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API key> (sk_sandbox_… or sk_production_…).',
        },
      },
      headers: {
        RateLimit: {
          description: 'limit=<requests>, remaining=<requests>, reset=<seconds until the budget is full>.',
          schema: { type: 'string', examples: ['limit=100, remaining=99, reset=1'] },
        },
        'RateLimit-Policy': {
          description: '<requests>;w=<window seconds>: the per-API-key budget.',
          schema: { type: 'string', examples: ['100;w=10'] },
        },
        'Retry-After': {
          description: 'Seconds to wait before repeating the request (rate limit, or the database is away).',
          schema: { type: 'integer', minimum: 1 },
        },
      },
      schemas: { Problem: jsonSchema(ProblemSchema) },
    },
  };
  return { doc, undocumented };
}

export function webhookSchemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [event, schema] of Object.entries(WEBHOOK_EVENT_SCHEMAS)) {
    const file = `schema/webhooks/${event}.schema.json`;
    const body = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `https://docs.service.example/schemas/webhooks/${event}.schema.json`,
      title: `${event} webhook payload`,
      description:
        `The JSON body POSTed for ${event}. Headers: X-Service-Event, X-Service-Timestamp (unix seconds), ` +
        'X-Service-Signature (v1=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>), X-Service-Delivery-Id; ' +
        'and the Standard Webhooks headers webhook-id (msg_<base32 of SHA-256(delivery id)>), webhook-timestamp ' +
        'and webhook-signature (v1,<base64>). During a secret rotation overlap both signature headers carry one ' +
        'value per active secret.',
      ...jsonSchema(schema),
    };
    out[file] = `${JSON.stringify(body, null, 2)}\n`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- README

export const README_START = '<!-- generated:api-endpoints (pnpm schema:generate; edit api-contract.ts) -->';
export const README_END = '<!-- /generated:api-endpoints -->';

export function readmeEndpointTable(routes: readonly RouteDef[]): string {
  const rows = routes
    .filter(inOpenApi)
    .slice()
    .sort((a, b) => {
      const rank = (r: RouteDef) => (r.path.startsWith('/v1/') ? 0 : 1);
      return rank(a) - rank(b) || routes.indexOf(a) - routes.indexOf(b);
    })
    .map((route) => {
      const c = contractOf(route);
      const ok = c.response ?? { status: 200, description: 'success' };
      const byStatus = new Map<number, ErrorCode[]>();
      // every route can answer these two; the README says so once, under the table
      for (const code of c.allErrors.filter((e) => e !== 'internal_error' && e !== 'service_unavailable')) {
        const st = ERROR_CODES[code].status;
        byStatus.set(st, [...(byStatus.get(st) ?? []), code]);
      }
      const errors = [...byStatus].map(([st, codes]) => `${st} ${codes.map((x) => `\`${x}\``).join(' / ')}`);
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      return `| \`${route.method.toUpperCase()} ${path}\` | \`${ok.status}\` ${ok.description} | ${errors.join(', ') || '—'} |`;
    });
  return [
    README_START,
    '| Endpoint | Success | Errors (`code`) |',
    '|---|---|---|',
    ...rows,
    '| `POST /graphql` | dashboard API (sessions, workflows, webhook endpoint) | GraphQL errors with `extensions.code` from the same list |',
    README_END,
  ].join('\n');
}

export function withReadmeTable(readme: string, table: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start)
    throw new Error(
      `README.md lacks the markers ${README_START} ... ${README_END} around the endpoint table.`,
    );
  return readme.slice(0, start) + table + readme.slice(end + README_END.length);
}

// ------------------------------------------------------------------------------------------- generation

/** A stand-in for a service that registration may reference but must never call. */
function hollow(name: string): unknown {
  return new Proxy(() => undefined, {
    get: (_t, prop) => (prop === 'then' ? undefined : hollow(`${name}.${String(prop)}`)),
    apply: () => {
      throw new Error(
        `${name}() was called while generating contracts; registration must not call services.`,
      );
    },
  });
}

export const SDL_HEADER =
  '# Generated by `pnpm schema:generate` from the TypeGraphQL resolvers; do not edit.\n\n';

/** The committed form of a GraphQL schema: sorted, so declaration order never shows as a change. */
export const sdlOf = (schema: GraphQLSchema): string => `${printSchema(lexicographicSortSchema(schema))}\n`;

/** The same form for a served schema, from an introspection answer to INTROSPECTION_QUERY. */
export const sdlFromIntrospection = (data: IntrospectionQuery): string => sdlOf(buildClientSchema(data));
export const INTROSPECTION_QUERY = getIntrospectionQuery();

/** Routes and resolvers exactly as createService declares them, over hollow services. */
export function declaredApi() {
  const config = configFrom({ APP_ENV: 'development', SEED_SANDBOX: 'true', DATA_DIR: os.tmpdir() });
  const services = new Proxy({} as ApiServices, {
    get: (_t, prop) => (prop === 'config' ? config : hollow(String(prop))),
  });
  return declareApi(services);
}

/** Every generated file (repository-relative path -> content), README excluded. */
export async function generateContracts(): Promise<{
  files: Record<string, string>;
  undocumented: string[];
  routes: RouteDef[];
}> {
  const { routes, resolvers } = declaredApi();
  const schema = await buildGraphqlSchema(resolvers);
  const sdl = `${SDL_HEADER}${sdlOf(schema)}`;
  const { doc, undocumented } = buildOpenApi(routes.routes);
  return {
    files: {
      'schema/schema.graphql': sdl,
      'schema/openapi.v1.json': `${JSON.stringify(doc, null, 2)}\n`,
      ...webhookSchemaFiles(),
    },
    undocumented,
    routes: routes.routes,
  };
}
