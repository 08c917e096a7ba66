// Owns the blob store: exact bytes addressed by their SHA-256, written once and never overwritten. The
// filesystem implementation keeps them under DATA_DIR/blobs/<aa>/<bb>/<sha256>; an S3 implementation (Object
// Lock) implements the same interface. A read re-hashes the bytes, so a changed file is never served.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface BlobStore {
  /** Stores `bytes` under their SHA-256 (hex) unless already present; never overwrites. */
  put(bytes: Uint8Array): Promise<{ sha256: string; size: number }>;
  /** The exact bytes of a blob; throws when absent or when the bytes no longer match their address. */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
  /**
   * Removes a blob. Only the transient-upload cleanup calls it, and only for a blob that no document row
   * references any more (modules/document/cleanup.ts); evidence blobs are never removed. The blob is first
   * moved out of its address, then `stillReferenced` is asked again (a fresh read): when a new upload of the
   * same bytes committed meanwhile, the blob is put back. Together with the create path re-putting its blobs
   * after commit (DocumentService.ensureStored), a blob a committed row references is never lost to the race.
   */
  remove(sha256: string, stillReferenced?: () => Promise<boolean>): Promise<void>;
}

export const sha256HexOf = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

const HEX64 = /^[0-9a-f]{64}$/;

export class FilesystemBlobStore implements BlobStore {
  constructor(readonly root: string) {}

  pathOf(sha256: string): string {
    if (!HEX64.test(sha256)) throw new Error('not a sha-256 address');
    return path.join(this.root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  }

  async put(bytes: Uint8Array): Promise<{ sha256: string; size: number }> {
    const sha256 = sha256HexOf(bytes);
    const file = this.pathOf(sha256);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Write to a private temporary name, then link: link() fails when the address exists, so a blob is
    // never overwritten and a reader never sees a half-written file.
    const tmp = `${file}.${randomBytes(8).toString('hex')}.tmp`;
    await fs.writeFile(tmp, bytes, { flag: 'wx', mode: 0o440 });
    try {
      await fs.link(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await fs.rm(tmp, { force: true });
    }
    return { sha256, size: bytes.byteLength };
  }

  async get(sha256: string): Promise<Buffer> {
    const bytes = await fs.readFile(this.pathOf(sha256));
    if (sha256HexOf(bytes) !== sha256) throw new Error('blob content does not match its address');
    return bytes;
  }

  async remove(sha256: string, stillReferenced?: () => Promise<boolean>): Promise<void> {
    const file = this.pathOf(sha256);
    const trash = `${file}.${randomBytes(8).toString('hex')}.removing`;
    try {
      await fs.rename(file, trash); // atomic: from here on a put() of the same bytes writes a fresh copy
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    try {
      if (stillReferenced && (await stillReferenced())) {
        try {
          await fs.link(trash, file);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e; // a put() already wrote it again
        }
      }
    } finally {
      await fs.rm(trash, { force: true });
    }
  }

  async has(sha256: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(sha256));
      return true;
    } catch {
      return false;
    }
  }
}
