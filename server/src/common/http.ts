// Owns the HTTP plumbing shared by both stacks: the route registry (every route declares its authorization
// decision; `/v1` and `/t` routes are answered by the one node:http pipeline, app/pipeline.ts, the others by Express),
// the request context, the one problem writer, the base headers and the error handler of the Express side.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { ZodType } from 'zod';
import type { Clock } from './clock';
import type { Actor, Ctx } from './context';
import { AppError, type ErrorCode, toProblem } from './errors';
import { newId } from './ids';
import type { Logger } from './logger';
import type { ApiKeyScope } from './roles';

/**
 * Who may call a route:
 * - api_key: a business backend with `Authorization: Bearer <API key>`; ctx.actor is the key's tenant.
 * - public: anyone (e.g. the audit JWKS).
 * - signer: the end user's browser on the hosted page; access is decided by the session capability id in
 *   the path and the binding cookie, inside the service.
 * - sandbox: sandbox tooling (reference wallet, sandbox issuer, dev webhook receiver); mounted only when
 *   sandbox seeding is enabled, never decides anything about production sessions.
 * - dashboard: a signed-in dashboard user (session cookie; X-CSRF-Token on unsafe methods); ctx.actor is the
 *   user in the environment of X-Environment (modules/accounts).
 */
export type AuthDecision = 'api_key' | 'public' | 'signer' | 'sandbox' | 'dashboard';

export interface AppRequest extends Request {
  ctx: Ctx;
}

export type Handler = (req: AppRequest, res: Response) => Promise<void> | void;

/** A route answered by Express (everything outside `/v1` and `/t`). */
export interface ExpressRoute {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  auth: AuthDecision;
  handler: Handler;
  /** One-line description for docs and the OpenAPI contract. */
  summary?: string;
  /** The route's part of schema/openapi.v1.json (public well-known documents). */
  contract?: RouteContract;
}

type Row = Record<string, unknown>;
type ApiKeyActor = Extract<Actor, { kind: 'api_key' }>;

/** What the key check of an `api_key` route found: the actor, the rows read with it, the key still to confirm. */
export interface KeyAuth {
  actor: ApiKeyActor;
  rows: Row[];
  /**
   * Set when the key was recognised without reading its row (tenancy's `authenticateRemembered`): its
   * revocation is not checked yet. The pipeline calls it once before any answer other than one a route marks
   * `keyChecked` (the create's guarded INSERT checks the key itself); it throws `unauthenticated` for a key
   * revoked since.
   */
  confirm?: () => Promise<void>;
}

/** What a pipeline route's (`/v1`, `/t`) answer function receives besides the context. */
export interface ApiInput {
  req: IncomingMessage;
  params: Record<string, string>;
  /** The parsed JSON body (any framing and Content-Encoding the parser accepts), or undefined. */
  body: unknown;
  /** The key check of an `api_key` route (undefined on `signer` routes). */
  auth?: KeyAuth;
  /**
   * A `signer` route's browser: the binding cookie's token when the request carries a well-formed one
   * (browser-cookie.ts reads it; what it means is the transport's decision).
   */
  browserToken?: string;
  /** A query parameter given exactly once (absent or repeated: undefined). */
  query(name: string): string | undefined;
  /** A request header (first value). */
  header(name: string): string | undefined;
  /** Adds a header to the answer (kept on an error answer too, as on any HTTP response). */
  setHeader(name: string, value: string): void;
}

/** A pipeline answer: JSON, bytes (a download), none (204) or a redirect, with extra headers. */
export interface ApiAnswer {
  status: number;
  body?: unknown;
  /** A non-JSON answer (a `/t` download): the bytes as they are, with their media type. */
  bytes?: { contentType: string; data: Uint8Array };
  headers?: Record<string, string>;
  /** A redirect target (`Location`), answered without a body. */
  location?: string;
  /** The answer's own write checked a remembered key (the guarded INSERT): no confirmation needed. */
  keyChecked?: boolean;
}

