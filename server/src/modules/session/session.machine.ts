// The session state machine as data: (from, event) -> to. Pure; applied through the transition API
// (session.transition.ts) as guarded writes. Every other fact about statuses (which are terminal, which can be
// stopped, continued or expire) is derived from TRANSITIONS here, never restated (ADR 0057).

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

type Transition = { readonly from: readonly SessionStatus[]; readonly to: SessionStatus };

export const TRANSITIONS = {
  start: { from: ['created'], to: 'in_progress' },
  step_completed_more: { from: ['in_progress'], to: 'in_progress' },
  step_completed_gate: { from: ['in_progress'], to: 'awaiting_decision' },
  step_completed_last: { from: ['in_progress'], to: 'completed' },
  continue: { from: ['awaiting_decision'], to: 'in_progress' },
  continue_last: { from: ['awaiting_decision'], to: 'completed' },
  stop: { from: ['created', 'in_progress', 'awaiting_decision'], to: 'stopped' },
  fail: { from: ['in_progress'], to: 'failed' },
  expire: { from: ['created', 'in_progress'], to: 'expired' },
} as const satisfies Record<SessionEvent, Transition>;

/** The statuses some event leaves: every status but the terminal ones. */
type Movable = (typeof TRANSITIONS)[SessionEvent]['from'][number];
/** A status no event leaves (completed, stopped, failed, expired). */
export type TerminalStatus = Exclude<SessionStatus, Movable>;

const leaves = (s: SessionStatus): boolean =>
  Object.values(TRANSITIONS).some((t) => (t.from as readonly SessionStatus[]).includes(s));

/** The terminal statuses, in SESSION_STATUSES order: those no transition leaves. */
export const TERMINAL_STATUSES = SESSION_STATUSES.filter((s) => !leaves(s)) as TerminalStatus[];
export const TERMINAL: ReadonlySet<SessionStatus> = new Set(TERMINAL_STATUSES);
export const isTerminal = (s: SessionStatus): s is TerminalStatus => TERMINAL.has(s);

/** True when `event` may move a session in status `s` (the guard of continue, stop, expire…). */
export const allows = (event: SessionEvent, s: SessionStatus): boolean =>
  (TRANSITIONS[event].from as readonly SessionStatus[]).includes(s);

/** The statuses that can still expire: the `from` of `expire` (the sweeper's scan, isOverdue, deadlines). */
export const EXPIRING_STATUSES: readonly SessionStatus[] = TRANSITIONS.expire.from;
export const canExpire = (s: SessionStatus): boolean => allows('expire', s);

/** The target state of `event` from `from`, or null when the transition is not allowed. */
export function nextStatus(from: SessionStatus, event: SessionEvent): SessionStatus | null {
  return allows(event, from) ? TRANSITIONS[event].to : null;
}

/**
 * Failure policy: the session fails when this many wallet responses for the same step were refused by the
 * verifier (each refusal burns its single-use wallet request). The refusal that reaches it answers with its
 * own verification code, and the session is `failed` in the same transaction.
 */
export const MAX_REFUSED_RESPONSES_PER_STEP = 5;

/** Webhook event fired on entering a terminal state. */
export const terminalEvent = (s: SessionStatus): string | null => (isTerminal(s) ? `session.${s}` : null);
