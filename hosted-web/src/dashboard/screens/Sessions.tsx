// Sessions of the selected environment (the top bar's switch), newest first: filters (status, workflow, created
// range) and keyset pages; each row links to the session detail (SessionDetail.tsx). Lists carry no results
// and no personal data (support view, ADR 0013).
import { createEffect, createResource, createSignal, For, on, Show } from 'solid-js';
import type { SessionListFilter } from '../../graphql/generated';
import { environment } from '../api';
import { NewSession } from '../components/NewSession';
import { dt } from '../i18n';
import { linkClick } from '../router';
import { when } from '../Screen';
import {
  listSessions,
  listWorkflows,
  SESSION_STATUSES,
  type SessionSummary,
  statusWords,
} from '../sessions-api';
import { reference } from './SessionDetail';

export { SessionDetail } from './SessionDetail';

/** A yyyy-mm-dd date input as the start of that UTC day (plus `days`), ISO; null when empty or invalid. */
function utcDay(value: string, days = 0): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The filters kept in the address (?status=&workflow=&ref=&from=&to=), so a filtered list can be shared or reloaded. */
function filtersFromAddress() {
  const q = new URLSearchParams(location.search);
  const day = (v: string | null) => (v && utcDay(v) ? v : '');
  const status = q.get('status') ?? '';
  const workflow = q.get('workflow') ?? '';
  return {
    status: (SESSION_STATUSES as readonly string[]).includes(status) ? status : '',
    workflow: /^[\w-]{1,64}$/.test(workflow) ? workflow : '',
    ref: (q.get('ref') ?? '').slice(0, 200),
    from: day(q.get('from')),
    to: day(q.get('to')),
  };
}

export function Sessions() {
  const initial = filtersFromAddress();
  const [status, setStatus] = createSignal(initial.status);
  const [workflowId, setWorkflowId] = createSignal(initial.workflow);
  const [from, setFrom] = createSignal(initial.from);
  const [to, setTo] = createSignal(initial.to);
  const [ref, setRef] = createSignal(initial.ref);
  createEffect(
    on([status, workflowId, from, to, ref], ([s, w, f, t, r]) => {
      const q = new URLSearchParams();
      if (s) q.set('status', s);
      if (w) q.set('workflow', w);
      if (r) q.set('ref', r);
      if (f) q.set('from', f);
      if (t) q.set('to', t);
      const qs = q.toString();
      const search = qs ? `?${qs}` : '';
      if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}`);
    }),
  );
  const [pages, setPages] = createSignal<(string | null)[]>([null]);
  const filter = (): SessionListFilter => ({
    environment: environment(),
    status: (status() || null) as SessionListFilter['status'],
    workflowId: workflowId() || null,
    reference: ref().trim() || null,
    createdFrom: utcDay(from()),
    // "to" is inclusive on screen; the server's createdTo is "created before": the next UTC day
    createdTo: utcDay(to(), 1),
  });
  const rangeWrong = () => !!from() && !!to() && from() > to();
  const args = () => ({ filter: filter(), after: pages()[pages().length - 1] ?? null, bad: rangeWrong() });
  const [data] = createResource(args, (a) =>
    a.bad ? null : listSessions({ first: 20, after: a.after, filter: a.filter }),
  );
  const [workflows] = createResource(environment, () => listWorkflows());
  const workflowName = (id: string) => workflows()?.find((w) => w.id === id)?.name;
  /** Any filter change starts again from the newest page. */
  const set = (setter: (v: string) => void) => (e: Event) => {
    setter((e.currentTarget as HTMLInputElement | HTMLSelectElement).value);
    setPages([null]);
  };
  // the top bar's environment switch is the only one (issue 29): a switch starts the list again, and the
  // workflow filter is cleared, as workflows belong to one environment
  createEffect(
    on(
      environment,
      () => {
        setWorkflowId('');
        setPages([null]);
      },
      { defer: true },
    ),
  );
  return (
    <>
      <NewSession onCreated={() => setPages([null])} />
      <form class="d-filters" aria-label={dt('sessions.filters')} onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="status-filter">{dt('sessions.status')}</label>
          <select id="status-filter" value={status()} onChange={set(setStatus)}>
            <option value="">{dt('sessions.anyStatus')}</option>
            <For each={SESSION_STATUSES}>{(s) => <option value={s}>{statusWords(s)}</option>}</For>
          </select>
        </div>
        <div>
          <label for="workflow-filter">{dt('sessions.workflow')}</label>
          <select id="workflow-filter" value={workflowId()} onChange={set(setWorkflowId)}>
            <option value="">{dt('sessions.anyWorkflow')}</option>
            <For each={workflows()}>{(w) => <option value={w.id}>{w.name}</option>}</For>
          </select>
        </div>
        <div>
          {/* text in the metadata the session was created with (any key or value) */}
          <label for="ref-filter">{dt('sessions.reference')}</label>
          <input id="ref-filter" type="search" maxlength="200" value={ref()} onChange={set(setRef)} />
        </div>
        <div>
          <label for="from-filter">{dt('sessions.from')}</label>
          <input id="from-filter" type="date" value={from()} onChange={set(setFrom)} />
        </div>
        <div>
          <label for="to-filter">{dt('sessions.to')}</label>
          <input id="to-filter" type="date" value={to()} onChange={set(setTo)} />
        </div>
      </form>
      <Show when={rangeWrong()}>
        <p class="d-error" role="alert">
          {dt('sessions.rangeWrong')}
        </p>
      </Show>
      <Show when={data()?.sessions.nodes.length} fallback={<p class="d-muted">{dt('sessions.none')}</p>}>
        <ul class="d-rows" aria-label={dt(`sessions.listIn.${environment()}`)}>
          <For each={data()?.sessions.nodes}>
            {(s: SessionSummary) => (
              <li>
                <a href={`/dashboard/sessions/${s.id}`} onClick={linkClick} data-testid="session-row">
                  <code class="d-row-id">{s.id}</code>
                  <span class={`d-status d-status-${s.status}`}>{statusWords(s.status)}</span>
                  <span class="d-row-wf">
                    {workflowName(s.workflowId) ?? <code>{s.workflowId}</code>}
                    {dt('sessions.revision')}
                    {s.workflowRevision}
                  </span>
                  <span class="d-row-time">
                    {dt('sessions.created', { when: when(s.createdAt) })}
                    {s.endedAt ? dt('sessions.ended', { when: when(s.endedAt) }) : ''}
                  </span>
                  <Show when={reference(s.metadata)}>
                    {(r) => (
                      <span class="d-row-ref" data-testid="session-row-reference">
                        {dt('sessions.yourReference', { ref: r() })}
                      </span>
                    )}
                  </Show>
                </a>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <div class="d-actions">
        <div>
          <Show when={pages().length > 1}>
            <button type="button" onClick={() => setPages(pages().slice(0, -1))}>
              {dt('sessions.newer')}
            </button>
          </Show>
          <Show when={data()?.sessions.pageInfo.hasNextPage}>
            <button
              type="button"
              onClick={() => setPages([...pages(), data()?.sessions.pageInfo.endCursor ?? null])}
            >
              {dt('sessions.older')}
            </button>
          </Show>
        </div>
      </div>
    </>
  );
}
