// Sessions of the current environment, newest first, filtered by status (keyset pages), and one session's
// timeline. Lists carry no results and no personal data (support view, ADR 0013).
import { createResource, createSignal, For, Show } from 'solid-js';
import { environment, gql } from '../api';
import {
  SESSION_STATUSES,
  SESSION_TIMELINE,
  SESSIONS,
  type SessionSummary,
  type SessionsData,
  type SessionTimelineData,
} from '../queries';
import { linkClick } from '../router';
import { when } from '../Screen';

export function Sessions() {
  const [status, setStatus] = createSignal('');
  const [pages, setPages] = createSignal<(string | null)[]>([null]);
  const args = () => ({ env: environment(), status: status(), after: pages()[pages().length - 1] ?? null });
  const [data] = createResource(args, (a) =>
    gql<SessionsData>(SESSIONS, {
      first: 20,
      after: a.after,
      filter: { environment: a.env, ...(a.status ? { status: a.status } : {}) },
    }),
  );
  const onStatus = (e: Event) => {
    setStatus((e.currentTarget as HTMLSelectElement).value);
    setPages([null]);
  };
  return (
    <>
      <div class="d-form">
        <label for="status-filter">Status</label>
        <select id="status-filter" value={status()} onChange={onStatus}>
          <option value="">Any status</option>
          <For each={SESSION_STATUSES}>{(s) => <option value={s}>{s}</option>}</For>
        </select>
      </div>
      <Show when={data()?.sessions.nodes.length} fallback={<p class="d-muted">No sessions match.</p>}>
        <div class="d-table-wrap">
          <table aria-label={`Sessions in ${environment()}`}>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Status</th>
                <th scope="col">Workflow</th>
                <th scope="col">Created</th>
                <th scope="col">Ended</th>
              </tr>
            </thead>
            <tbody>
              <For each={data()?.sessions.nodes}>
                {(s: SessionSummary) => (
                  <tr>
                    <td>
                      <a href={`/dashboard/sessions/${s.id}`} onClick={linkClick}>
                        <code>{s.id}</code>
                      </a>
                    </td>
                    <td>{s.status}</td>
                    <td>
                      <code>{s.workflowId}</code> r{s.workflowRevision}
                    </td>
                    <td>{when(s.createdAt)}</td>
                    <td>{when(s.endedAt)}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </Show>
      <div class="d-actions">
        <div>
          <Show when={pages().length > 1}>
            <button type="button" onClick={() => setPages(pages().slice(0, -1))}>
              Newer
            </button>
          </Show>
          <Show when={data()?.sessions.pageInfo.hasNextPage}>
            <button
              type="button"
              onClick={() => setPages([...pages(), data()?.sessions.pageInfo.endCursor ?? null])}
            >
              Older
            </button>
          </Show>
        </div>
      </div>
    </>
  );
}

export function SessionDetail(props: { id: string }) {
  const [data] = createResource(
    () => ({ id: props.id, env: environment() }),
    (a) => gql<SessionTimelineData>(SESSION_TIMELINE, { id: a.id }),
  );
  const s = () => data()?.sessionTimeline.session;
  return (
    <>
      <p>
        <a href="/dashboard/sessions" onClick={linkClick}>
          All sessions
        </a>
      </p>
      <Show when={s()}>
        {(x) => (
          <dl class="d-facts">
            <dt>Session</dt>
            <dd>
              <code>{x().id}</code>
            </dd>
            <dt>Status</dt>
            <dd data-testid="session-status">{x().status}</dd>
            <dt>Workflow</dt>
            <dd>
              <code>{x().workflowId}</code> revision {x().workflowRevision}
            </dd>
            <dt>Created</dt>
            <dd>{when(x().createdAt)}</dd>
            <Show when={x().failureReason}>
              <dt>Failure</dt>
              <dd>{x().failureReason?.code}</dd>
            </Show>
          </dl>
        )}
      </Show>
      <h2 id="timeline-h">Timeline</h2>
      <ol class="d-timeline" aria-labelledby="timeline-h">
        <For each={data()?.sessionTimeline.entries}>
          {(e) => (
            <li>
              <span class="d-muted">{when(e.at)}</span> <strong>{e.kind}</strong>
              {e.code ? <> ({e.code})</> : null}
            </li>
          )}
        </For>
      </ol>
    </>
  );
}
