// The common rig of the verification benches (SD-JWT VC and mdoc): a service on the embedded engine in a
// temporary data directory, listening on a free port for the status lists fetched over loopback, and the
// baseline both compare against: one raw ES256 (ECDSA P-256 / SHA-256) verify of a JWT-sized message.
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFrom } from '../../config/config';
import { createService } from '../../service';
import { freePort } from '../free-port';

type BenchService = Awaited<ReturnType<typeof createService>>;

/** A raw ES256 verify, the baseline of every verification row. */
export function rawEs256Verify(): () => boolean {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const msg = randomBytes(600);
  const sig = sign('sha256', msg, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return () => verify('sha256', msg, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig);
}

/** Runs `fn` against a listening service on a fresh data directory, and removes both afterwards. */
export async function withBenchService<T>(
  fn: (svc: BenchService, baseUrl: string) => Promise<T>,
): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const svc = await createService(
    configFrom({ PORT: String(port), DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'error' } as never),
    { workers: false },
  );
  await svc.listen();
  try {
    return await fn(svc, baseUrl);
  } finally {
    await svc.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
