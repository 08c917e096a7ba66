// Owns the cleanup of transient uploads (spec §1, §3): documents of sign steps that never completed because
// the session ended first (expired, stopped, failed) are removed after the session ends, in bounded batches
// by a worker pass. Blobs are content-addressed and shared across sessions and businesses, so a blob is
// removed only when no document row references it any more: neither completed evidence (a document of a
// completed sign step) nor the upload of a live session. Documents of completed sign steps are never touched.
import type { DataSource } from 'typeorm';
import type { Logger } from '../../common/logger';
import { transactionWithRetry } from '../../db/data-source';
import type { BlobStore } from './blob-store';
import { DocumentEntity } from './document.entity';

const ENDED_WITHOUT_COMPLETION = ['stopped', 'failed', 'expired'];

export class TransientUploadCleanup {
  constructor(private readonly deps: { ds: DataSource; blobs: Pick<BlobStore, 'remove'>; logger: Logger }) {}

  /** One bounded pass: removes up to `limit` transient document rows, then their unreferenced blobs. */
  async pass(limit = 100): Promise<{ documents: number; blobs: number }> {
    const transient = await this.deps.ds
      .getRepository(DocumentEntity)
      .createQueryBuilder('d')
      .innerJoin('session', 's', 's.id = d.session_id')
      .where('s.status IN (:...ended)', { ended: ENDED_WITHOUT_COMPLETION })
      .andWhere(
        'NOT EXISTS (SELECT 1 FROM step_result r WHERE r.session_id = d.session_id AND r.stage = d.stage)',
      )
      .orderBy('d.created_at', 'ASC')
      .limit(limit)
      .getMany();
    if (transient.length === 0) return { documents: 0, blobs: 0 };
    const orphaned = await transactionWithRetry(this.deps.ds, async (m) => {
      const repo = m.getRepository(DocumentEntity);
      await repo.delete(transient.map((d) => d.id));
      const out: string[] = [];
      for (const sha256 of new Set(transient.map((d) => d.sha256))) {
        // any remaining row (completed evidence, a live session, another ended session not cleaned yet)
        // keeps the shared blob
        if ((await repo.countBy({ sha256 })) === 0) out.push(sha256);
      }
      return out;
    });
    // After commit: a crash here leaves an unreferenced blob (harmless, never a missing one). The reference
    // count is read again once the blob is out of its address, so an upload of the same bytes that committed
    // in between keeps it (BlobStore.remove).
    const documents = this.deps.ds.getRepository(DocumentEntity);
    for (const sha256 of orphaned)
      await this.deps.blobs.remove(sha256, async () => (await documents.countBy({ sha256 })) > 0);
    this.deps.logger.info('transient uploads removed', {
      documents: transient.length,
      blobs: orphaned.length,
    });
    return { documents: transient.length, blobs: orphaned.length };
  }
}
