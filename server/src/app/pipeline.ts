// Owns the one pipeline (ADR 0037, ADR 0056): every request whose path is under /v1 (the business's API) or /t
// (the hosted page's transport, `signer` routes) is answered here on node:http, never by Express. In order: request id and base headers (drain, security), the path's percent-encoding, the
// JSON body (body-parser, the same configuration as Express's /t and /sandbox: any framing, Content-Encoding
// gzip/deflate/br, UTF-8 only, 256 KiB), the route (a small table of method + path pattern), the key, its
// scope and budget (api_key routes) or the browser's binding cookie (signer routes), the route's `answer(ctx, input)`, the remembered-key confirmation (once,
// before any answer the route's own write did not check), and one answer: JSON, bytes or problem+json, metrics,
// the tracing span's route name, and the unhandled-error log (once).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import type { Clock } from '../common/clock';
import type { Ctx } from '../common/context';
import { AppError } from '../common/errors';
import {
  API_JSON_LIMIT,
  API_JSON_TYPES,
  type ApiAnswer,
  type ApiInput,
  type ApiRoute,
  answerableError,
  baseHeaders,
  type KeyAuth,
  malformedPath,
  malformedPathError,
  writeBody,
  writeProblem,
} from '../common/http';
import { newId } from '../common/ids';
import type { Logger } from '../common/logger';
import type { HeaderSink } from '../common/rate-limit';
import { nameRoute } from '../common/tracing';
import { fieldOfBodyless, unknownParameter } from '../common/unknown-parameter';
import { browserTokenOf } from '../modules/signer/browser-cookie';

export interface PipelineDeps {
  clock: Clock;
  logger: Logger;
  /**
   * The key (through the route's `read` when it has one), the scope the route declares (403
   * api_key_scope_missing) and one request of the key's budget; rate-limit headers go to `sink`.
   */
  authorize(req: IncomingMessage, sink: HeaderSink, route: ApiRoute, read?: ReadKey): Promise<KeyAuth>;
  /** Errors from outside our code (database outage) as closed codes. */
  classify(e: unknown): AppError | undefined;
  isDraining(): boolean;
  observe(method: string, route: string, status: number, seconds: number): void;
  /** The absolute prefix of problem `type` URIs. */
  errorTypeBase: string;
}

export type ReadKey = (presented: string | undefined) => Promise<KeyAuth>;

/** A query parameter given exactly once, as Express's query parser would hand it to a route. */
function queryParam(url: string, q: number, name: string): string | undefined {
  if (q === -1) return undefined;
  const all = new URLSearchParams(url.slice(q + 1)).getAll(name);
  return all.length === 1 ? all[0] : undefined;
}

