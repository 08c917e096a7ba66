// One session: its facts (status, environment, workflow revision, times), the gate decision (continue / stop
// an awaiting_decision session, stop asks first), the results of each completed step as the business
// receives them with the step's signed audit record, verified in this browser against the public key set
// (audit-verify.ts), and the timeline. Data is scoped by the server to the business and the selected
// environment; another environment's session is not_found (shown by the screen's error boundary).
import { createResource, createSignal, For, Show } from 'solid-js';
import { environment, user } from '../api';
import { ResultCard, text } from '../components/ResultCard';
import { collapseWalletRequests, entryWords, failureLine } from '../components/timeline-words';
import { linkClick } from '../router';
import { ErrorNote, when } from '../Screen';
import {
  continueSession,
  getSessionDetail,
  listWorkflows,
  statusWords,
  stopSession,
  type TimelineEntry,
} from '../sessions-api';

/** Who may continue or stop (ADR 0011 RULES.build): developers in sandbox, admins in production. */
const RANK = ['viewer', 'developer', 'admin', 'owner'];
const mayDecide = (role: string | undefined, env: string): boolean =>
  RANK.indexOf(role ?? '') >= RANK.indexOf(env === 'production' ? 'admin' : 'developer');

/**
 * Statuses with no expiry to show: ended ones show when they ended instead, and a session waiting at a gate
 * (awaiting_decision) does not expire (spec §3; its decision due time is shown).
 */
const NO_EXPIRY = new Set(['completed', 'stopped', 'failed', 'expired', 'awaiting_decision']);

/** A timeline time to the second (events of one step are often seconds apart). */
const whenExact = (iso: string): string =>
  `${new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })} UTC`;

/** The timeline's event kinds in words (the schema's SessionTimelineEntry.kind list). */
const EVENT: Record<string, string> = {
  created: 'Session created',
  opened: 'Hosted page opened',
  started: 'Signer started',
  wallet_request: 'Wallet asked',
  document_shown_to_end: 'Document shown to its end',
  wallet_response_refused: 'Wallet answer refused',
  wallet_response_accepted: 'Wallet answer accepted',
  step_completed: 'Step completed',
  condition_matched: 'Condition met',
  awaiting_decision: 'Waiting for your decision',
  continued: 'Continued',
  completed: 'Session completed',
  stopped: 'Session stopped',
  failed: 'Session failed',
  expired: 'Session expired',
  webhook_queued: 'Webhook queued',
  webhook_attempt: 'Webhook delivery attempt',
};

