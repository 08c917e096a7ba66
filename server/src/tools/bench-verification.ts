// Benchmark: SD-JWT VC presentation verifications per second, reported as a ratio against the raw ES256
// verify rate measured in the same run on the same machine, in alternating slices (never as an absolute target).
// Run: pnpm bench verification, or tsx src/tools/bench-verification.ts [--smoke] (embedded SQLite in a temp
// dir; status lists fetched over loopback HTTP like production). --smoke: 1 s per rate instead of 3.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { PresentationVerifier } from '../modules/verification/presentation-verifier';
import { cachingStatusListFetcher, httpStatusListFetcher } from '../modules/verification/status-list-fetch';
import { TrustStore } from '../modules/verification/trust';
import { requestForStep } from '../modules/workflow/primitives/for-step';
import { interleaved, type Measured } from './bench/interleaved';
import { type BenchOptions, type BenchRow, rateRow, runIfMain } from './bench/types';
import { rawEs256Verify, withBenchService } from './bench/verification-rig';
import { x509IssuerPresentation } from './bench/x509-issuer';

let SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (opts.smoke) SECONDS = 1;
  return withBenchService(async (svc, baseUrl) => {
    const raw = rawEs256Verify();

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
    const cachedFetch = cachingStatusListFetcher(httpStatusListFetcher(), svc.clock);
    const cached = new PresentationVerifier({ trust, fetchStatusList: cachedFetch });
    const cold = await interleaved(
      'presentation verify, status list fetched',
      SECONDS,
      () => uncached.verify({ ...input, now: new Date() }),
      raw,
    );
    const warm = await interleaved(
      'presentation verify, status list cached (ttl)',
      SECONDS,
      () => cached.verify({ ...input, now: new Date() }),
      raw,
    );
    // The verifier remembers holder keys (a session's steps and later sessions present the same credential);
    // this row imports the holder key on every verification, as for a credential it has never seen (the same
    // status-list cache as the row above).
    const coldHolder = new PresentationVerifier({
      trust,
      fetchStatusList: cachedFetch,
      holderKeyCacheSize: 0,
    });
    const newHolder = await interleaved(
      'presentation verify, cached, holder key new',
      SECONDS,
      () => coldHolder.verify({ ...input, now: new Date() }),
      raw,
    );
    // An issuer trusted through an X.509 anchor (x5c: signer + issuing CA, root stored as the route's anchor), as
    // real issuers are: with the trust store's certificate cache (the service's), and without it (every anchor
    // parsed from PEM and the whole chain built and checked on every call, as before ADR 0045).
    const x509 = await x509IssuerPresentation(svc.ds);
    const x509Fetch = cachingStatusListFetcher(x509.fetchStatusList, svc.clock);
    const x509Verifier = new PresentationVerifier({ trust, fetchStatusList: x509Fetch });
    const x509Uncached = new PresentationVerifier({
      trust: new TrustStore(svc.ds, { cacheSize: 0 }),
      fetchStatusList: x509Fetch,
    });
    const x509Input = () => ({ ...x509.input, now: new Date() });
    await x509Verifier.verify(x509Input()); // fails loudly if the rig is wrong
    const anchored = await interleaved(
      'presentation verify, X.509-anchored issuer, cached',
      SECONDS,
      () => x509Verifier.verify(x509Input()),
      raw,
    );
    const anchoredCold = await interleaved(
      'presentation verify, X.509-anchored issuer, no trust cache',
      SECONDS,
      () => x509Uncached.verify(x509Input()),
      raw,
    );
    // The floor is 1/2: issuer signature and KB-JWT (a status-list token already verified is remembered); the
    // rest is decoding, disclosure hashing, DCQL matching, a trust-store read and, uncached, a loopback HTTP
    // fetch (plus the status-list signature).
    // The CPU rows: the same ratio from CPU time per verification, which a machine shared with other work
    // disturbs far less than the wall-clock rates (the "fetched" row's CPU includes serving the status list,
    // which runs in this process too).
    const cpuRow = (name: string, r: { value: Measured; base: Measured }) => ({
      name,
      value: r.value.cpuUs,
      unit: 'µs',
      baseline: r.base.cpuUs,
      baselineName: 'raw ES256 verify CPU',
      ratio: r.base.cpuUs / r.value.cpuUs,
      goal: '>= 0.125 (1/8)',
    });
    return [
      rateRow(
        'verify, status list fetched',
        cold.value.perSec,
        'raw ES256 verify',
        cold.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'verify, status list cached',
        warm.value.perSec,
        'raw ES256 verify',
        warm.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'verify, cached, holder key new',
        newHolder.value.perSec,
        'raw ES256 verify',
        newHolder.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'verify, X.509-anchored issuer (x5c chain), cached',
        anchored.value.perSec,
        'raw ES256 verify',
        anchored.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'verify, X.509-anchored issuer, no trust cache',
        anchoredCold.value.perSec,
        'raw ES256 verify',
        anchoredCold.base.perSec,
        'verif/s',
      ),
      cpuRow('verify CPU, status list fetched', cold),
      cpuRow('verify CPU, status list cached', warm),
      cpuRow('verify CPU, cached, holder key new', newHolder),
      cpuRow('verify CPU, X.509-anchored issuer, cached', anchored),
      { ...cpuRow('verify CPU, X.509-anchored issuer, no trust cache', anchoredCold), goal: undefined },
    ];
  });
}

runIfMain(import.meta.url, bench);
