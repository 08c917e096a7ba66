// The signer page's action lifecycle (SessionView): one action at a time (busy), the error it ended with and
// where it was pressed (ActionFeedback shows it there), the projection re-read after a failure, and the 3 s
// polling while the session is live. Reads can answer out of order; only the newest applies.
import { createEffect, createSignal, onCleanup } from 'solid-js';
import { getSession } from '../api';
import { toUserError, type UserError } from '../errors';
import type { ActionRunner, SignerSession } from '../types';

const POLL_MS = 3000;

export function createSessionRunner(opts: {
  sessionId: () => string;
  status: () => SignerSession['status'];
  onProjection: (next: SignerSession) => void;
}): ActionRunner {
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<UserError>();
  // where the last action was: its failure is shown there (ActionFeedback), else at the top of the panel
  const [place, setPlace] = createSignal<string>();

  // Responses can arrive out of order (a poll started before an action may answer after it): only a read that
  // started after the last applied one may replace the state.
  let started = 0;
  let applied = 0;
  const apply = (seq: number, next: SignerSession) => {
    if (seq < applied) return;
    applied = seq;
    opts.onProjection(next);
  };
  const tracked = async (read: () => Promise<SignerSession>) => {
    const seq = ++started;
    apply(seq, await read());
  };
  const refresh = () => tracked(() => getSession(opts.sessionId())).catch(() => undefined); // next poll or action retries

  const runner: ActionRunner = {
    busy,
    error,
    place,
    run: async (action, at) => {
      if (busy()) return;
      setBusy(true);
      setError(undefined);
      setPlace(at);
      const seq = ++started;
      try {
        const next = await action();
        if (next) apply(seq, next);
      } catch (err) {
        setError(toUserError(err));
        await refresh();
      } finally {
        setBusy(false);
      }
    },
  };

  createEffect(() => {
    const s = opts.status();
    if (s !== 'in_progress' && s !== 'awaiting_decision') return;
    const timer = setInterval(() => {
      if (!busy()) void refresh();
    }, POLL_MS);
    onCleanup(() => clearInterval(timer));
  });
  return runner;
}
