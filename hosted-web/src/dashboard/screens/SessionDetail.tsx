// One session: its facts (status, environment, workflow revision, times), the gate decision (continue / stop
// an awaiting_decision session, stop asks first), the results of each completed step as the business
// receives them with the step's signed audit record, verified in this browser against the public key set
// (audit-verify.ts), and the timeline. Data is scoped by the server to the business and the selected
// environment; another environment's session is not_found (shown by the screen's error boundary).
import {
  createResource,
  createSignal,
  ErrorBoundary,
  For,
  type JSX,
  Match,
  Show,
  Suspense,
  Switch,
} from 'solid-js';
import { environment, user } from '../api';
import { type AuditVerdict, fetchAuditJwks, verifyAuditRecord } from '../audit-verify';
import { matchSummary } from '../components/StepConditions';
import { linkClick } from '../router';
import { ErrorNote, when } from '../Screen';
import {
  continueSession,
  getAuditRecord,
  getSessionDetail,
  listWorkflows,
  type StepResult,
  stopSession,
  type TimelineEntry,
} from '../sessions-api';

const PRIMITIVE: Record<string, string> = {
  identify: 'Identify',
  age_verify: 'Age check',
  sign: 'Sign documents',
  attestation: 'Attestation',
};

/** Who may continue or stop (ADR 0011 RULES.build): developers in sandbox, admins in production. */
const RANK = ['viewer', 'developer', 'admin', 'owner'];
const mayDecide = (role: string | undefined, env: string): boolean =>
  RANK.indexOf(role ?? '') >= RANK.indexOf(env === 'production' ? 'admin' : 'developer');

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

