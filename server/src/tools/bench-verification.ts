// Benchmark: SD-JWT VC presentation verifications per second, reported as a ratio against the raw ES256
// verify rate measured in the same run on the same machine (never as an absolute target).
// Run: pnpm bench verification, or tsx src/tools/bench-verification.ts [--smoke] (embedded SQLite in a temp
// dir; status lists fetched over loopback HTTP like production). --smoke: 1 s per rate instead of 3.
import 'reflect-metadata';
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFrom } from '../config/config';
import { PresentationVerifier } from '../modules/verification/presentation-verifier';
import { requestForStep } from '../modules/verification/primitives';
import { cachingStatusListFetcher, httpStatusListFetcher } from '../modules/verification/status-list-fetch';
import { TrustStore } from '../modules/verification/trust';
import { createService } from '../service';
import { type BenchOptions, type BenchRow, rateRow, runIfMain } from './bench/types';

let SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

/** Rate (per wall-clock second) and CPU per call of this process, in microseconds. */
async function rate(
  label: string,
  fn: () => unknown | Promise<unknown>,
): Promise<{ perSec: number; cpuUs: number }> {
  for (let i = 0; i < 20; i++) await fn(); // warm-up
  let n = 0;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(SECONDS * 1e9);
  while (process.hrtime.bigint() < deadline) {
    await fn();
    n++;
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const perSec = n / secs;
  const cpuUs = (cpu.user + cpu.system) / n;
  console.error(
    `  ${label.padEnd(44)} ${perSec.toFixed(0).padStart(8)} /s  (${n} in ${secs.toFixed(2)} s, ${cpuUs.toFixed(0)} µs CPU each)`,
  );
  return { perSec, cpuUs };
}

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (opts.smoke) SECONDS = 1;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const baseUrl = `http://127.0.0.1:${port}`;
  const svc = await createService(
    configFrom({ PORT: String(port), DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'error' } as never),
    { workers: false },
  );
  await svc.listen();
  try {
    // Baseline: one raw ES256 (ECDSA P-256 / SHA-256) verification of a JWT-sized message.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const msg = randomBytes(600);
    const sig = sign('sha256', msg, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const raw = await rate('raw ES256 verify (node:crypto)', () =>
      verify('sha256', msg, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig),
    );

    const step = {
      primitive: 'identify' as const,
      claims: ['given_name', 'family_name', 'birth_date'] as never,
    };
    const nonce = randomBytes(32).toString('base64url');
    const { request } = requestForStep(step, nonce);
    const response = await svc.wallet.respond({ persona: 'adult', request, origin: baseUrl });
    const input = {
      request,
      expectedNonce: nonce,
      expectedAudience: `origin:${baseUrl}`,
      environment: 'sandbox' as const,
      response,
    };
    const trust = new TrustStore(svc.ds);
    const uncached = new PresentationVerifier({ trust, fetchStatusList: httpStatusListFetcher() });
    const cached = new PresentationVerifier({
      trust,
      fetchStatusList: cachingStatusListFetcher(httpStatusListFetcher(), svc.clock),
    });
    const cold = await rate('presentation verify, status list fetched', () =>
      uncached.verify({ ...input, now: new Date() }),
    );
    const warm = await rate('presentation verify, status list cached (ttl)', () =>
      cached.verify({ ...input, now: new Date() }),
    );
    // The floor is 1/3: issuer signature, KB-JWT and status-list JWT; the rest is disclosure hashing, DCQL
    // matching, a trust-store read and, uncached, a loopback HTTP fetch.
    // The CPU rows: the same ratio from CPU time per verification, which a machine shared with other work
    // disturbs far less than the wall-clock rates (the "fetched" row's CPU includes serving the status list,
    // which runs in this process too).
    const cpuRow = (name: string, r: { cpuUs: number }) => ({
      name,
      value: r.cpuUs,
      unit: 'µs',
      baseline: raw.cpuUs,
      baselineName: 'raw ES256 verify CPU',
      ratio: raw.cpuUs / r.cpuUs,
      goal: '>= 0.125 (1/8)',
    });
    return [
      rateRow(
        'verify, status list fetched',
        cold.perSec,
        'raw ES256 verify',
        raw.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'verify, status list cached',
        warm.perSec,
        'raw ES256 verify',
        raw.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      cpuRow('verify CPU, status list fetched', cold),
      cpuRow('verify CPU, status list cached', warm),
    ];
  } finally {
    await svc.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, bench);