/**
 * A `/v1` or `/t` route: answered by the node:http pipeline (app/pipeline.ts), never by Express. It carries its
 * contract (zod request and response schemas, used by the OpenAPI generator and the contract tests) and, for
 * an `api_key` route, the scope a scoped key needs; a `signer` route is the hosted page's (binding cookie).
 */
export interface ApiRoute {
  method: 'get' | 'post';
  path: `/v1/${string}` | `/t/${string}`;
  auth: 'api_key' | 'signer';
  /** The scope a scoped API key needs (null: any key). Required on `api_key` routes. */
  scope?: ApiKeyScope | null;
  summary: string;
  /** The route's contract; only a `/t` download (bytes, not JSON) has none. */
  contract?: RouteContract;
  /** Multipart form fields the route accepts besides `file` parts (read by the route with `readForm`). */
  multipart?: readonly string[];
  /**
   * The key check with a tenant-scoped read in the same statement, or a remembered key (tenancy's
   * `authenticateAnd` / `authenticateRemembered`); default: `authenticate`.
   */
  read?(presented: string | undefined, params: Record<string, string>): Promise<KeyAuth>;
  answer(ctx: Ctx, input: ApiInput): Promise<ApiAnswer>;
}

export type RouteDef = ExpressRoute | ApiRoute;

export const isApiRoute = (r: RouteDef): r is ApiRoute => 'answer' in r;

/** True for a path the pipeline owns: `/v1` and `/t` (case-insensitively, as Express routes them). */
export const isPipelinePath = (url: string): boolean => {
  const head = url.slice(0, 3).toLowerCase();
  const n = head === '/v1' ? 3 : head.slice(0, 2) === '/t' ? 2 : 0;
  if (n === 0) return false;
  return url.length === n || url[n] === '/' || url[n] === '?';
};

/** The JSON body limit of /v1, /t and /sandbox. */
export const API_JSON_LIMIT = 256 * 1024;

/** The JSON media types of /v1, /t and /sandbox (one parser configuration: app/pipeline.ts and Express). */
export const API_JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * What the OpenAPI contract says about a route beyond path, method, auth and summary. Schemas are zod
 * schemas (emitted as JSON Schema 2020-12), so a test can check real answers against the same objects.
 */
export interface RouteContract {
  operationId?: string;
  /** The JSON request body. */
  request?: ZodType;
  /** Other accepted request content types (e.g. multipart/form-data) with their schema. */
  requestContent?: Record<string, ZodType>;
  /** Request headers the route reads, beyond Authorization. */
  headers?: Record<string, { description: string; schema: ZodType }>;
  /** The success answer. */
  response?: { status: number; description: string; schema?: ZodType; contentType?: string };
  /** Error codes the route itself can answer; auth, rate-limit, body and internal errors are added. */
  errors?: ErrorCode[];
}

/**
 * Collects routes from every module; `/v1` and `/t` routes go to the pipeline, the others are mounted on Express. It
 * also collects the webhook event payloads the modules send (`addEvent`), for the schema generator and tests.
 */
export class RouteRegistry {
  readonly routes: RouteDef[] = [];
  readonly events: Record<string, ZodType> = {};
  addEvent(event: string, payload: ZodType): void {
    if (this.events[event]) throw new Error(`webhook event ${event} is declared twice`);
    this.events[event] = payload;
  }
  add(def: RouteDef): void {
    if (isPipelinePath(def.path) !== isApiRoute(def))
      throw new Error(`${def.path}: /v1 and /t routes (and only they) are ApiRoutes`);
    if (isApiRoute(def) && def.auth === 'api_key' && def.scope === undefined)
      throw new Error(`${def.path}: an api_key route declares its scope (null: any key)`);
    if (this.routes.some((r) => r.method === def.method && r.path === def.path))
      throw new Error(`${def.method} ${def.path} is registered twice`);
    this.routes.push(def);
  }
  /** The routes of the node:http pipeline (`/v1` and `/t`). */
  apiRoutes(): ApiRoute[] {
    return this.routes.filter(isApiRoute);
  }
  /**
   * Mounts every route outside `/v1` and `/t` with its auth middleware. `dashboard` may be left out (e.g. a unit
   * test's app without accounts): its routes then answer 401, never run unauthenticated.
   */
  mount(
    router: Router,
    auth: Record<'public' | 'signer' | 'sandbox', RequestHandler> & {
      dashboard?: RequestHandler;
      /** Ignored: api_key routes are /v1 routes, answered by the pipeline. */
      api_key?: RequestHandler;
    },
  ): void {
    const refuse: RequestHandler = (_req, _res, next) => next(new AppError('unauthenticated'));
    for (const r of this.routes) {
      if (isApiRoute(r)) continue;
      const wrapped: RequestHandler = (req, res, next) => {
        Promise.resolve(r.handler(req as AppRequest, res)).catch(next);
      };
      router[r.method](r.path, (r.auth === 'api_key' ? undefined : auth[r.auth]) ?? refuse, wrapped);
    }
  }
}

