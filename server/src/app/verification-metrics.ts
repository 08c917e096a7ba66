// Verification outcomes for /metrics: a decorator around the verifier, so the verifier itself stays unaware of
// metrics and is never patched in place (ADR 0057).
import { AppError } from '../common/errors';
import type { ServiceMetrics } from '../modules/ops/metrics';
import type { PresentationVerifier } from '../modules/verification/presentation-verifier';

/** What the signer's side needs of a verifier: one call. */
export type Verifies = Pick<PresentationVerifier, 'verify'>;

/** `inner`, with every outcome counted (verified, or the refusal's error code). */
export function countingVerifier(inner: Verifies, metrics: ServiceMetrics): Verifies {
  return {
    verify: (input) =>
      inner.verify(input).then(
        (r) => {
          metrics.verification('verified');
          return r;
        },
        (e: unknown) => {
          metrics.verification(e instanceof AppError ? e.code : 'internal_error');
          throw e;
        },
      ),
  };
}
