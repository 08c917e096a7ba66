// Owns getting a trust list's bytes: an http(s) URL through the same SSRF guard as webhooks (checked before,
// and pinned into the connection's DNS lookup), bounded in time and size; or a file an operator configured.
import fs from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { assertDeliverableUrl, guardedLookup } from '../../common/ssrf';
import type { Environment } from '../../config/config';
import { TrustListRefusal } from './etsi-xml';

const MAX_BYTES = 8_000_000;

export interface FetchOpts {
  environment: Environment;
  /** Sandbox lists only (development servers on localhost), like webhook targets. */
  allowPrivate: boolean;
  timeoutMs?: number;
}

export const isUrlSource = (source: string): boolean => /^https?:\/\//i.test(source);

export async function fetchListSource(source: string, opts: FetchOpts): Promise<string> {
  if (!isUrlSource(source)) {
    if (!path.isAbsolute(source)) throw new TrustListRefusal('A list file must be an absolute path.');
    try {
      const stat = await fs.stat(source);
      if (stat.size > MAX_BYTES) throw new TrustListRefusal('The list file is larger than 8 MB.');
      return await fs.readFile(source, 'utf8');
    } catch (e) {
      if (e instanceof TrustListRefusal) throw e;
      throw new TrustListRefusal(`The list file cannot be read: ${(e as Error).message}`);
    }
  }
  const guard = { environment: opts.environment, allowPrivate: opts.allowPrivate };
  try {
    await assertDeliverableUrl(source, guard);
  } catch (e) {
    throw new TrustListRefusal(`The list URL is refused: ${(e as Error).message}`);
  }
  const url = new URL(source);
  const get = url.protocol === 'https:' ? https.get : http.get;
  return new Promise<string>((resolve, reject) => {
    const req = get(
      url,
      {
        lookup: guardedLookup(guard),
        timeout: opts.timeoutMs ?? 10_000,
        headers: { accept: 'application/xml, text/xml;q=0.9' },
      },
      (res) => {
        if ((res.statusCode ?? 0) !== 200) {
          res.resume();
          reject(new TrustListRefusal(`The list URL answered HTTP ${res.statusCode}.`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BYTES) {
            req.destroy();
            reject(new TrustListRefusal('The list is larger than 8 MB.'));
          } else chunks.push(c);
        });
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.on('error', (e) => reject(new TrustListRefusal(`The list download failed: ${e.message}`)));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => reject(new TrustListRefusal(`The list URL is unreachable: ${e.message}`)));
  });
}
