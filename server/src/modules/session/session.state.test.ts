// Which step a failed session's workflow condition refused (issue 29): only a condition failure (no refusal
// count, no window) names one; refused answers, expiries and other states do not.
import { describe, expect, it } from 'vitest';
import { conditionFailedStage, failureReasonOf } from './session.state';

const reason = (r: object) => JSON.stringify(r);

describe('conditionFailedStage', () => {
  it('names the step a condition failed', () => {
    const s = {
      status: 'failed' as const,
      failureReason: reason({
        code: 'age_requirement_not_met',
        stage: 1,
        window: null,
        refused_responses: null,
      }),
    };
    expect(conditionFailedStage(s)).toBe(1);
  });
  it('is null for refused answers, an expiry, a running session and a missing or broken reason', () => {
    const refused = reason({ code: 'credential_revoked', stage: 0, window: null, refused_responses: 5 });
    const expired = reason({
      code: 'step_window_expired',
      stage: 0,
      window: 'step',
      refused_responses: null,
    });
    expect(conditionFailedStage({ status: 'failed', failureReason: refused })).toBeNull();
    expect(conditionFailedStage({ status: 'expired', failureReason: expired })).toBeNull();
    expect(conditionFailedStage({ status: 'in_progress', failureReason: null })).toBeNull();
    expect(conditionFailedStage({ status: 'failed', failureReason: '{' })).toBeNull();
    expect(failureReasonOf({ failureReason: '{' })).toBeNull();
  });
});
