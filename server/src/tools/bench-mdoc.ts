// Benchmark: ISO mdoc verifications per second, OpenID4VP (DC API handover) and ISO 18013-7 Annex C (HPKE open
// of the EncryptedResponse, then the same mdoc verification over the dcapi transcript), each as a ratio
// against raw ES256 verify measured in the same run, in alternating slices (bench-verification.ts does the
// same for SD-JWT VC). The sandbox documents name a Token Status List (CWT) entry, so the OpenID4VP rows come
// as a pair: the list cached for its ttl (the service's fetcher) and fetched over loopback HTTP on every call.
// Run: pnpm bench mdoc [--smoke] (embedded SQLite in a temp dir; --smoke: 1 s per rate instead of 3).
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { buildAnnexCRequest, openAnnexCResponse } from '../modules/verification/mdoc/annex-c';
import { MdocTrustStore } from '../modules/verification/mdoc/mdoc-trust';
import { MdocPresentationVerifier } from '../modules/verification/mdoc/mdoc-verifier';
import {
  cachingStatusListCwtFetcher,
  httpStatusListCwtFetcher,
} from '../modules/verification/status-list-fetch';
import type { RouteQuery } from '../modules/verification/trust-scope';
import { STAMP_FROM, trustStampOf } from '../modules/verification/trust-version';
import { requestForStep } from '../modules/workflow/primitives/for-step';
import { interleaved } from './bench/interleaved';
import { type BenchOptions, type BenchRow, rateRow, runIfMain } from './bench/types';
import { rawEs256Verify, withBenchService } from './bench/verification-rig';

let SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
// Each row's verification is called this many times before it is measured: an mdoc verification goes through
// enough code (CBOR, the library's structures, dcql, the status list) that V8 is still compiling it for the first
// few thousand calls, at two to three times the steady CPU per call (ADR 0059 amendment). The fetched row shares
// that code and is dominated by its HTTP fetch: a tenth as many. --smoke: a third. BENCH_WARMUP_CALLS=20: as
// before.
let WARMUP_CALLS = Number(process.env.BENCH_WARMUP_CALLS ?? 3000);

