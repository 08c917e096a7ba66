// Owns turning the files of a GraphQL multipart request (graphql-upload-ts `Upload` values) into the same
// UploadedFile list the REST multipart reader produces, with the same limits and refusals. What a workflow
// accepts (count, types, sniffed content, labels) is decided afterwards by DocumentService.plan, for both
// transports alike; nothing is stored here.
import type { FileUpload } from 'graphql-upload-ts';
import { AppError, isAppError } from '../../common/errors';
import { FILE_FIELD, UPLOAD_LIMITS, type UploadedFile, uploadRefusal } from './multipart';

/** An `Upload` argument value: the promise graphql-upload-ts resolves when the file part starts. */
export type UploadValue = Promise<Pick<FileUpload, 'filename' | 'mimetype' | 'createReadStream'>>;

/** An http-errors error of graphql-upload-ts (status + exposable message). */
const httpStatusOf = (e: unknown): number | undefined => {
  const s = (e as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
};

/** graphql-upload-ts rejections and stream errors as the REST refusals (unknown errors stay internal). */
function refusalOf(e: unknown): unknown {
  if (isAppError(e)) return e;
  const status = httpStatusOf(e);
  // 413 on a file: truncated at maxFileSize (the only per-file limit the middleware enforces)
  if (status === 413) return uploadRefusal.fileTooLarge();
  // 400 "File missing in the request." (a map entry without its file part), 499 client went away
  if (status !== undefined && status >= 400 && status < 500)
    return new AppError('validation_failed', (e as Error).message, { param: FILE_FIELD, cause: e });
  // busboy fails a file stream with a plain Error when the body ends inside the part (no closing boundary)
  // or is garbled: the client's doing. A failure of the temporary file behind the upload is a system error
  // (with `syscall`) and stays internal.
  if (e instanceof Error && (e as { syscall?: unknown }).syscall === undefined)
    return new AppError('validation_failed', 'A file part is cut off or malformed.', {
      param: FILE_FIELD,
      cause: e,
    });
  return e;
}

/**
 * Reads every upload completely, in argument order, enforcing the per-file and total byte limits while
 * streaming. `null`/absent stands for "no files part of the request" (documents_required for a sign
 * workflow, exactly as a JSON create over REST).
 */
export async function documentsFromUploads(
  uploads: readonly UploadValue[] | null | undefined,
): Promise<UploadedFile[] | null> {
  if (uploads === null || uploads === undefined) return null;
  if (uploads.length > UPLOAD_LIMITS.maxFiles) throw uploadRefusal.tooManyFiles();
  const files: UploadedFile[] = [];
  let total = 0;
  for (const pending of uploads) {
    try {
      const file = await pending;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of file.createReadStream()) {
        const c = chunk as Buffer;
        size += c.length;
        total += c.length;
        if (size > UPLOAD_LIMITS.maxFileBytes) throw uploadRefusal.fileTooLarge();
        if (total > UPLOAD_LIMITS.maxTotalBytes) throw uploadRefusal.totalTooLarge();
        chunks.push(c);
      }
      files.push({
        filename: file.filename ?? '',
        contentType: (file.mimetype ?? '').toLowerCase(),
        bytes: Buffer.concat(chunks),
      });
    } catch (e) {
      throw refusalOf(e);
    }
  }
  return files;
}
