// The session state machine as data: (from, event) -> to. Pure; applied by SessionService as guarded writes.

export const SESSION_STATUSES = [
  'created',
  'in_progress',
  'awaiting_decision',
  'completed',
  'stopped',
  'failed',
  'expired',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const TERMINAL: ReadonlySet<SessionStatus> = new Set(['completed', 'stopped', 'failed', 'expired']);
export const isTerminal = (s: SessionStatus): boolean => TERMINAL.has(s);

export type SessionEvent =
  | 'start' // the bound browser starts the session
  | 'step_completed_more' // a step completed and another step follows
  | 'step_completed_gate' // a step completed and the next step is an API-controlled gate
  | 'step_completed_last' // the last step completed
  | 'continue' // business continues past a gate
  | 'continue_last' // business continues past a gate that was the last step
  | 'stop' // business stops
  | 'fail' // unrecoverable verification failure policy
  | 'expire'; // overall or step window passed

type Transition = { from: readonly SessionStatus[]; to: SessionStatus };

export const TRANSITIONS: Record<SessionEvent, Transition> = {
  start: { from: ['created'], to: 'in_progress' },
  step_completed_more: { from: ['in_progress'], to: 'in_progress' },
  step_completed_gate: { from: ['in_progress'], to: 'awaiting_decision' },
  step_completed_last: { from: ['in_progress'], to: 'completed' },
  continue: { from: ['awaiting_decision'], to: 'in_progress' },
  continue_last: { from: ['awaiting_decision'], to: 'completed' },
  stop: { from: ['created', 'in_progress', 'awaiting_decision'], to: 'stopped' },
  fail: { from: ['in_progress'], to: 'failed' },
  expire: { from: ['created', 'in_progress'], to: 'expired' },
};

/** The target state of `event` from `from`, or null when the transition is not allowed. */
export function nextStatus(from: SessionStatus, event: SessionEvent): SessionStatus | null {
  const t = TRANSITIONS[event];
  return t.from.includes(from) ? t.to : null;
}

/**
 * Failure policy: the session fails when this many wallet responses for the same step were refused by the
 * verifier (each refusal burns its single-use wallet request). The refusal that reaches it answers with its
 * own verification code, and the session is `failed` in the same transaction.
 */
export const MAX_REFUSED_RESPONSES_PER_STEP = 5;

/** Webhook event fired on entering a terminal state. */
export const terminalEvent = (s: SessionStatus): string | null => (isTerminal(s) ? `session.${s}` : null);
