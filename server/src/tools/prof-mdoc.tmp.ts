import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { MdocTrustStore } from '../modules/verification/mdoc/mdoc-trust';
import { MdocPresentationVerifier } from '../modules/verification/mdoc/mdoc-verifier';
import { requestForStep } from '../modules/verification/primitives';
import {
  cachingStatusListCwtFetcher,
  httpStatusListCwtFetcher,
} from '../modules/verification/status-list-fetch';
import { withBenchService } from './bench/verification-rig';
const N = Number(process.env.N ?? 500);
await withBenchService(async (svc, baseUrl) => {
  const trust = new MdocTrustStore(svc.ds);
  const verifier = new MdocPresentationVerifier({
    trust,
    fetchStatusList: cachingStatusListCwtFetcher(httpStatusListCwtFetcher(), svc.clock),
  });
  const step = {
    primitive: 'identify' as const,
    claims: ['given_name', 'family_name', 'birth_date'] as never,
  };
  const origin = new URL(baseUrl).origin;
  const nonce = randomBytes(32).toString('base64url');
  const { request } = requestForStep(step, nonce);
  const oid4vp = await svc.wallet.respond({ persona: 'adult_mdoc', request, origin });
  const inp = () => ({
    request,
    expectedNonce: nonce,
    origin,
    environment: 'sandbox' as const,
    response: oid4vp,
    now: new Date(),
  });
  for (let i = 0; i < 50; i++) await verifier.verify(inp());
  const ses = new Session();
  ses.connect();
  await ses.post('Profiler.enable');
  await ses.post('Profiler.setSamplingInterval', { interval: 200 });
  await ses.post('Profiler.start');
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await verifier.verify(inp());
  const c = process.cpuUsage(c0);
  const { profile } = await ses.post('Profiler.stop');
  fs.writeFileSync(process.env.PROF ?? '/tmp/prof-mdoc.json', JSON.stringify(profile));
  console.error(`cpu per verify ${((c.user + c.system) / N).toFixed(0)} µs`);
});
process.exit(0);
