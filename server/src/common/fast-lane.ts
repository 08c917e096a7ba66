// Owns the lean lane in front of Express for the two hottest API routes (ADR 0023): a request whose method, path
// and headers are in the plain common shape is answered here, with the same observable behaviour as the Express
// stack (request id, security headers, body limits, JSON parsing, API-key auth, scope, rate-limit headers,
// problem+json errors, metrics); every other request, and every unusual shape of these routes (another media
// type, a Content-Encoding, chunked bodies, percent-escapes, HEAD, trailing slashes), goes to Express unchanged.
// Routes declare their lane next to their Express route (session.rest.ts); this file knows no route.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Clock } from './clock';
import type { Actor, Ctx } from './context';
import { AppError, isAppError, toProblem } from './errors';
import { newId } from './ids';
import type { Logger } from './logger';
import { laneRoute } from './tracing';

/** Where an answer's headers go: an HTTP response, or the lean lane's header list. */
export interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/** What a lane handler answers: a JSON status and body, and extra headers. */
export interface FastAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Row = Record<string, unknown>;
type ApiKeyActor = Extract<Actor, { kind: 'api_key' }>;

/** What a lane's key check found: the actor, the rows read with it, and whether the key is still to confirm. */
export interface LaneAuth {
  actor: ApiKeyActor;
  rows: Row[];
  /**
   * Set when the key was recognised without reading its row (tenancy's `authenticateRemembered`): its
   * revocation is not checked yet. The handler's write must check it in its own statement, or call this
   * first; this throws `unauthenticated` for a key revoked since. Every refusal before the handler
   * (scope, rate limit) calls it first, so a revoked key is answered 401 as on the Express stack.
   */
  confirm?: () => Promise<void>;
}

/**
 * Authenticates a presented key and reads, in the same statement, what the route answers with (one round
 * trip instead of two): tenancy's `authenticateAnd` with the route's tenant-scoped join; or recognises a key
 * this process has verified before (`authenticateRemembered`), leaving its revocation to the route's write.
 */
export type LaneRead = (presented: string | undefined) => Promise<LaneAuth>;

/** A route's lane: an optional combined read, and the handler that runs once the key, scope and budget passed. */
export interface Lane {
  read?(presented: string | undefined, params: Record<string, string>): ReturnType<LaneRead>;
  handle(
    ctx: Ctx,
    req: IncomingMessage,
    params: Record<string, string>,
    body: unknown,
    auth: LaneAuth,
  ): Promise<FastAnswer>;
}

export interface FastRoute {
  method: 'GET' | 'POST';
  /** The Express route path (metrics label and scope lookup), e.g. `/v1/sessions/:id`. */
  route: string;
  /** The path parameters when `path` (no query) is this route in its plain form; undefined otherwise. */
  match(path: string): Record<string, string> | undefined;
  /** POST only: the JSON body limit in bytes (the same as the Express parser's for the path). */
  bodyLimit?: number;
  lane: Lane;
}

export interface FastLaneDeps {
  clock: Clock;
  logger: Logger;
  /**
   * API-key authentication (through `read` when the route reads with it), scope check and rate limit, as the
   * Express `api_key` decision does them; rate-limit headers are set on `res`.
   */
  authorize(req: IncomingMessage, res: HeaderSink, route: string, read?: LaneRead): Promise<LaneAuth>;
  /** Errors from outside our code (database outage) as closed codes; the Express error handler uses it too. */
  classify(e: unknown): AppError | undefined;
  isDraining(): boolean;
  observe(method: string, route: string, status: number, seconds: number): void;
  /** The absolute prefix of problem `type` URIs. */
  errorTypeBase: string;
}

/**
 * The JSON media type the lane accepts: `application/json`, optionally with `charset=utf-8`. Anything else
 * (`application/*+json`, other charsets, multipart) is Express's, which answers it as before.
 */
const PLAIN_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** Wraps the Express app: a lane route in its plain form is answered here, everything else by `app`. */
export function withFastLane(app: RequestListener, routes: FastRoute[], deps: FastLaneDeps): RequestListener {
  if (routes.length === 0) return app;
  return (req, res) => {
    const lane = pick(req, routes);
    if (!lane) {
      app(req, res);
      return;
    }
    serve(req, res, lane.route, lane.params, deps);
  };
}

