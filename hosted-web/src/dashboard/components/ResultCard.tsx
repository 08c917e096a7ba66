// A completed step's result on the session detail (SessionDetail.tsx), as the business receives it in
// webhooks and GET /v1/sessions/{id}: the facts of each primitive, who presented it (ADR 0026), and the step's
// signed audit record checked in this browser against the public key set (audit-verify.ts).
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
import { environment } from '../api';
import { type AuditVerdict, fetchAuditJwks, verifyAuditRecord } from '../audit-verify';
import { ErrorNote, when } from '../Screen';
import { getAuditRecord, type SessionOriginal, type StepResult } from '../sessions-api';
import { matchSummary } from './StepConditions';

const PRIMITIVE: Record<string, string> = {
  identify: 'Identify',
  age_verify: 'Age check',
  sign: 'Sign documents',
  attestation: 'Attestation',
};

export const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

const bytes = (n: unknown): string =>
  typeof n !== 'number' ? '—' : n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} KiB (${n} bytes)`;

/**
 * A completed step's result, as the business receives it in webhooks and GET /v1/sessions/{id}. A sign step
 * links each document to the download of its signed original (`originals`: the exact bytes, any role).
 */
export function ResultCard(props: { r: StepResult; originals?: SessionOriginal[] }) {
  const r = () => props.r;
  const res = () => (r().result ?? {}) as Record<string, unknown>;
  const headingId = () => `step-h-${r().stage}`;
  /** The stored original of the step's i-th document (same stage, same hash). */
  const original = (d: Record<string, unknown>, i: number) =>
    props.originals?.filter((o) => o.stage === r().stage).find((o, j) => o.sha256 === d.sha256 && j === i) ??
    props.originals?.find((o) => o.stage === r().stage && o.sha256 === d.sha256);
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
                    <Show when={original(d, i())}>
                      {(o) => (
                        <>
                          <br />
                          <a
                            href={o().url}
                            download={o().name}
                            data-testid={`original-${o().position}`}
                            type={o().mediaType}
                          >
                            Download the signed original ({o().name})
                          </a>
                        </>
                      )}
                    </Show>
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
        <Presenter res={res()} />
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
}

/**
 * Who presented the step (ADR 0026): how it is bound to step 1, as a fact. No key is shown beside it (ADR 0046):
 * a holder key identifies the person across sessions; only a signature's own key is shown (HolderKey).
 */
const PRESENTED_BY: Record<string, (stage: string) => string> = {
  first: () => 'The person this session is bound to (first step)',
  holder_key: (stage) => `Same person as step ${stage}: same holder key`,
  claims: (stage) => `Same person as step ${stage}: another key, same name and birth date`,
  opted_out: () => 'Anyone: this step is not bound to the first step’s person (workflow opt-out)',
};

function Presenter(props: { res: Record<string, unknown> }) {
  const b = () => props.res.holder_binding as HolderBinding | undefined;
  return (
    <Show when={b()}>
      {(x) => (
        <>
          <dt>Presented by</dt>
          <dd data-testid="presented-by" data-binding={x().by}>
            {(PRESENTED_BY[x().by ?? ''] ?? (() => text(x().by)))(String((x().bound_to_stage ?? 0) + 1))}
          </dd>
        </>
      )}
    </Show>
  );
}

/** The key of a sign or attestation step's holder signature: what verifies the signature the result carries. */
function HolderKey(props: { res: Record<string, unknown> }) {
  const key = () => props.res.holder_key as { thumbprint?: unknown } | undefined;
  return (
    <Show when={key()?.thumbprint}>
      <dt>Signature key (thumbprint)</dt>
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
