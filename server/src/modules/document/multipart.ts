// Owns reading a multipart/form-data create request (busboy) into fields and whole files in memory, with the
// count and size limits enforced while streaming: nothing is stored here, and a refused request leaves nothing
// behind. Which fields and how many files a workflow accepts is decided by the session service.

import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { AppError } from '../../common/errors';

export const UPLOAD_LIMITS = {
  /** File parts per request. */
  maxFiles: 10,
  /** Bytes per file: 10 MiB. */
  maxFileBytes: 10 * 1024 * 1024,
  /** Bytes of all files together: 25 MiB. */
  maxTotalBytes: 25 * 1024 * 1024,
  /** Declared Content-Length of a whole multipart body: all files plus room for fields and part headers. */
  maxBodyBytes: 26 * 1024 * 1024,
  /** Bytes of one non-file field (metadata has its own, smaller limit of 16 KiB of JSON). */
  maxFieldBytes: 64 * 1024,
  maxFields: 10,
  /** File name (label) length in characters. */
  maxLabelLength: 255,
} as const;

/** Form field name of file parts. */
export const FILE_FIELD = 'file';

/**
 * The upload refusals shared by the REST multipart reader and the GraphQL upload path (document/uploads.ts),
 * so both transports answer the same code, text and `param` (renamed per transport).
 */
export const uploadRefusal = {
  tooManyFiles: () =>
    new AppError('validation_failed', `At most ${UPLOAD_LIMITS.maxFiles} files per session.`, {
      param: FILE_FIELD,
    }),
  fileTooLarge: () =>
    new AppError('payload_too_large', 'Each file is limited to 10 MiB.', { param: FILE_FIELD }),
  totalTooLarge: () =>
    new AppError('payload_too_large', 'Files are limited to 25 MiB in total.', { param: FILE_FIELD }),
};

export interface UploadedFile {
  /** The part's file name (basename), used as the document label. */
  filename: string;
  /** The part's Content-Type (type/subtype, lower case). */
  contentType: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

const nameless = () =>
  new AppError('validation_failed', 'Every form part needs a name in its Content-Disposition (name="…").');

/** Parses the whole body; rejects with a stable AppError on the first violation (the rest is discarded). */
export function readMultipart(
  req: IncomingMessage,
  allowedFields: readonly string[],
): Promise<MultipartBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > UPLOAD_LIMITS.maxBodyBytes) {
    return Promise.reject(uploadRefusal.totalTooLarge());
  }
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          files: UPLOAD_LIMITS.maxFiles,
          fileSize: UPLOAD_LIMITS.maxFileBytes,
          fields: UPLOAD_LIMITS.maxFields,
          fieldSize: UPLOAD_LIMITS.maxFieldBytes,
          parts: UPLOAD_LIMITS.maxFiles + UPLOAD_LIMITS.maxFields,
        },
      });
    } catch (e) {
      reject(new AppError('validation_failed', 'The multipart body has no valid boundary.', { cause: e }));
      return;
    }
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let total = 0;
    let pending = 0; // file streams not yet ended
    let finished = false;
    let failed = false;

    const fail = (err: AppError) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.resume(); // discard the rest of the body; the error answer follows
      reject(err);
    };
    const done = () => {
      if (!failed && finished && pending === 0) resolve({ fields, files });
    };

    bb.on('file', (name, stream, info) => {
      // A file stream errors when the body ends inside its part (no closing boundary); unhandled, that error
      // would be thrown out of the emitter and end the process. Handled first, before any early return.
      stream.on('error', (e) => {
        stream.resume();
        fail(
          new AppError('validation_failed', 'A file part ends without its closing boundary.', {
            param: FILE_FIELD,
            cause: e,
          }),
        );
      });
      // busboy reports a part without name= in its Content-Disposition with an undefined name
      if (typeof name !== 'string' || name === '') {
        stream.resume();
        fail(nameless());
        return;
      }
      if (name !== FILE_FIELD) {
        stream.resume();
        fail(
          new AppError('validation_failed', `File parts use the field name "${FILE_FIELD}".`, {
            param: name,
          }),
        );
        return;
      }
      pending++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => {
        total += c.length;
        if (total > UPLOAD_LIMITS.maxTotalBytes) {
          fail(uploadRefusal.totalTooLarge());
          stream.resume();
          return;
        }
        if (!failed) chunks.push(c);
      });
      stream.on('limit', () => fail(uploadRefusal.fileTooLarge()));
      stream.on('end', () => {
        pending--;
        if (!failed)
          files.push({
            filename: info.filename ?? '',
            contentType: (info.mimeType ?? '').toLowerCase(),
            bytes: Buffer.concat(chunks),
          });
        done();
      });
    });
    bb.on('field', (name, value, info) => {
      if (typeof name !== 'string' || name === '') {
        fail(nameless());
        return;
      }
      if (name === FILE_FIELD) {
        fail(
          new AppError('validation_failed', 'A file part needs a filename and a Content-Type.', {
            param: FILE_FIELD,
          }),
        );
        return;
      }
      if (!allowedFields.includes(name)) {
        fail(
          new AppError('validation_failed', `Unknown form field "${name}".`, { param: name.slice(0, 100) }),
        );
        return;
      }
      if (Object.hasOwn(fields, name)) {
        fail(new AppError('validation_failed', `The form field "${name}" is repeated.`, { param: name }));
        return;
      }
      if (info.valueTruncated) {
        fail(new AppError('validation_failed', `The form field "${name}" is too large.`, { param: name }));
        return;
      }
      fields[name] = value;
    });
    bb.on('filesLimit', () => fail(uploadRefusal.tooManyFiles()));
    bb.on('fieldsLimit', () => fail(new AppError('validation_failed', 'Too many form fields.')));
    bb.on('partsLimit', () => fail(new AppError('validation_failed', 'Too many form parts.')));
    bb.on('error', (e) =>
      fail(new AppError('validation_failed', 'The multipart body is malformed.', { cause: e })),
    );
    // The client going away mid-body: nothing will answer, but the promise must settle and free the request.
    req.on('error', (e) =>
      fail(new AppError('validation_failed', 'The request body was not received completely.', { cause: e })),
    );
    bb.on('close', () => {
      finished = true;
      done();
    });
    req.pipe(bb);
  });
}
