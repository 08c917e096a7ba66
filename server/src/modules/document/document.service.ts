// Owns the documents of sign steps: which uploads a workflow accepts (count per sign step, content types and
// whether the bytes look like what they claim), storing them content-addressed at session creation, and
// reading them back for the wallet request, the result and the bound signer's download.
import type { EntityManager } from 'typeorm';
import { AppError } from '../../common/errors';
import { newId } from '../../common/ids';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import type { WorkflowStep } from '../workflow/workflow.steps';
import type { BlobStore } from './blob-store';
import { DocumentEntity } from './document.entity';
import { FILE_FIELD, UPLOAD_LIMITS, type UploadedFile } from './multipart';

/** Content types a sign step accepts, with a check that the bytes are of that type. */
export const ALLOWED_CONTENT_TYPES: Record<string, (b: Buffer) => boolean> = {
  'application/pdf': (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
  'text/plain': (b) => !b.includes(0) && isUtf8(b),
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
};

function isUtf8(b: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** What the wallet request, the hosted page and the result show of a document. */
export interface DocumentView {
  position: number;
  label: string;
  sha256: string;
  size: number;
  content_type: string;
}

export const toDocumentView = (d: DocumentEntity): DocumentView => ({
  position: d.position,
  label: d.label,
  sha256: d.sha256,
  size: d.size,
  content_type: d.contentType,
});

/** An accepted upload, assigned to its sign step. */
export interface PlannedDocument {
  stage: number;
  position: number;
  label: string;
  contentType: string;
  bytes: Buffer;
}

/** A control character (C0 or DEL): not allowed in a label that is shown and sent as a file name. */
const hasControl = (s: string): boolean =>
  [...s].some((c) => (c.codePointAt(0) as number) < 0x20 || c === '\u007f');

export class DocumentService {
  constructor(private readonly deps: { blobs: BlobStore }) {}

  /**
   * Matches the uploads of a create request to the workflow's sign steps, in order (the first step's
   * `documents` files go to the first sign step, and so on). `uploads` is null for a JSON request. Throws the
   * refusal; stores nothing.
   */
  plan(steps: WorkflowStep[], uploads: UploadedFile[] | null): PlannedDocument[] {
    const signSteps = steps.flatMap((s, stage) =>
      PRIMITIVE_SPECS[s.primitive].needsDocuments ? [{ stage, n: s.documents ?? 1 }] : [],
    );
    const expected = signSteps.reduce((sum, s) => sum + s.n, 0);
    const files = uploads ?? [];
    if (expected > 0 && files.length === 0)
      throw new AppError(
        'documents_required',
        `This workflow has a sign step: send POST /v1/sessions as multipart/form-data with ${expected} "${FILE_FIELD}" part(s).`,
        { param: FILE_FIELD },
      );
    if (expected === 0 && files.length > 0)
      throw new AppError('validation_failed', 'This workflow has no sign step, so it takes no files.', {
        param: FILE_FIELD,
      });
    if (files.length !== expected)
      throw new AppError(
        'validation_failed',
        `This workflow expects exactly ${expected} document(s); ${files.length} were sent.`,
        { param: FILE_FIELD },
      );
    files.forEach((f, i) => {
      const check = ALLOWED_CONTENT_TYPES[f.contentType];
      if (!check)
        throw new AppError(
          'unsupported_media_type',
          `File ${i + 1}: ${f.contentType || 'no content type'} is not accepted; use one of ${Object.keys(ALLOWED_CONTENT_TYPES).join(', ')}.`,
          { param: FILE_FIELD },
        );
      if (f.bytes.length === 0)
        throw new AppError('validation_failed', `File ${i + 1} is empty.`, { param: FILE_FIELD });
      if (!check(f.bytes))
        throw new AppError('unsupported_media_type', `File ${i + 1}: the content is not ${f.contentType}.`, {
          param: FILE_FIELD,
        });
      const label = f.filename.normalize('NFC').trim();
      if (label === '' || label.length > UPLOAD_LIMITS.maxLabelLength || hasControl(label))
        throw new AppError(
          'validation_failed',
          `File ${i + 1} needs a file name of 1-${UPLOAD_LIMITS.maxLabelLength} printable characters.`,
          { param: FILE_FIELD },
        );
    });
    const planned: PlannedDocument[] = [];
    for (const { stage, n } of signSteps) {
      for (let k = 0; k < n; k++) {
        const position = planned.length;
        const f = files[position] as UploadedFile;
        const label = f.filename.normalize('NFC').trim();
        planned.push({ stage, position, label, contentType: f.contentType, bytes: f.bytes });
      }
    }
    return planned;
  }

  /** Writes the blobs (write-once) and the document rows, inside the create transaction. */
  async store(
    m: EntityManager,
    session: { id: string; businessId: string },
    planned: PlannedDocument[],
    now: Date,
  ): Promise<void> {
    for (const p of planned) {
      const { sha256, size } = await this.deps.blobs.put(p.bytes);
      await m.getRepository(DocumentEntity).insert({
        id: newId('doc'),
        sessionId: session.id,
        businessId: session.businessId,
        stage: p.stage,
        position: p.position,
        label: p.label,
        sha256,
        size,
        contentType: p.contentType,
        createdAt: now,
      });
    }
  }

  /**
   * After the create transaction committed: puts again any blob of `planned` that is missing. The cleanup may
   * have moved a shared blob out of its address between store()'s put and the commit (BlobStore.remove); this
   * writes it back from the request's bytes, so a committed document row never points at nothing.
   */
  async ensureStored(planned: PlannedDocument[]): Promise<void> {
    for (const p of planned) await this.deps.blobs.put(p.bytes); // put never overwrites; a no-op when present
  }

  async forSession(m: EntityManager, sessionId: string, stage?: number): Promise<DocumentEntity[]> {
    return m.getRepository(DocumentEntity).find({
      where: stage === undefined ? { sessionId } : { sessionId, stage },
      order: { position: 'ASC' },
    });
  }

  /** The exact original bytes (re-hashed on read). */
  async bytes(doc: DocumentEntity): Promise<Buffer> {
    return this.deps.blobs.get(doc.sha256);
  }
}
