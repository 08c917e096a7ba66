// Verification outcomes for /metrics, counted around the verifier so the verifier itself stays unaware of metrics.
import { AppError } from '../common/errors';
import type { ServiceMetrics } from '../modules/ops/metrics';
import type { PresentationVerifier } from '../modules/verification/presentation-verifier';

/** Wraps `verifier.verify` in place: every outcome (verified, or the refusal's error code) is counted. */
export function countVerifications(verifier: PresentationVerifier, metrics: ServiceMetrics): void {
  const verify = verifier.verify.bind(verifier);
  verifier.verify = (input) =>
    verify(input).then(
      (r) => {
        metrics.verification('verified');
        return r;
      },
      (e: unknown) => {
        metrics.verification(e instanceof AppError ? e.code : 'internal_error');
        throw e;
      },
    );
}