const bytes = (n: unknown): string =>
  typeof n !== 'number' ? '—' : n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} KiB (${n} bytes)`;

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
                  {x().status}
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
                    <dd>
                      <code>{f().code}</code>
                      {f().stage != null ? ` at step ${(f().stage as number) + 1}` : ''}
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
          <For each={results()}>{(r) => <ResultCard r={r} anchor={results()[0]} />}</For>
        </ol>
      </Show>

      <h2 id="timeline-h">Timeline</h2>
      <ol class="d-timeline" aria-labelledby="timeline-h" data-testid="timeline">
        <For each={data()?.sessionTimeline.entries}>{(e) => <TimelineItem e={e} />}</For>
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
      {props.e.stage != null ? <> (step {props.e.stage + 1})</> : null}
      {props.e.code ? (
        <>
          {' '}
          <code>{props.e.code}</code>
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

/** A completed step's result, as the business receives it in webhooks and GET /v1/sessions/{id}. */
function ResultCard(props: { r: StepResult; anchor?: StepResult }) {
  const r = () => props.r;
  const res = () => (r().result ?? {}) as Record<string, unknown>;
  const headingId = () => `step-h-${r().stage}`;
  return (
    <li class="d-card d-result" data-testid={`step-result-${r().stage}`}>
      <h3 id={headingId()}>
        Step {r().stage + 1}: {PRIMITIVE[r().primitive] ?? r().primitive}
      </h3>
      <dl class="d-facts">
        <dt>Completed</dt>
        <dd>{when(r().completedAt)}</dd>
        <Switch fallback={<OtherFields res={res()} />}>
          <Match when={r().primitive === 'identify'}>
            <For
              each={Object.entries((res().claims ?? {}) as Record<string, unknown>)}
              fallback={
                <>
                  <dt>Claims</dt>
                  <dd>None of the requested claims were shared.</dd>
                </>
              }
            >
              {([k, v]) => (
                <>
                  <dt>
                    <code>{k}</code>
                  </dt>
                  <dd>{text(v)}</dd>
                </>
              )}
            </For>
          </Match>
          <Match when={r().primitive === 'age_verify'}>
            <dt>Age at least {text(res().threshold)}</dt>
            <dd>
              <strong>{res().over === true ? 'Yes' : res().over === false ? 'No' : text(res().over)}</strong>
            </dd>
          </Match>
          <Match when={r().primitive === 'sign'}>
            <For each={(res().documents ?? []) as Record<string, unknown>[]}>
              {(d, i) => (
                <>
                  <dt>Document {i() + 1}</dt>
                  <dd>
                    {text(d.label)} ({bytes(d.size)}
                    {d.content_type ? `, ${text(d.content_type)}` : ''})
                    <br />
                    SHA-256 <code>{text(d.sha256)}</code>
                  </dd>
                </>
              )}
            </For>
            <HolderKey res={res()} />
          </Match>
          <Match when={r().primitive === 'attestation'}>
            <dt>Terms hash (SHA-256)</dt>
            <dd>
              <code>{text(res().terms_sha256)}</code>
            </dd>
            <HolderKey res={res()} />
          </Match>
        </Switch>
        <Presenter res={res()} anchor={(props.anchor?.result ?? {}) as Record<string, unknown>} />
        <dt>Audit id</dt>
        <dd>
          <code>{r().auditId}</code>
        </dd>
      </dl>
      <ErrorBoundary fallback={(e, reset) => <ErrorNote error={e} retry={reset} />}>
        <Suspense
          fallback={
            <p class="d-loading" role="status">
              Loading the audit record…
            </p>
          }
        >
          <AuditPanel auditId={r().auditId} stage={r().stage} />
        </Suspense>
      </ErrorBoundary>
    </li>
  );
}

interface HolderBinding {
  by?: string;
  bound_to_stage?: number | null;
  holder_key_thumbprint?: string;
}

/** Who presented the step (ADR 0026): how it is bound to step 1, its key, and step 1's key to compare. */
const PRESENTED_BY: Record<string, (stage: string) => string> = {
  first: () => 'The person this session is bound to (first step)',
  holder_key: (stage) => `Same person as step ${stage}: same holder key`,
  claims: (stage) => `Same person as step ${stage}: another key, same name and birth date`,
  opted_out: () => 'Anyone: this step is not bound to the first step’s person (workflow opt-out)',
};

function Presenter(props: { res: Record<string, unknown>; anchor: Record<string, unknown> }) {
  const b = () => props.res.holder_binding as HolderBinding | undefined;
  const anchorKey = () => (props.anchor.holder_binding as HolderBinding | undefined)?.holder_key_thumbprint;
  return (
    <Show when={b()}>
      {(x) => (
        <>
          <dt>Presented by</dt>
          <dd data-testid="presented-by" data-binding={x().by}>
            {(PRESENTED_BY[x().by ?? ''] ?? (() => text(x().by)))(String((x().bound_to_stage ?? 0) + 1))}
          </dd>
          <dt>Holder key</dt>
          <dd>
            <code>{text(x().holder_key_thumbprint)}</code>
          </dd>
          <Show when={x().by !== 'first' && anchorKey()}>
            <dt>Step 1 holder key</dt>
            <dd>
              <code>{text(anchorKey())}</code>
            </dd>
          </Show>
        </>
      )}
    </Show>
  );
}

function HolderKey(props: { res: Record<string, unknown> }) {
  const key = () => props.res.holder_key as { thumbprint?: unknown } | undefined;
  return (
    <Show when={key()?.thumbprint && !props.res.holder_binding}>
      <dt>Holder key</dt>
      <dd>
        <code>{text(key()?.thumbprint)}</code>
      </dd>
    </Show>
  );
}

function OtherFields(props: { res: Record<string, unknown> }) {
  return (
    <For each={Object.entries(props.res)}>
      {([k, v]) => (
        <>
          <dt>
            <code>{k}</code>
          </dt>
          <dd>
            <code>{text(v)}</code>
          </dd>
        </>
      )}
    </For>
  );
}

/** The step's signed audit record and the in-browser signature check. */
function AuditPanel(props: { auditId: string; stage: number }) {
  const [audit] = createResource(
    () => ({ id: props.auditId, env: environment() }),
    (a) => getAuditRecord(a.id),
  );
  const [verdict, setVerdict] = createSignal<AuditVerdict | { error: string } | null>(null);
  const [checking, setChecking] = createSignal(false);
  const record = () => audit()?.record as Record<string, unknown> | undefined;
  const verify = async () => {
    const a = audit();
    if (!a) return;
    setChecking(true);
    setVerdict(null);
    try {
      setVerdict(await verifyAuditRecord(a.record, await fetchAuditJwks(), a.digest));
    } catch (e) {
      setVerdict({ error: e instanceof Error ? e.message : String(e) });
    } finally {
      setChecking(false);
    }
  };
  const verdictText = (): JSX.Element => {
    const v = verdict();
    if (!v) return null;
    if ('error' in v) return `Could not check the signature: ${v.error}`;
    return v.ok
      ? `Signature valid: signed by the service key ${v.kid}; the record matches its digest.`
      : `Signature invalid: ${v.reason}.`;
  };
  return (
    <div class="d-audit" data-testid={`audit-${props.stage}`}>
      <h4>Audit record</h4>
      <Show when={audit()}>
        {(a) => (
          <>
            <dl class="d-facts">
              <dt>Signed at</dt>
              <dd>{when(record()?.signed_at as string)}</dd>
              <dt>Key id</dt>
              <dd>
                <code>{a().kid}</code>
              </dd>
              <dt>Digest</dt>
              <dd>
                <code>{a().digest}</code>
              </dd>
              <dt>Previous record</dt>
              <dd>
                <code>{text(record()?.previous_audit_hash ?? 'none (first step)')}</code>
              </dd>
              <dt>Result digest</dt>
              <dd>
                <code>{text(record()?.result_digest)}</code>
              </dd>
              <Show when={record()?.condition as Record<string, unknown> | undefined}>
                {(c) => (
                  <>
                    <dt>Workflow condition</dt>
                    <dd data-testid={`audit-condition-${props.stage}`}>{matchSummary(c())}</dd>
                  </>
                )}
              </Show>
            </dl>
            <details class="d-json">
              <summary>Signed record (JSON)</summary>
              <pre>{JSON.stringify(a().record, null, 2)}</pre>
            </details>
          </>
        )}
      </Show>
      <div class="d-actions">
        <div>
          <button
            type="button"
            data-testid={`verify-audit-${props.stage}`}
            disabled={checking() || !audit()}
            onClick={verify}
            aria-describedby={`audit-verdict-${props.stage}`}
          >
            {checking() ? 'Verifying…' : 'Verify signature'}
          </button>
        </div>
      </div>
      <p
        id={`audit-verdict-${props.stage}`}
        data-testid={`audit-verdict-${props.stage}`}
        role="status"
        class={(() => {
          const v = verdict();
          return !v ? 'd-verdict' : 'ok' in v && v.ok ? 'd-verdict d-ok' : 'd-verdict d-error';
        })()}
      >
        {verdictText()}
      </p>
    </div>
  );
}
