import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFrom } from '../config/config';
import { MdocTrustStore } from '../modules/verification/mdoc/mdoc-trust';
import { MdocPresentationVerifier } from '../modules/verification/mdoc/mdoc-verifier';
import { requestForStep } from '../modules/verification/primitives';
import { createService } from '../service';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const baseUrl = `http://127.0.0.1:${port}`;
const svc = await createService(
  configFrom({ PORT: String(port), DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'error' } as never),
  { workers: false },
);
await svc.listen();
const trust = new MdocTrustStore(svc.ds);
const verifier = new MdocPresentationVerifier({ trust });
const step = { primitive: 'identify' as const, claims: ['given_name', 'family_name', 'birth_date'] as never };
const origin = new URL(baseUrl).origin;
const nonce = randomBytes(32).toString('base64url');
const { request } = requestForStep(step, nonce);
const oid4vp = await svc.wallet.respond({ persona: 'adult_mdoc', request, origin });
const time = async (label: string, n: number, fn: () => Promise<unknown>) => {
  for (let i = 0; i < 5; i++) await fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  console.log(label, ((performance.now() - t) / n).toFixed(2), 'ms');
};
await time('anchors', 50, () => trust.anchors('sandbox', 'eu.europa.ec.eudi.pid.1'));
await time('verify', 150, () =>
  verifier.verify({
    request,
    expectedNonce: nonce,
    origin,
    environment: 'sandbox',
    response: oid4vp,
    now: new Date(),
  }),
);
await svc.close();
fs.rmSync(dataDir, { recursive: true, force: true });
