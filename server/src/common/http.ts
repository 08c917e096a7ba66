// Owns the HTTP plumbing shared by every REST controller: the route registry (every route declares its
// authorization decision), the request context, JSON/problem responses and the error handler.
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { ZodType } from 'zod';
import type { Clock } from './clock';
import type { Actor, Ctx } from './context';
import { AppError, type ErrorCode, toProblem } from './errors';
import type { FastRoute, Lane } from './fast-lane';
import { newId } from './ids';
import type { Logger } from './logger';

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

export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  auth: AuthDecision;
  handler: Handler;
  /** One-line description for docs and the OpenAPI contract. */
  summary?: string;
  /** The route's part of schema/openapi.v1.json (tools/api-contract.ts documents the older routes). */
  contract?: RouteContract;
  /**
   * The route's lean-lane form (fast-lane.ts, ADR 0023), for an `api_key` route whose path has only literal
   * segments and `:params`: requests in the plain common shape are answered by it without Express, with the
   * same observable behaviour; the Express handler above answers every other shape.
   */
  lane?: Lane;
}

/** The JSON body limit of /v1, /t and /sandbox (Express parser and lean lane). */
export const API_JSON_LIMIT = 256 * 1024;

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

/** Collects routes from every module; the composition root mounts them with their auth middleware. */
export class RouteRegistry {
  readonly routes: RouteDef[] = [];
  add(def: RouteDef): void {
    if (def.lane && def.auth !== 'api_key') throw new Error(`lane on a non-api_key route: ${def.path}`);
    this.routes.push(def);
  }
  /**
   * The routes that declare a lean lane, with their path matchers. A lane must never take a request that
   * Express would route elsewhere: a literal route of the same method that the lane's pattern matches is a
   * startup error.
   */
  lanes(): FastRoute[] {
    for (const r of this.routes) {
      if (!r.lane) continue;
      const match = pathMatcher(r.path);
      const shadowed = this.routes.find(
        (o) => o !== r && o.method === r.method && !o.path.includes(':') && match(o.path),
      );
      if (shadowed) throw new Error(`lane ${r.method} ${r.path} would take ${shadowed.path}`);
    }
    return this.routes.flatMap((r) =>
      r.lane
        ? [
            {
              method: r.method.toUpperCase() as 'GET' | 'POST',
              route: r.path,
              match: pathMatcher(r.path),
              bodyLimit: API_JSON_LIMIT,
              lane: r.lane,
            },
          ]
        : [],
    );
  }
  /**
   * `dashboard` may be left out (e.g. a unit test's app without accounts): its routes then answer 401, never
   * run unauthenticated.
   */
  mount(
    router: Router,
    auth: Record<Exclude<AuthDecision, 'dashboard'>, RequestHandler> & { dashboard?: RequestHandler },
  ): void {
    const refuse: RequestHandler = (_req, _res, next) => next(new AppError('unauthenticated'));
    for (const r of this.routes) {
      const wrapped: RequestHandler = (req, res, next) => {
        Promise.resolve(r.handler(req as AppRequest, res)).catch(next);
      };
      router[r.method](r.path, auth[r.auth] ?? refuse, wrapped);
    }
  }
}

/**
 * A matcher for a route path of literal segments and `:params`, taking only the plain form of a request path:
 * exact case, no trailing slash, parameters of `[A-Za-z0-9_-]` (1-128 characters, no percent-escapes). Any
 * other form is left to Express, whose router is more permissive.
 */
function pathMatcher(route: string): FastRoute['match'] {
  const names: string[] = [];
  const source = route
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        return '([A-Za-z0-9_-]{1,128})';
      }
      if (!/^[A-Za-z0-9_.-]*$/.test(seg)) throw new Error(`lane route with a pattern segment: ${route}`);
      return seg.replace(/\./g, '\\.');
    })
    .join('/');
  const re = new RegExp(`^${source}$`);
  return (path) => {
    const m = re.exec(path);
    if (!m) return undefined;
    const params: Record<string, string> = {};
    names.forEach((n, i) => {
      params[n] = m[i + 1];
    });
    return params;
  };
}

/** First middleware: request id and a base context (anonymous actor, injected clock). */
export function requestContext(clock: Clock): RequestHandler {
  return (req, res, next) => {
    const requestId = newId('req', 10);
    res.setHeader('X-Request-Id', requestId);
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
  const p = toProblem(err, requestId, typeof base === 'string' ? base : undefined);
  if ((p.code === 'rate_limited' || p.code === 'service_unavailable') && typeof p.retry_after === 'number')
    res.setHeader('Retry-After', String(p.retry_after));
  res.status(p.status).type('application/problem+json').send(JSON.stringify(p));
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
 * The router decodes path parameters with decodeURIComponent, which throws on a malformed escape (`%ZZ`,
 * `%`, bytes that are not UTF-8). Validated here first, for every path, so no handler sees such a request.
 */
export function pathEncodingGuard(): RequestHandler {
  return (req, res, next) => {
    const p = req.path;
    let ok = !/%(?![0-9A-Fa-f]{2})/.test(p);
    if (ok && p.includes('%')) {
      try {
        decodeURIComponent(p);
      } catch {
        ok = false;
      }
    }
    if (ok) next();
    else
      sendProblem(
        res,
        new AppError('validation_failed', 'The path has malformed percent-encoding.', { param: 'path' }),
        (req as AppRequest).ctx?.requestId ?? 'none',
      );
  };
}

/** Last middleware: every error becomes RFC 9457 problem+json. Internal detail goes to the log only. */
export function errorHandler(
  logger: Logger,
  opts: { classify?: (err: unknown) => AppError | undefined } = {},
) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const requestId = (req as AppRequest).ctx?.requestId ?? newId('req', 10);
    const e = err instanceof AppError ? err : (requestErrorOf(err) ?? opts.classify?.(err) ?? err);
    if (!(e instanceof AppError)) {
      logger.error('unhandled error', {
        request_id: requestId,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    sendProblem(res, e, requestId);
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
