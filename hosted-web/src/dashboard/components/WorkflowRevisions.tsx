// A workflow's published revisions, newest first (screens/Workflows.tsx): each one's steps in one line apiece
// (primitive, settings, gate, holder, routes, conditions), its intended use and whether it is API-only.
import { For, Show } from 'solid-js';
import type { WorkflowQuery } from '../../graphql/generated';
import { dt } from '../i18n';
import { when } from '../Screen';
import { conditionSummary } from './condition-draft';
import { primitiveLabel, summary } from './draft-step';
import { useSummary } from './IntendedUse';

type Revision = WorkflowQuery['workflowRevisions'][number];

export function WorkflowRevisions(props: { revisions: Revision[] }) {
  return (
    <Show when={props.revisions.length} fallback={<p class="d-muted">{dt('wf.notPublishedYet')}</p>}>
      <For each={[...props.revisions].reverse()}>
        {(r) => (
          <details class="d-card d-revision">
            <summary>
              {dt('wf.revisionPublished', { n: String(r.revision), when: when(r.publishedAt) })}
            </summary>
            <ol>
              <For each={r.steps}>
                {(s) => (
                  <li>
                    {primitiveLabel(s.primitive)} ({summary(s)}){s.gateAfter ? dt('wf.rev.gate') : ''}
                    {s.holder === 'any' ? dt('wf.rev.any') : ''}
                    {s.routes?.length ? dt('wf.rev.routes', { routes: s.routes.join(', ') }) : ''}
                    <Show when={s.conditions.length}>
                      <ul class="d-condition-list">
                        <For each={s.conditions}>{(c) => <li>{conditionSummary(c)}</li>}</For>
                      </ul>
                    </Show>
                  </li>
                )}
              </For>
            </ol>
            <p class="d-muted">{useSummary(r.intendedUse)}</p>
            <p class="d-muted">{r.apiOnly ? dt('wf.rev.apiOnly') : dt('wf.rev.notApiOnly')}</p>
          </details>
        )}
      </For>
    </Show>
  );
}