export async function bench(opts: BenchOptions): Promise<BenchRow[]> {
  if (opts.smoke) {
    SECONDS = 1;
    WARMUP_CALLS = Math.ceil(WARMUP_CALLS / 3);
  }
  return withBenchService(async (svc, baseUrl) => {
    const raw = rawEs256Verify();

    const trust = new MdocTrustStore(svc.ds);
    // As the service builds it: lists cached for their ttl. `fetched`: a GET of the list on every verification.
    const verifier = new MdocPresentationVerifier({
      trust,
      fetchStatusList: cachingStatusListCwtFetcher(httpStatusListCwtFetcher(), svc.clock),
    });
    const fetchedVerifier = new MdocPresentationVerifier({
      trust,
      fetchStatusList: httpStatusListCwtFetcher(),
    });
    // The warm rows: a caller holding the trust stamp read with its session (ADR 0063), as the service's routes
    // pass it; the route's IACAs then come from the trust store's cache while the stamp is unchanged. The scope
    // is every route, as a subquery (the rows without it read the IACAs of any route from the database).
    const [stampRow] = (await svc.ds.query(
      `SELECT cv.version AS trust_cv, tv.version AS trust_tv FROM ${STAMP_FROM}`,
    )) as { trust_cv: unknown; trust_tv: unknown }[];
    const stamp = trustStampOf(stampRow ?? {});
    if (stamp === undefined) throw new Error('the bench store should have a trust stamp');
    const routes: RouteQuery = {
      sql: 'SELECT id FROM credential_route',
      params: [],
      list: async () =>
        ((await svc.ds.query('SELECT id FROM credential_route')) as { id: string }[]).map((r) => r.id),
      stamp,
    };
    const step = {
      primitive: 'identify' as const,
      claims: ['given_name', 'family_name', 'birth_date'] as never,
    };
    const origin = new URL(baseUrl).origin;

    // OpenID4VP over the DC API (unsigned request, DC API handover).
    const nonce = randomBytes(32).toString('base64url');
    const { request } = requestForStep(step, nonce);
    const oid4vp = await svc.wallet.respond({ persona: 'adult_mdoc', request, origin });
    const openidInput = () => ({
      request,
      expectedNonce: nonce,
      origin,
      environment: 'sandbox' as const,
      response: oid4vp,
      now: new Date(),
    });
    const first = await verifier.verify(openidInput());
    if (first.statusChecked.status !== 'valid') throw new Error('the bench mdoc should name a status list');
    const openid = await interleaved(
      'mdoc verify, OpenID4VP, status list cached',
      SECONDS,
      () => verifier.verify(openidInput()),
      raw,
      { warmupCalls: WARMUP_CALLS },
    );
    const openidStamped = await interleaved(
      'mdoc verify, OpenID4VP, status list cached, trust at a stamp',
      SECONDS,
      () => verifier.verify({ ...openidInput(), routes }),
      raw,
      { warmupCalls: WARMUP_CALLS },
    );
    const fetched = await interleaved(
      'mdoc verify, OpenID4VP, status list fetched',
      SECONDS,
      () => fetchedVerifier.verify(openidInput()),
      raw,
      { warmupCalls: Math.ceil(WARMUP_CALLS / 10) },
    );

    // Annex C: the page's request with a one-time recipient key; HPKE open + the same verification.
    const nonceC = randomBytes(32).toString('base64url');
    const base = requestForStep(step, nonceC).request;
    const keys = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    const { kty, crv, x, y, d } = await exportJWK(keys.privateKey);
    const annexC = buildAnnexCRequest({
      dcqlQuery: base.dcql_query as never,
      nonce: nonceC,
      origin,
      recipientPublicJwk: { kty, crv, x, y },
    });
    const answer = await svc.wallet.respondAnnexC({
      persona: 'adult_mdoc',
      request: annexC.forPage.request as { deviceRequest: string; encryptionInfo: string },
      origin,
    });
    const stored = annexC.stored as unknown as Record<string, unknown>;
    const annexCCall = (withRoutes?: RouteQuery) => async () =>
      verifier.verifyAnnexC({
        request: stored,
        expectedNonce: nonceC,
        opened: await openAnnexCResponse({
          answer,
          recipientPrivateJwk: { kty, crv, x, y, d },
          stored: annexC.stored,
        }),
        environment: 'sandbox',
        now: new Date(),
        routes: withRoutes,
      });
    const iso = await interleaved(
      'mdoc verify, Annex C (HPKE open + verify, cached)',
      SECONDS,
      annexCCall(),
      raw,
      { warmupCalls: WARMUP_CALLS },
    );
    const isoStamped = await interleaved(
      'mdoc verify, Annex C (HPKE open + verify, cached), trust at a stamp',
      SECONDS,
      annexCCall(routes),
      raw,
      { warmupCalls: WARMUP_CALLS },
    );
    return [
      rateRow(
        'mdoc verify, OpenID4VP, status cached',
        openid.value.perSec,
        'raw ES256 verify',
        openid.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'mdoc verify, OpenID4VP, status fetched',
        fetched.value.perSec,
        'raw ES256 verify',
        fetched.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'mdoc verify, Annex C, status cached',
        iso.value.perSec,
        'raw ES256 verify',
        iso.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'mdoc verify, OpenID4VP, cached, trust stamp',
        openidStamped.value.perSec,
        'raw ES256 verify',
        openidStamped.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
      rateRow(
        'mdoc verify, Annex C, cached, trust stamp',
        isoStamped.value.perSec,
        'raw ES256 verify',
        isoStamped.base.perSec,
        'verif/s',
        '>= 0.125 (1/8)',
      ),
    ];
  });
}

runIfMain(import.meta.url, bench);
