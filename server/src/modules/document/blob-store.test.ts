// The cleanup race on shared, content-addressed blobs: a blob the cleanup is removing while an upload of the
// same bytes commits must survive (BlobStore.remove re-asks, DocumentService.ensureStored re-puts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesystemBlobStore, sha256HexOf } from './blob-store';
import { DocumentService } from './document.service';

const bytes = Buffer.from('%PDF-1.7\nshared contract\n%%EOF\n');
const sha = sha256HexOf(bytes);

describe('FilesystemBlobStore.remove under a racing upload', () => {
  let dir: string;
  let blobs: FilesystemBlobStore;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'blobs-'));
    blobs = new FilesystemBlobStore(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('removes a blob nothing references any more, and leaves no trash behind', async () => {
    await blobs.put(bytes);
    await blobs.remove(sha, async () => false);
    expect(await blobs.has(sha)).toBe(false);
    expect(fs.readdirSync(path.dirname(blobs.pathOf(sha)))).toEqual([]);
  });

  it('keeps the blob when an upload of the same bytes committed while it was being removed', async () => {
    await blobs.put(bytes);
    // the upload's put() saw the blob present (a no-op); its row commits during the removal
    await blobs.remove(sha, async () => true);
    expect((await blobs.get(sha)).equals(bytes)).toBe(true);
    expect(fs.readdirSync(path.dirname(blobs.pathOf(sha)))).toEqual([sha]);
  });

  it('an upload that committed after the recount puts its bytes back (ensureStored after commit)', async () => {
    await blobs.put(bytes); // the upload's put inside its transaction: already present, nothing written
    await blobs.remove(sha, async () => false); // the cleanup counted no row: the upload had not committed
    expect(await blobs.has(sha)).toBe(false);
    await new DocumentService({ blobs }).ensureStored([
      { stage: 0, position: 0, label: 'contract.pdf', contentType: 'application/pdf', bytes },
    ]);
    expect((await blobs.get(sha)).equals(bytes)).toBe(true);
  });

  it('a put that lands while the blob is out of its address is kept', async () => {
    await blobs.put(bytes);
    await blobs.remove(sha, async () => {
      await blobs.put(bytes); // a new upload writes a fresh copy while the old one is being removed
      return true;
    });
    expect((await blobs.get(sha)).equals(bytes)).toBe(true);
  });
});