/**
 * The headers of every answer, both stacks: the request id, the drain signal (while shutting down, answers
 * close their connection so clients reconnect to another node) and the security headers.
 */
export function baseHeaders(requestId: string, draining: boolean): string[] {
  const h = ['X-Request-Id', requestId];
  if (draining) h.push('Connection', 'close');
  h.push('X-Content-Type-Options', 'nosniff', 'Referrer-Policy', 'no-referrer');
  return h;
}

/** A path with a malformed percent-escape (`%ZZ`, `%`, bytes that are not UTF-8), which no route may see. */
export function malformedPath(p: string): boolean {
  if (/%(?![0-9A-Fa-f]{2})/.test(p)) return true;
  if (!p.includes('%')) return false;
  try {
    decodeURIComponent(p);
    return false;
  } catch {
    return true;
  }
}

export const malformedPathError = () =>
  new AppError('validation_failed', 'The path has malformed percent-encoding.', { param: 'path' });

/** First middleware: request id, base headers and a base context (anonymous actor, injected clock). */
export function requestContext(clock: Clock, isDraining: () => boolean = () => false): RequestHandler {
  return (req, res, next) => {
    const requestId = newId('req', 10);
    const h = baseHeaders(requestId, isDraining());
    for (let i = 0; i < h.length; i += 2) res.setHeader(h[i] as string, h[i + 1] as string);
    (req as AppRequest).ctx = {
      actor: { kind: 'system', name: 'anonymous' } satisfies Actor,
      requestId,
      clock,
    };
    next();
  };
}

export const sendJson = (res: Response, status: number, body: unknown): void => {
  res.status(status).type('application/json').send(JSON.stringify(body));
};

/** app.locals key of the absolute prefix of problem `type` URIs (`{base_url}/errors/`), set by the service. */
export const ERROR_TYPE_BASE = 'errorTypeBase';

export function sendProblem(res: Response, err: unknown, requestId: string): void {
  const base = (res.app?.locals as Record<string, unknown> | undefined)?.[ERROR_TYPE_BASE];
  writeProblem(res, err, requestId, typeof base === 'string' ? base : undefined);
}

/** Writes a whole answer at once: status, the collected headers, type (UTF-8) and length, and the text. */
export function writeBody(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  headers: (string | number)[] = [],
): void {
  headers.push('Content-Type', `${type}; charset=utf-8`, 'Content-Length', Buffer.byteLength(text));
  res.writeHead(status, headers as string[]);
  res.end(text);
}

/**
 * The one problem writer of both stacks: RFC 9457 problem+json of `err` (an AppError; anything else answers
 * internal_error without detail), with Retry-After when the problem carries `retry_after`.
 */
export function writeProblem(
  res: ServerResponse,
  err: unknown,
  requestId: string,
  typeBase: string | undefined,
  headers: (string | number)[] = [],
): number {
  const p = toProblem(err, requestId, typeBase);
  if ((p.code === 'rate_limited' || p.code === 'service_unavailable') && typeof p.retry_after === 'number')
    headers.push('Retry-After', String(p.retry_after));
  writeBody(res, p.status, 'application/problem+json', JSON.stringify(p), headers);
  return p.status;
}

