// Owns GraphQL multipart requests on /graphql (the GraphQL multipart request spec: `operations`, `map`, file
// parts), parsed by graphql-upload-ts before Apollo runs. A multipart request is checked before any byte of
// it is read: it must carry a CSRF preflight header (the same rule as Apollo's csrfPrevention, which stays
// on) and a valid API key, and must not declare more than UPLOAD_LIMITS.maxBodyBytes. Refusals of the
// request itself (too many files, a malformed form) are answered as GraphQL errors with the closed codes;
// what the files contain is judged by the resolver over the same service path as REST.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { graphqlUploadExpress } from 'graphql-upload-ts';
import { AppError, isAppError } from '../common/errors';
import type { AppRequest } from '../common/http';
import { UPLOAD_LIMITS, uploadRefusal } from '../modules/document/multipart';

/**
 * Headers that prove a browser preflighted the request (Apollo's recommended csrfPrevention headers). A
 * multipart/form-data POST is a "simple" request, so one of them must be present.
 */
export const CSRF_PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name'] as const;

/** The operations/map fields of a multipart request: the same bound as a JSON /graphql body. */
const MAX_OPERATIONS_BYTES = 256 * 1024;

/** A request-level refusal in the GraphQL response shape (no `data`), with the HTTP status of its code. */
function sendGraphqlError(req: Request, res: Response, e: AppError): void {
  res
    .status(e.status)
    .type('application/json')
    .send(
      JSON.stringify({
        errors: [
          {
            message: e.message,
            extensions: {
              code: e.code,
              status: e.status,
              ...(e.param ? { param: e.param } : {}),
              request_id: (req as AppRequest).ctx?.requestId,
            },
          },
        ],
      }),
    );
}

/** An AppError param renamed from the REST file field to the GraphQL argument that takes uploads. */
const renamed = (e: AppError, param: string): AppError =>
  new AppError(e.code, e.message, { param, cause: e, extra: e.extra });

export function graphqlUploads(opts: {
  /** The only argument of type Upload (createSession's `documents`): request-level refusals name it. */
  param: string;
  /** Authenticates the request for Apollo's context; false when it has no valid API key. */
  authenticate: (req: Request) => Promise<boolean>;
}): { before: RequestHandler[]; onError: ErrorRequestHandler } {
  const guard: RequestHandler = (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    const preflighted = CSRF_PREFLIGHT_HEADERS.some((h) => (req.header(h) ?? '') !== '');
    if (!preflighted) {
      sendGraphqlError(
        req,
        res,
        new AppError(
          'validation_failed',
          `A multipart GraphQL request must carry one of the headers ${CSRF_PREFLIGHT_HEADERS.join(', ')} (CSRF prevention), e.g. "apollo-require-preflight: true".`,
          { param: CSRF_PREFLIGHT_HEADERS[0] },
        ),
      );
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > UPLOAD_LIMITS.maxBodyBytes) {
      sendGraphqlError(req, res, renamed(uploadRefusal.totalTooLarge(), opts.param));
      return;
    }
    opts
      .authenticate(req)
      .then((ok) => {
        if (ok) next();
        else
          sendGraphqlError(
            req,
            res,
            new AppError('unauthenticated', 'Send a valid API key as "Authorization: Bearer <key>".'),
          );
      })
      .catch(next);
  };
  const upload = graphqlUploadExpress({
    maxFileSize: UPLOAD_LIMITS.maxFileBytes,
    maxFiles: UPLOAD_LIMITS.maxFiles,
    maxFieldSize: MAX_OPERATIONS_BYTES,
  }) as RequestHandler;
  // graphql-upload-ts builds its busboy parser from the request headers (busboy throws on a missing or
  // unusable boundary) and passes busboy's own errors on (a truncated or garbled body) as plain Errors
  // without an HTTP status. The boundary is validated first; whatever else fails while the form is parsed was
  // caused by the body, so it becomes validation_failed here, where the parse is started.
  const parse: RequestHandler = (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    if (!hasBoundary(req.header('content-type') ?? '')) {
      sendGraphqlError(
        req,
        res,
        new AppError('validation_failed', 'The multipart body has no valid boundary.', {
          param: 'content-type',
        }),
      );
      return;
    }
    upload(req, res, (err?: unknown) => {
      if (err === undefined || err === null || isAppError(err)) next(err);
      else if (typeof (err as { status?: unknown }).status === 'number') next(err);
      else sendGraphqlError(req, res, new AppError('validation_failed', 'The multipart body is malformed.'));
    });
  };
  const onError: ErrorRequestHandler = (err, req, res, next) => {
    if (!req.is('multipart/form-data') || res.headersSent) {
      next(err);
      return;
    }
    if (isAppError(err)) {
      next(err);
      return;
    }
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status !== 'number' || status < 400 || status >= 500) {
      next(err);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    let e: AppError;
    // graphql-upload-ts 2.2.0 answers both "more files than maxFiles" and "a field over maxFieldSize" with
    // 413; only its message tells them apart. Too many files is validation_failed, as over REST.
    if (status === 413 && /max file uploads exceeded/i.test(message))
      e = renamed(uploadRefusal.tooManyFiles(), opts.param);
    else if (status === 413)
      e = new AppError('payload_too_large', `The operations and map fields are limited to 256 KiB.`);
    else e = new AppError('validation_failed', message, { cause: err });
    sendGraphqlError(req, res, e);
  };
  return { before: [guard, parse], onError };
}

/** A multipart Content-Type with a non-empty boundary parameter (busboy throws without one). */
function hasBoundary(contentType: string): boolean {
  return /;\s*boundary=(?:"[^"]+"|[^\s;"]+)/i.test(contentType);
}
