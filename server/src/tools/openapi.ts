// Owns the OpenAPI and webhook emitters: each route's contract (its own `contract`, zod schemas next to its
// routes, ADR 0037) resolved with the errors every route of its kind can answer, emitted as OpenAPI 3.1 and
// JSON Schema 2020-12. Used by the generator (api-contract.ts) and the contract check (contract-check.ts).
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../common/errors';
import { isApiRoute, type RouteContract, type RouteDef } from '../common/http';
import { ProblemSchema } from '../modules/errors/problem.contract';

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

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
  const own: RouteContract = route.contract ?? {};
  const documented = route.contract !== undefined;
  const errors = new Set<ErrorCode>(own.errors ?? []);
  // a /v1 POST without a request body still reads one: a JSON field there is an unknown parameter (ADR 0051)
  if (own.request || own.requestContent || (isApiRoute(route) && route.method === 'post')) {
    for (const c of ['validation_failed', 'invalid_json', 'payload_too_large'] as const) errors.add(c);
  }
  if (route.auth === 'api_key') {
    errors.add('unauthenticated');
    errors.add('rate_limited');
    // scoped API keys: the scope the route declares (common/roles.ts checks it)
    if (isApiRoute(route) && route.scope) errors.add('api_key_scope_missing');
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
    if (route.method === 'get' && route.path === '/.well-known/service-audit-jwks.json') {
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

/** schema/webhooks/<event>.schema.json of every event the modules declare (RouteRegistry.addEvent). */
export function webhookSchemaFiles(events: Record<string, z.ZodType>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [event, schema] of Object.entries(events)) {
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