/**
 * An error as what the client is told: an AppError as is, a request error of a library or an outage
 * (`classify`) as its closed code; anything else stays as it is and is logged here, once, as unhandled.
 */
export function answerableError(
  err: unknown,
  requestId: string,
  logger: Logger,
  classify?: (err: unknown) => AppError | undefined,
): unknown {
  if (err instanceof AppError) return err;
  const e = requestErrorOf(err) ?? classify?.(err);
  if (e) return e;
  logger.error('unhandled error', {
    request_id: requestId,
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  return err;
}

/**
 * Errors the request itself caused, raised by the libraries in front of our handlers (body-parser, the
 * router, serve-static), as closed codes; undefined for anything else. body-parser marks its errors with a
 * `type`; the others are http-errors with a 4xx status.
 */
export function requestErrorOf(err: unknown): AppError | undefined {
  const bp = err as { type?: unknown; status?: unknown; expose?: unknown; charset?: unknown } | null;
  switch (bp?.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError('payload_too_large');
    case 'parameters.too.many':
      return new AppError('payload_too_large', 'The form has too many parameters.');
    case 'charset.unsupported':
      return new AppError(
        'unsupported_media_type',
        'The request body must be UTF-8: send "charset=utf-8" or no charset parameter.',
      );
    case 'encoding.unsupported':
      return new AppError(
        'unsupported_media_type',
        'Content-Encoding is not supported: send the body as is.',
      );
    case 'request.aborted':
    case 'request.size.invalid':
    case 'entity.verify.failed':
      return new AppError('validation_failed', 'The request body was not received completely.');
  }
  // http-errors sets status and statusCode; serve-static's missing file (ENOENT as 404) has expose: false
  const he = err as { statusCode?: unknown } | null;
  const httpError = bp?.expose === true || (he?.statusCode !== undefined && he.statusCode === bp?.status);
  if (httpError && typeof bp?.status === 'number' && bp.status >= 400 && bp.status < 500) {
    if (bp.status === 404) return new AppError('not_found');
    if (bp.status === 403) return new AppError('forbidden');
    if (bp.status === 413) return new AppError('payload_too_large');
    if (bp.status === 415) return new AppError('unsupported_media_type');
    return new AppError('validation_failed', 'The request is malformed.');
  }
  return undefined;
}

/**
 * The router decodes path parameters with decodeURIComponent, which throws on a malformed escape. Validated
 * here first, for every path, so no handler sees such a request.
 */
export function pathEncodingGuard(): RequestHandler {
  return (req, res, next) => {
    if (!malformedPath(req.path)) next();
    else sendProblem(res, malformedPathError(), (req as AppRequest).ctx?.requestId ?? 'none');
  };
}

/** Last middleware: every error becomes RFC 9457 problem+json. Internal detail goes to the log only. */
export function errorHandler(
  logger: Logger,
  opts: { classify?: (err: unknown) => AppError | undefined } = {},
) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const requestId = (req as AppRequest).ctx?.requestId ?? newId('req', 10);
    sendProblem(res, answerableError(err, requestId, logger, opts.classify), requestId);
  };
}

export function notFoundHandler(req: Request, res: Response): void {
  sendProblem(
    res,
    new AppError('not_found', 'No such endpoint.'),
    (req as AppRequest).ctx?.requestId ?? 'none',
  );
}

/** Reads a required string field from a JSON body with a stable validation error. */
export function requireString(body: unknown, field: string, code: ErrorCode = 'validation_failed'): string {
  const v = (body as Record<string, unknown> | undefined)?.[field];
  if (typeof v !== 'string' || v.length === 0)
    throw new AppError(code, `${field} is required.`, { param: field });
  return v;
}

export function jsonObjectBody(req: Request): Record<string, unknown> {
  return jsonObject(req.body as unknown);
}

/** A parsed JSON body that must be an object (not an array or a scalar). */
export function jsonObject(b: unknown): Record<string, unknown> {
  if (b === undefined || b === null || typeof b !== 'object' || Array.isArray(b)) {
    throw new AppError('validation_failed', 'The body must be a JSON object.');
  }
  return b as Record<string, unknown>;
}
