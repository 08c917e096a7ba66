// A completed step's result on the session detail (SessionDetail.tsx), as the business receives it in
// webhooks and GET /v1/sessions/{id}: the facts of each primitive, who presented it (ADR 0026), and the step's
// signed audit record checked in this browser against the public key set (audit-verify.ts). Its words are in
// the dashboard's language (messages/results.ts); claim names and codes stay as the API writes them.
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
import { type DashKey, dashLocale, dt } from '../i18n';
import { ErrorNote, when } from '../Screen';
import { getAuditRecord, type SessionOriginal, type StepResult } from '../sessions-api';
import { conditionWords } from './timeline-words';

const PRIMITIVES = ['identify', 'age_verify', 'sign', 'attestation'];
const primitiveWords = (p: string): string =>
  PRIMITIVES.includes(p) ? dt(`result.primitive.${p}` as DashKey) : p;

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

export const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** A file size, one way per language, as the signer page writes it (decimal units by Intl.NumberFormat). */
const bytes = (n: unknown): string => {
  if (typeof n !== 'number') return '—';
  const unit = n < 1000 ? 'byte' : n < 1_000_000 ? 'kilobyte' : 'megabyte';
  return new Intl.NumberFormat(dashLocale(), {
    style: 'unit',
    unit,
    unitDisplay: unit === 'byte' ? 'long' : 'short',
    maximumFractionDigits: 1,
  }).format(unit === 'byte' ? n : unit === 'kilobyte' ? n / 1000 : n / 1_000_000);
};

/**
 * A completed step's result, as the business receives it in webhooks and GET /v1/sessions/{id}. A sign step
 * links each document to the download of its signed original (`originals`: the exact bytes, any role).
 */
export function ResultCard(props: {
  r: StepResult;
  originals?: SessionOriginal[];
  /** The step's result exists, but a workflow condition on it failed the session: never shown as done. */
  notCompleted?: boolean;
}) {
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
        {dt('result.step', { n: String(r().stage + 1), primitive: primitiveWords(r().primitive) })}
      </h3>
      <dl class="d-facts">
        <Show
          when={props.notCompleted}
          fallback={
            <>
              <dt>{dt('result.completed')}</dt>
              <dd>{when(r().completedAt)}</dd>
            </>
          }
        >
          <dt>{dt('result.notCompleted')}</dt>
          <dd data-testid={`step-not-completed-${r().stage}`}>
            {dt('result.notCompletedText', { when: when(r().completedAt) })}
          </dd>
        </Show>
        <Switch fallback={<OtherFields res={res()} />}>
          <Match when={r().primitive === 'identify'}>
            <For
              each={Object.entries((res().claims ?? {}) as Record<string, unknown>)}
              fallback={
                <>
                  <dt>{dt('result.claims')}</dt>
                  <dd>{dt('result.noClaims')}</dd>
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
            <dt>{dt('result.ageAtLeast', { n: text(res().threshold) })}</dt>
            <dd>
              <strong>
                {res().over === true
                  ? dt('result.yes')
                  : res().over === false
                    ? dt('result.no')
                    : text(res().over)}
              </strong>
            </dd>
          </Match>
          <Match when={r().primitive === 'sign'}>
            <For each={(res().documents ?? []) as Record<string, unknown>[]}>
              {(d, i) => (
                <>
                  <dt>{dt('result.document', { n: String(i() + 1) })}</dt>
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
                            {dt('result.download', { name: o().name })}
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
            <dt>{dt('result.termsHash')}</dt>
            <dd>
              <code>{text(res().terms_sha256)}</code>
            </dd>
            <HolderKey res={res()} />
          </Match>
        </Switch>
        <Presenter res={res()} />
        <dt>{dt('result.auditId')}</dt>
        <dd>
          <code>{r().auditId}</code>
        </dd>
      </dl>
      <ErrorBoundary fallback={(e, reset) => <ErrorNote error={e} retry={reset} />}>
        <Suspense
          fallback={
            <p class="d-loading" role="status">
              {dt('audit.loading')}
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
const PRESENTED_BY: Record<string, DashKey> = {
  first: 'result.by.first',
  holder_key: 'result.by.holder_key',
  claims: 'result.by.claims',
  opted_out: 'result.by.opted_out',
};

function Presenter(props: { res: Record<string, unknown> }) {
  const b = () => props.res.holder_binding as HolderBinding | undefined;
  return (
    <Show when={b()}>
      {(x) => (
        <>
          <dt>{dt('result.presentedBy')}</dt>
          <dd data-testid="presented-by" data-binding={x().by}>
            {(() => {
              const key = PRESENTED_BY[x().by ?? ''];
              return key ? dt(key, { n: String((x().bound_to_stage ?? 0) + 1) }) : text(x().by);
            })()}
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
      <dt>{dt('result.signatureKey')}</dt>
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
    if ('error' in v) return dt('audit.cannotCheck', { error: v.error });
    return v.ok ? dt('audit.valid', { kid: v.kid }) : dt('audit.invalid', { reason: v.reason });
  };
  return (
    <div class="d-audit" data-testid={`audit-${props.stage}`}>
      <h4>{dt('audit.title')}</h4>
      <Show when={audit()}>
        {(a) => (
          <>
            <dl class="d-facts">
              <dt>{dt('audit.signedAt')}</dt>
              <dd>{when(record()?.signed_at as string)}</dd>
              <dt>{dt('audit.keyId')}</dt>
              <dd>
                <code>{a().kid}</code>
              </dd>
              <dt>{dt('audit.digest')}</dt>
              <dd>
                <code>{a().digest}</code>
              </dd>
              <dt>{dt('audit.previous')}</dt>
              <dd>
                <code>{text(record()?.previous_audit_hash ?? dt('audit.none'))}</code>
              </dd>
              <dt>{dt('audit.resultDigest')}</dt>
              <dd>
                <code>{text(record()?.result_digest)}</code>
              </dd>
              <Show when={record()?.condition as Record<string, unknown> | undefined}>
                {(c) => (
                  <>
                    <dt>{dt('audit.condition')}</dt>
                    <dd data-testid={`audit-condition-${props.stage}`}>
                      {capitalized(conditionWords(c(), props.stage))}
                    </dd>
                  </>
                )}
              </Show>
            </dl>
            <details class="d-json">
              <summary>{dt('audit.json')}</summary>
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
            {checking() ? dt('audit.verifying') : dt('audit.verify')}
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
