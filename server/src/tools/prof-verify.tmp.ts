import 'reflect-metadata';
import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { PresentationVerifier } from '../modules/verification/presentation-verifier';
import { requestForStep } from '../modules/verification/primitives';
import { cachingStatusListFetcher, httpStatusListFetcher } from '../modules/verification/status-list-fetch';
import { TrustStore } from '../modules/verification/trust';
import { withBenchService } from './bench/verification-rig';

const threads = () => {
  const out: Record<string, number> = {};
  for (const t of fs.readdirSync('/proc/self/task')) {
    try {
      const st = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      out[`${t} ${name}`] = (Number(f[11]) + Number(f[12])) * 10000; // µs at 100 Hz
    } catch {}
  }
  return out;
};
const N = Number(process.env.N ?? 3000);
await withBenchService(async (svc, baseUrl) => {
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
  const cached = new PresentationVerifier({
    trust,
    fetchStatusList: cachingStatusListFetcher(httpStatusListFetcher(), svc.clock),
  });
  for (let i = 0; i < 200; i++) await cached.verify({ ...input, now: new Date() });
  const ses = new Session();
  ses.connect();
  if (process.env.PROF) {
    await ses.post('Profiler.enable');
    await ses.post('Profiler.setSamplingInterval', { interval: 100 });
    await ses.post('Profiler.start');
  }
  const th0 = threads();
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await cached.verify({ ...input, now: new Date() });
  const ns = Number(process.hrtime.bigint() - t0);
  const c = process.cpuUsage(c0);
  if (process.env.PROF) {
    const { profile } = await ses.post('Profiler.stop');
    fs.writeFileSync(process.env.PROF, JSON.stringify(profile));
  }
  const th1 = threads();
  const agg: Record<string, number> = {};
  for (const [k, v] of Object.entries(th1)) {
    const n = k;
    agg[n] = (agg[n] ?? 0) + (v - (th0[k] ?? 0)) / N;
  }
  console.error(
    Object.entries(agg)
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k}: ${v.toFixed(0)}`)
      .join(', '),
  );
  console.error(
    `per verify wall ${(ns / N / 1000).toFixed(0)} µs, cpu ${((c.user + c.system) / N).toFixed(0)} µs`,
  );
});
process.exit(0);