/** The media type of a download as Express's `res.type` wrote it: text in UTF-8. */
const downloadType = (t: string) => (/^text\//i.test(t) && !/charset=/i.test(t) ? `${t}; charset=utf-8` : t);

interface Compiled {
  route: ApiRoute;
  /** Literal segments lower-cased, `null` for a parameter. */
  segments: (string | null)[];
  names: string[];
}

/**
 * Matches a request path (no query) against a route as Express's router does: literal segments
 * case-insensitively, one optional trailing slash, parameters percent-decoded (the path was checked first).
 */
function match(c: Compiled, parts: string[]): Record<string, string> | undefined {
  if (parts.length !== c.segments.length) return undefined;
  const params: Record<string, string> = {};
  let n = 0;
  for (let i = 0; i < parts.length; i++) {
    const seg = c.segments[i];
    const part = parts[i] as string;
    if (seg === null) {
      if (part === '') return undefined;
      params[c.names[n++] as string] = part.includes('%') ? decodeURIComponent(part) : part;
    } else if (seg !== part && seg !== part.toLowerCase()) return undefined;
  }
  return params;
}

const jsonParser = express.json({ limit: API_JSON_LIMIT, type: API_JSON_TYPES }) as unknown as (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

/** Reads a JSON body as Express's parser does (undefined when there is none or it is not JSON). */
function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  return new Promise((resolve, reject) => {
    jsonParser(req, res, (err) =>
      err ? reject(err) : resolve((req as IncomingMessage & { body?: unknown }).body),
    );
  });
}

/** The `/v1` and `/t` request listener over the routes of the registry. */
export function createPipeline(routes: readonly ApiRoute[], deps: PipelineDeps): RequestListener {
  const table: Compiled[] = routes.map((route) => {
    const names: string[] = [];
    const segments = route.path.split('/').map((s) => {
      if (!s.startsWith(':')) return s.toLowerCase();
      names.push(s.slice(1));
      return null;
    });
    return { route, segments, names };
  });
  const find = (method: string, path: string) => {
    const m = method === 'HEAD' ? 'get' : method.toLowerCase();
    const parts = path.split('/');
    if (parts.length > 2 && parts[parts.length - 1] === '') parts.pop(); // one trailing slash
    for (const c of table) {
      if (c.route.method !== m) continue;
      const params = match(c, parts);
      if (params) return { route: c.route, params };
    }
    return undefined;
  };
  return (req, res) => {
    const x = new Exchange(req, res, deps);
    x.run(find)
      .catch((e: unknown) => (res.headersSent || res.destroyed ? undefined : x.fail(e)))
      .catch((e: unknown) => deps.logger.error('answer failed', { error: String(e) }));
  };
}

/**
 * What a route's `answer` receives. A class, not an object literal with arrow functions: the literal made
 * three closures per request, and under tsx (how the service runs) each named one is also given its name
 * with a `defineProperty` call (esbuild's keepNames), about 4 us of a GET's busy time in a profile.
 */
class RequestInput implements ApiInput {
  constructor(
    private readonly exchange: Exchange,
    readonly req: IncomingMessage,
    readonly params: Record<string, string>,
    readonly body: unknown,
    readonly auth: KeyAuth | undefined,
    readonly browserToken: string | undefined,
  ) {}

  query(name: string): string | undefined {
    const url = this.req.url ?? '';
    return queryParam(url, url.indexOf('?'), name);
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  }

  setHeader(name: string, value: string): void {
    this.exchange.setHeader(name, value);
  }
}

/**
 * One request. Headers are collected in a list (the rate-limit step and the route write into it as into a
 * response) and written with the status in one `writeHead`.
 */
class Exchange implements HeaderSink {
  private readonly t0 = process.hrtime.bigint();
  private readonly requestId = newId('req', 10);
  private readonly headers: (string | number)[];
  private routePath = 'unmatched';
  private confirm?: () => Promise<void>;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly deps: PipelineDeps,
  ) {
    this.headers = baseHeaders(this.requestId, deps.isDraining());
  }

  setHeader(name: string, value: string): void {
    this.headers.push(name, value);
  }

  async run(
    find: (method: string, path: string) => { route: ApiRoute; params: Record<string, string> } | undefined,
  ): Promise<void> {
    const { req, deps } = this;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (malformedPath(path)) throw malformedPathError();
    // The order is Express's: the body is read and judged first, then the route, then the key.
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readJson(req, this.res);
    const found = find(req.method ?? '', path);
    if (!found) throw new AppError('not_found', 'No such endpoint.');
    const { route, params } = found;
    this.routePath = route.path;
    nameRoute(req, route.path);
    let auth: KeyAuth | undefined;
    if (route.auth === 'api_key') {
      const { read } = route;
      auth = await deps.authorize(req, this, route, read ? (p) => read(p, params) : undefined);
      // the confirmation runs once, however many outcomes ask for it
      const confirm = auth.confirm;
      if (confirm) {
        let once: Promise<void> | undefined;
        this.confirm = () => {
          once ??= confirm();
          return once;
        };
        auth = { ...auth, confirm: this.confirm };
      }
    }
    const signer = route.auth === 'signer';
    const ctx: Ctx = {
      actor: auth?.actor ?? { kind: 'system', name: 'anonymous' },
      requestId: this.requestId,
      clock: deps.clock,
    };
    const input = new RequestInput(this, req, params, body, auth, signer ? browserTokenOf(req) : undefined);
    // a /v1 route that takes no body has no parameters to send in one (ADR 0051); a route with a JSON request
    // contract refuses unknown ones through its strict schema (the hosted page's /t routes ignore a body they
    // do not read, as they always have)
    const extra = route.contract?.request || signer ? undefined : fieldOfBodyless(body);
    if (extra !== undefined) throw unknownParameter(extra);
    const out: ApiAnswer = await route.answer(ctx, input);
    // a key recognised from memory may have been revoked since: only an answer whose own write checked it
    // goes out without asking (ADR 0025)
    if (!out.keyChecked) await this.confirm?.();
    if (out.headers) for (const k in out.headers) this.headers.push(k, out.headers[k] as string);
    if (out.location !== undefined) {
      this.headers.push('Location', out.location, 'Content-Length', 0);
      this.res.writeHead(out.status, this.headers as string[]);
      this.res.end();
      this.observe(out.status);
      return;
    }
    if (out.bytes) {
      const data = out.bytes.data;
      this.headers.push(
        'Content-Type',
        downloadType(out.bytes.contentType),
        'Content-Length',
        data.byteLength,
      );
      this.res.writeHead(out.status, this.headers as string[]);
      this.res.end(data);
    } else if (out.status === 204) {
      this.res.writeHead(204, this.headers as string[]);
      this.res.end();
    } else writeBody(this.res, out.status, 'application/json', JSON.stringify(out.body), this.headers);
    this.observe(out.status);
  }

  /** Answers an error: a remembered key is confirmed first (a revoked key is told 401, nothing else). */
  async fail(err: unknown): Promise<void> {
    let e = err;
    if (this.confirm)
      try {
        await this.confirm();
      } catch (revoked) {
        e = revoked;
      }
    if (this.res.headersSent || this.res.destroyed) return;
    const { deps, requestId } = this;
    const status = writeProblem(
      this.res,
      answerableError(e, requestId, deps.logger, deps.classify),
      requestId,
      deps.errorTypeBase,
      this.headers,
    );
    this.observe(status);
  }

  private observe(status: number): void {
    const seconds = Number(process.hrtime.bigint() - this.t0) / 1e9;
    this.deps.observe(this.req.method ?? '', this.routePath, status, seconds);
  }
}