function pick(
  req: IncomingMessage,
  routes: FastRoute[],
): { route: FastRoute; params: Record<string, string> } | undefined {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  for (const route of routes) {
    if (route.method !== req.method) continue;
    const params = route.match(path);
    if (!params) continue;
    if (route.method === 'GET') {
      // a GET with a body is unusual enough to leave to Express
      if (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') return;
      if (req.headers['transfer-encoding'] !== undefined) return;
      return { route, params };
    }
    const h = req.headers;
    const type = h['content-type'];
    const length = h['content-length'];
    if (!type || !PLAIN_JSON.test(type)) return;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined) return;
    if (length === undefined || !/^\d{1,9}$/.test(length)) return;
    if (Number(length) > (route.bodyLimit ?? 0)) return; // Express answers payload_too_large
    return { route, params };
  }
  return undefined;
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  route: FastRoute,
  params: Record<string, string>,
  deps: FastLaneDeps,
): void {
  laneRoute(req, route.route);
  const x = new Exchange(req, res, route, deps);
  x.run(params).catch((e: unknown) => {
    if (res.headersSent || res.destroyed) return;
    x.fail(e);
  });
}

/**
 * One request on the lane. Headers are collected here (the rate-limit step writes into it as into a response)
 * and written with the status in one `writeHead`, so Node validates and stores them once.
 */
class Exchange {
  private readonly t0 = process.hrtime.bigint();
  private readonly requestId = newId('req', 10);
  private readonly headers: (string | number)[];

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly route: FastRoute,
    private readonly deps: FastLaneDeps,
  ) {
    this.headers = ['X-Request-Id', this.requestId];
    if (deps.isDraining()) this.headers.push('Connection', 'close');
    this.headers.push('X-Content-Type-Options', 'nosniff', 'Referrer-Policy', 'no-referrer');
  }

  /** What the rate-limit step sets its headers on (the `res` of the Express middleware). */
  setHeader(name: string, value: string): void {
    this.headers.push(name, value);
  }

  async run(params: Record<string, string>): Promise<void> {
    const { req, route, deps } = this;
    // The order is Express's: the body is read and parsed first, then the key is checked.
    const body =
      route.method === 'POST' ? await readJson(req, Number(req.headers['content-length'])) : undefined;
    const { read } = route.lane;
    const auth = await deps.authorize(
      req,
      this,
      route.route,
      read ? (presented) => read(presented, params) : undefined,
    );
    const ctx: Ctx = { actor: auth.actor, requestId: this.requestId, clock: deps.clock };
    const out = await route.lane.handle(ctx, req, params, body, auth);
    if (out.headers) for (const k in out.headers) this.headers.push(k, out.headers[k] as string);
    this.send(out.status, 'application/json', JSON.stringify(out.body));
  }

  fail(err: unknown): void {
    const { deps, requestId } = this;
    const e = isAppError(err) ? err : (deps.classify(err) ?? err);
    if (!isAppError(e))
      deps.logger.error('unhandled error', {
        request_id: requestId,
        error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    const p = toProblem(e, requestId, deps.errorTypeBase);
    if ((p.code === 'rate_limited' || p.code === 'service_unavailable') && typeof p.retry_after === 'number')
      this.headers.push('Retry-After', String(p.retry_after));
    this.send(p.status, 'application/problem+json', JSON.stringify(p));
  }

  private send(status: number, type: string, text: string): void {
    const { res, route } = this;
    this.headers.push('Content-Type', `${type}; charset=utf-8`, 'Content-Length', Buffer.byteLength(text));
    res.writeHead(status, this.headers as string[]);
    res.end(text);
    this.deps.observe(route.method, route.route, status, Number(process.hrtime.bigint() - this.t0) / 1e9);
  }
}

/**
 * Reads exactly `length` bytes and parses them as the Express JSON parser does (strict: an object or an
 * array; an empty body is `{}`), with its error codes: `invalid_json`, and `validation_failed` for a body
 * that does not arrive completely.
 */
function readJson(req: IncomingMessage, length: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const incomplete = () => {
      if (settled) return;
      settled = true;
      reject(new AppError('validation_failed', 'The request body was not received completely.'));
    };
    req.on('data', (c: Buffer) => {
      received += c.length;
      if (received > length) {
        // more bytes than Content-Length says: Node's parser forbids this, kept as a guard
        req.pause();
        incomplete();
        return;
      }
      chunks.push(c);
    });
    req.on('aborted', incomplete);
    req.on('error', incomplete);
    req.on('end', () => {
      if (settled) return;
      settled = true;
      if (received !== length) {
        reject(new AppError('validation_failed', 'The request body was not received completely.'));
        return;
      }
      const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
      try {
        resolve(parseStrictJson(text));
      } catch (e) {
        reject(e);
      }
    });
  });
}

const FIRST_NON_SPACE = /^[ \t\n\r]*([^ \t\n\r])/; // JSON whitespace: space, tab, LF, CR

/**
 * body-parser's `strict` JSON after its UTF-8 decoding (which drops a byte order mark): empty is `{}`,
 * otherwise it must start with `{` or `[` and parse.
 */
export function parseStrictJson(decoded: string): unknown {
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (text.length === 0) return {};
  const first = FIRST_NON_SPACE.exec(text)?.[1];
  if (first !== '{' && first !== '[')
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('invalid_json', 'The request body is not valid JSON.');
  }
}
