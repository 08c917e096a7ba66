// One session: its facts (status, environment, workflow revision, times), the gate decision (continue / stop
// an awaiting_decision session, stop asks first), the results of each completed step as the business
// receives them with the step's signed audit record, verified in this browser against the public key set
// (audit-verify.ts), and the timeline. Data is scoped by the server to the business and the selected
// environment; another environment's session is not_found (shown by the screen's error boundary).
import { createResource, createSignal, For, Show } from 'solid-js';
import { environment, user } from '../api';
import { ResultCard, text } from '../components/ResultCard';
import {
  collapseWalletRequests,
  conditionFailedAt,
  entryWords,
  failureLine,
} from '../components/timeline-words';
import { type DashKey, dashLocale, dt } from '../i18n';
import { en as EVENT_KEYS } from '../messages/session-detail';
import { linkClick } from '../router';
import { DATE_LOCALE, ErrorNote, when } from '../Screen';
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

/** A timeline time to the second (events of one step are often seconds apart). */
const whenExact = (iso: string): string =>
  `${new Date(iso).toLocaleString(DATE_LOCALE[dashLocale()], { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })} UTC`;

/** The timeline's event kinds in words (the schema's SessionTimelineEntry.kind list; messages/session-detail.ts). */
const eventWords = (kind: string): string => {
  const key = `event.${kind}` as DashKey;
  return key in EVENT_KEYS ? dt(key) : kind;
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
          {dt('detail.all')}
        </a>
      </p>
      <Show when={s()}>
        {(x) => (
          <>
            <dl class="d-facts">
              <dt>{dt('detail.session')}</dt>
              <dd>
                <code>{x().id}</code>
              </dd>
              <dt>{dt('detail.status')}</dt>
              <dd>
                <span class={`d-status d-status-${x().status}`} data-testid="session-status">
                  {statusWords(x().status)}
                </span>
              </dd>
              <dt>{dt('detail.environment')}</dt>
              <dd>
                <EnvBadge env={summary()?.environment ?? environment()} />
              </dd>
              <Show when={reference(x().metadata)}>
                {(r) => (
                  <>
                    <dt>{dt('detail.reference')}</dt>
                    <dd data-testid="session-reference">{r()}</dd>
                  </>
                )}
              </Show>
              <dt>{dt('detail.workflow')}</dt>
              <dd data-testid="session-workflow">
                <Show when={workflowName()}>{(n) => <>{n()}, </>}</Show>
                {dt('detail.revision')}
                {x().workflowRevision} (<code>{x().workflowId}</code>)
              </dd>
              <dt>{dt('detail.created')}</dt>
              <dd>{when(x().created)}</dd>
              <Show when={x().expiring}>
                <dt>{dt('detail.expires')}</dt>
                <dd>{when(x().expires)}</dd>
              </Show>
              <dt>{dt('detail.decisionDue')}</dt>
              <dd>{x().decisionDue ? when(x().decisionDue) : dt('detail.noDecision')}</dd>
              <Show when={summary()?.endedAt}>
                <dt>{dt('detail.ended')}</dt>
                <dd>{when(summary()?.endedAt)}</dd>
              </Show>
              <Show when={summary()?.failureReason}>
                {(f) => (
                  <>
                    <dt>{dt('detail.failure')}</dt>
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

      <h2 id="results-h">{dt('detail.results')}</h2>
      <Show when={results().length} fallback={<p class="d-muted">{dt('detail.noResults')}</p>}>
        <ol class="d-results" aria-labelledby="results-h">
          <For each={results()}>
            {(r) => (
              <ResultCard
                r={r}
                originals={data()?.sessionTimeline.originals}
                notCompleted={conditionFailedAt(summary()?.failureReason, r.stage)}
              />
            )}
          </For>
        </ol>
      </Show>

      <h2 id="timeline-h">{dt('detail.timeline')}</h2>
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
      {dt(props.env === 'production' ? 'detail.env.production' : 'detail.env.sandbox')}
    </span>
  );
}

function TimelineItem(props: { e: TimelineEntry }) {
  return (
    <li>
      <span class="d-muted">{whenExact(props.e.at)}</span>{' '}
      <strong data-kind={props.e.kind}>{eventWords(props.e.kind)}</strong>
      {props.e.stage != null && props.e.kind !== 'condition_matched'
        ? dt('detail.step', { n: String(props.e.stage + 1) })
        : null}
      {entryWords(props.e) ? (
        <>
          {dt('detail.colon')}
          {entryWords(props.e)}
        </>
      ) : null}
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
      <h2 id="decision-h">{dt('detail.waiting')}</h2>
      <p>
        {dt('detail.gate')}
        {props.due ? dt('detail.due', { when: when(props.due) }) : ''}
      </p>
      <Show when={error()}>
        <ErrorNote error={error()} />
      </Show>
      <Show
        when={allowed()}
        fallback={
          <p class="d-muted">{dt(`detail.notAllowed.${environment()}`, { role: user()?.role ?? '' })}</p>
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
                  {dt('detail.continue')}
                </button>
                <button
                  type="button"
                  class="d-danger"
                  data-testid="stop-session"
                  disabled={busy()}
                  onClick={() => setConfirming(true)}
                >
                  {dt('detail.stop')}
                </button>
              </div>
            </div>
          }
        >
          <div class="d-stop-confirm">
            <p id="confirm-stop-q">
              <strong>{dt('detail.stopQ')}</strong>
              {dt('detail.stopText')}
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
                  {dt('detail.stopYes')}
                </button>
                <button type="button" disabled={busy()} onClick={() => setConfirming(false)}>
                  {dt('detail.cancel')}
                </button>
              </div>
            </div>
          </div>
        </Show>
      </Show>
    </section>
  );
}