/** The business's own reference (metadata) as one line: `key: value` pairs, or the JSON for anything else. */
export const reference = (m: unknown): string | null => {
  if (m == null) return null;
  if (typeof m === 'object' && !Array.isArray(m))
    return Object.entries(m as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${text(v)}`)
      .join(', ');
  return text(m);
};

export function SessionDetail(props: { id: string }) {
  const [data, { refetch }] = createResource(
    () => ({ id: props.id, env: environment() }),
    (a) => getSessionDetail(a.id),
  );
  const s = () => data()?.session;
  const [workflows] = createResource(environment, () => listWorkflows());
  const workflowName = () => workflows()?.find((w) => w.id === s()?.workflowId)?.name;
  const summary = () => data()?.sessionTimeline.session;
  const results = () => [...(s()?.results ?? [])].sort((a, b) => a.stage - b.stage);
  return (
    <div data-testid="session-detail">
      <p>
        <a href="/dashboard/sessions" onClick={linkClick}>
          All sessions
        </a>
      </p>
      <Show when={s()}>
        {(x) => (
          <>
            <dl class="d-facts">
              <dt>Session</dt>
              <dd>
                <code>{x().id}</code>
              </dd>
              <dt>Status</dt>
              <dd>
                <span class={`d-status d-status-${x().status}`} data-testid="session-status">
                  {statusWords(x().status)}
                </span>
              </dd>
              <dt>Environment</dt>
              <dd>
                <EnvBadge env={summary()?.environment ?? environment()} />
              </dd>
              <Show when={reference(x().metadata)}>
                {(r) => (
                  <>
                    <dt>Your reference</dt>
                    <dd data-testid="session-reference">{r()}</dd>
                  </>
                )}
              </Show>
              <dt>Workflow</dt>
              <dd data-testid="session-workflow">
                <Show when={workflowName()}>{(n) => <>{n()}, </>}</Show>
                revision {x().workflowRevision} (<code>{x().workflowId}</code>)
              </dd>
              <dt>Created</dt>
              <dd>{when(x().created)}</dd>
              <Show when={!NO_EXPIRY.has(x().status)}>
                <dt>Expires</dt>
                <dd>{when(x().expires)}</dd>
              </Show>
              <dt>Decision due</dt>
              <dd>{x().decisionDue ? when(x().decisionDue) : 'No decision pending'}</dd>
              <Show when={summary()?.endedAt}>
                <dt>Ended</dt>
                <dd>{when(summary()?.endedAt)}</dd>
              </Show>
              <Show when={summary()?.failureReason}>
                {(f) => (
                  <>
                    <dt>Failure</dt>
                    <dd data-testid="session-failure">
                      {failureLine(f().code, f().stage)} <code class="d-code-small">{f().code}</code>
                    </dd>
                  </>
                )}
              </Show>
            </dl>
            <Show when={x().status === 'awaiting_decision'}>
              <Decision id={x().id} due={x().decisionDue} done={() => void refetch()} />
            </Show>
          </>
        )}
      </Show>

      <h2 id="results-h">Results</h2>
      <Show
        when={results().length}
        fallback={<p class="d-muted">No step has completed yet, so there are no results.</p>}
      >
        <ol class="d-results" aria-labelledby="results-h">
          <For each={results()}>
            {(r) => <ResultCard r={r} originals={data()?.sessionTimeline.originals} />}
          </For>
        </ol>
      </Show>

      <h2 id="timeline-h">Timeline</h2>
      <ol class="d-timeline" aria-labelledby="timeline-h" data-testid="timeline">
        <For each={collapseWalletRequests(data()?.sessionTimeline.entries ?? [])}>
          {(e) => <TimelineItem e={e} />}
        </For>
      </ol>
    </div>
  );
}

function EnvBadge(props: { env: string }) {
  return (
    <span class={`d-env-tag d-env-tag-${props.env}`}>
      {props.env === 'production' ? 'Production: live data' : 'Sandbox: test data'}
    </span>
  );
}

function TimelineItem(props: { e: TimelineEntry }) {
  return (
    <li>
      <span class="d-muted">{whenExact(props.e.at)}</span>{' '}
      <strong data-kind={props.e.kind}>{EVENT[props.e.kind] ?? props.e.kind}</strong>
      {props.e.stage != null && props.e.kind !== 'condition_matched' ? (
        <> (step {props.e.stage + 1})</>
      ) : null}
      {entryWords(props.e) ? <>: {entryWords(props.e)}</> : null}
      {props.e.code ? (
        <>
          {' '}
          <code class="d-code-small">{props.e.code}</code>
        </>
      ) : null}
    </li>
  );
}

/** Continue or stop a session waiting at a gate; stop asks for confirmation. The server decides who may. */
function Decision(props: { id: string; due: string | null; done: () => void }) {
  const [busy, setBusy] = createSignal(false);
  const [confirming, setConfirming] = createSignal(false);
  const [error, setError] = createSignal<unknown>(null);
  const allowed = () => mayDecide(user()?.role, environment());
  const act = async (call: (id: string) => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await call(props.id);
      setConfirming(false);
      props.done();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="d-card d-decision" aria-labelledby="decision-h">
      <h2 id="decision-h">Waiting for your decision</h2>
      <p>
        The signer finished a step with a gate after it. Continue to let them go on, or stop the session.
        {props.due
          ? ` Decision due ${when(props.due)}: then a session.decision_due webhook reminds you; the session keeps waiting.`
          : ''}
      </p>
      <Show when={error()}>
        <ErrorNote error={error()} />
      </Show>
      <Show
        when={allowed()}
        fallback={
          <p class="d-muted">
            Your role ({user()?.role}) cannot continue or stop sessions in {environment()}:{' '}
            {environment() === 'production' ? 'an admin or owner can.' : 'a developer, admin or owner can.'}
          </p>
        }
      >
        <Show
          when={confirming()}
          fallback={
            <div class="d-actions">
              <div>
                <button
                  type="button"
                  class="d-primary"
                  data-testid="continue-session"
                  disabled={busy()}
                  onClick={() => act(continueSession)}
                >
                  Continue session
                </button>
                <button
                  type="button"
                  class="d-danger"
                  data-testid="stop-session"
                  disabled={busy()}
                  onClick={() => setConfirming(true)}
                >
                  Stop session…
                </button>
              </div>
            </div>
          }
        >
          <div class="d-stop-confirm">
            <p id="confirm-stop-q">
              <strong>Stop this session?</strong> The signer cannot finish it and this cannot be undone.
              Results already completed are kept.
            </p>
            <div class="d-actions">
              <div>
                <button
                  type="button"
                  class="d-danger"
                  data-testid="confirm-stop"
                  ref={(el) => queueMicrotask(() => el.focus())}
                  aria-describedby="confirm-stop-q"
                  disabled={busy()}
                  onClick={() => act(stopSession)}
                >
                  Yes, stop the session
                </button>
                <button type="button" disabled={busy()} onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </div>
          </div>
        </Show>
      </Show>
    </section>
  );
}
