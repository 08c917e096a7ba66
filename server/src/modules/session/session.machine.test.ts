// The transition table, exhaustively: every (status, event) pair has exactly the expected outcome, and the
// terminal states absorb every event.
import { describe, expect, it } from 'vitest';
import { TERMINAL_EVENTS } from '../webhook/webhook.outbox-rows';
import {
  allows,
  canExpire,
  EXPIRING_STATUSES,
  isTerminal,
  nextStatus,
  SESSION_STATUSES,
  type SessionEvent,
  type SessionStatus,
  TERMINAL,
  TERMINAL_STATUSES,
  TRANSITIONS,
  terminalEvent,
} from './session.machine';

const EVENTS = Object.keys(TRANSITIONS) as SessionEvent[];

// The specification's table (section 3) plus the documented decisions (stop from any non-terminal state,
// fail only while a step runs, a gate does not expire). Anything not listed is refused.
const EXPECTED: Partial<Record<SessionStatus, Partial<Record<SessionEvent, SessionStatus>>>> = {
  created: { start: 'in_progress', stop: 'stopped', expire: 'expired' },
  in_progress: {
    step_completed_more: 'in_progress',
    step_completed_gate: 'awaiting_decision',
    step_completed_last: 'completed',
    stop: 'stopped',
    fail: 'failed',
    expire: 'expired',
  },
  awaiting_decision: { continue: 'in_progress', continue_last: 'completed', stop: 'stopped' },
};

describe('session transition table', () => {
  const pairs = SESSION_STATUSES.flatMap((from) => EVENTS.map((event) => ({ from, event })));

  it('covers all seven states and nine events', () => {
    expect(SESSION_STATUSES).toHaveLength(7);
    expect(EVENTS.sort()).toEqual(
      [
        'start',
        'step_completed_more',
        'step_completed_gate',
        'step_completed_last',
        'continue',
        'continue_last',
        'stop',
        'fail',
        'expire',
      ].sort(),
    );
  });

  it.each(pairs)('$from + $event', ({ from, event }) => {
    expect(nextStatus(from, event)).toBe(EXPECTED[from]?.[event] ?? null);
  });

  it('derives the guards and lists from the table: terminal, stoppable, continuable, expiring', () => {
    expect(TERMINAL_STATUSES).toEqual(['completed', 'stopped', 'failed', 'expired']);
    expect(EXPIRING_STATUSES).toEqual(['created', 'in_progress']);
    for (const s of SESSION_STATUSES) {
      expect(allows('stop', s)).toBe(!isTerminal(s));
      expect(allows('continue', s)).toBe(s === 'awaiting_decision');
      expect(canExpire(s)).toBe(s === 'created' || s === 'in_progress');
    }
  });

  it('terminal states absorb every event', () => {
    for (const s of TERMINAL) for (const e of EVENTS) expect(nextStatus(s, e)).toBeNull();
    expect([...TERMINAL].sort()).toEqual(['completed', 'expired', 'failed', 'stopped']);
  });

  it('names the webhook event of each terminal state, and none for the others', () => {
    for (const s of SESSION_STATUSES) expect(terminalEvent(s)).toBe(isTerminal(s) ? `session.${s}` : null);
  });

  it('every target state is reachable from created', () => {
    const seen = new Set<SessionStatus>(['created']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const from of [...seen])
        for (const e of EVENTS) {
          const to = nextStatus(from, e);
          if (to && !seen.has(to)) {
            seen.add(to);
            grew = true;
          }
        }
    }
    expect([...seen].sort()).toEqual([...SESSION_STATUSES].sort());
  });
});

describe('the webhook relay’s terminal events', () => {
  it('are the events of exactly the terminal statuses (a delivered one wakes no successor)', () => {
    expect([...TERMINAL_EVENTS].sort()).toEqual(TERMINAL_STATUSES.map((s) => `session.${s}`).sort());
  });
});
