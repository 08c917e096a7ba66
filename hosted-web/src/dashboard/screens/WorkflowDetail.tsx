// One workflow's draft editor (issue 29: in the dashboard's language): arrange steps (components/WorkflowSteps.tsx),
// set each primitive's settings, its conditions, its routes and its gate, the intended use, save, publish a
// revision; and every published revision (components/WorkflowRevisions.tsx). The draft lives in local state
// until "Save draft"; publishing saves first, so what is published is what is on screen.
import { createResource, createSignal, Show } from 'solid-js';
import type {
  PublishWorkflowMutation,
  PublishWorkflowMutationVariables,
  SetWorkflowIntendedUseMutation,
  SetWorkflowIntendedUseMutationVariables,
  SetWorkflowStepsMutation,
  SetWorkflowStepsMutationVariables,
  WorkflowQuery,
  WorkflowQueryVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { type DraftStep, toDraft, toInput } from '../components/draft-step';
import { stepErrorOf, useErrorOf } from '../components/field-error';
import { type DraftIntendedUse, IntendedUseFields, toDraftUse, toUseInput } from '../components/IntendedUse';
import { WorkflowRevisions } from '../components/WorkflowRevisions';
import { WorkflowSteps } from '../components/WorkflowSteps';
import DOCUMENT from '../graphql/workflows.graphql?raw';
import { dt } from '../i18n';
import { linkClick } from '../router';

const WORKFLOW = operation<WorkflowQuery, WorkflowQueryVariables>(DOCUMENT, 'Workflow');
const SET_WORKFLOW_STEPS = operation<SetWorkflowStepsMutation, SetWorkflowStepsMutationVariables>(
  DOCUMENT,
  'SetWorkflowSteps',
);
const SET_WORKFLOW_INTENDED_USE = operation<
  SetWorkflowIntendedUseMutation,
  SetWorkflowIntendedUseMutationVariables
>(DOCUMENT, 'SetWorkflowIntendedUse');
const PUBLISH_WORKFLOW = operation<PublishWorkflowMutation, PublishWorkflowMutationVariables>(
  DOCUMENT,
  'PublishWorkflow',
);

export function WorkflowDetail(props: { id: string }) {
  const [steps, setSteps] = createSignal<DraftStep[]>([]);
  const [apiOnly, setApiOnly] = createSignal(true);
  const [dirty, setDirty] = createSignal(false);
  const [use, setUse] = createSignal<DraftIntendedUse>(toDraftUse(null));
  const [useDirty, setUseDirty] = createSignal(false);
  const action = createAction();
  const [data, { refetch }] = createResource(
    () => ({ env: environment(), id: props.id }),
    async (a) => {
      const d = await gql(WORKFLOW, { id: a.id });
      setSteps(d.workflow.draftSteps.map(toDraft));
      setApiOnly(d.workflow.apiOnly);
      setUse(toDraftUse(d.workflow.intendedUse));
      setDirty(false);
      setUseDirty(false);
      return d;
    },
  );

  const invalid = () => stepErrorOf(action.error());
  const useError = (field: string) => useErrorOf(action.error(), field);

  const change = (next: DraftStep[]) => {
    setSteps(next);
    setDirty(true);
    action.clear();
  };

  const save = async () => {
    if (dirty()) {
      await gql(SET_WORKFLOW_STEPS, {
        workflowId: props.id,
        steps: steps().map(toInput),
        apiOnly: apiOnly(),
      });
      setDirty(false);
    }
    if (useDirty()) {
      await gql(SET_WORKFLOW_INTENDED_USE, { workflowId: props.id, intendedUse: toUseInput(use()) });
      setUseDirty(false);
    }
  };
  const onSave = () =>
    action.run(async () => {
      await save();
      await refetch();
      return dt('wf.saved');
    });
  const onPublish = () =>
    action.run(async () => {
      await save();
      const before = data()?.workflow.latestRevision ?? 0;
      const { publishWorkflow } = await gql(PUBLISH_WORKFLOW, { workflowId: props.id });
      await refetch();
      // the server answers the latest revision when the draft is identical to it (nothing new is published)
      return publishWorkflow.revision === before
        ? dt('wf.unchanged', { n: String(before) })
        : dt('wf.published', { n: String(publishWorkflow.revision) });
    });

  return (
    <Show when={data()}>
      {(d) => (
        <>
          <p>
            <a href="/dashboard/workflows" onClick={linkClick}>
              {dt('wf.all')}
            </a>
          </p>
          <dl class="d-facts">
            <dt>{dt('wf.col.name')}</dt>
            <dd>{d().workflow.name}</dd>
            <dt>{dt('wf.id')}</dt>
            <dd>
              <code data-testid="workflow-id">{d().workflow.id}</code>
            </dd>
            <dt>{dt('wf.col.latest')}</dt>
            <dd>{d().workflow.latestRevision === 0 ? dt('wf.notPublished') : d().workflow.latestRevision}</dd>
          </dl>

          <WorkflowSteps steps={steps()} invalid={invalid()} onChange={change} />
          <label class="d-check">
            <input
              type="checkbox"
              aria-describedby="api-only-hint"
              checked={apiOnly()}
              onChange={(e) => {
                setApiOnly(e.currentTarget.checked);
                setDirty(true);
              }}
            />
            {dt('wf.apiOnly')}
          </label>
          <p id="api-only-hint" class="d-muted d-hint">
            {dt('wf.apiOnlyHint')}
          </p>
          <h2>{dt('wf.intendedUse')}</h2>
          <IntendedUseFields
            value={use()}
            error={useError}
            onChange={(next) => {
              setUse(next);
              setUseDirty(true);
              action.clear();
            }}
          />
          <ActionStatus action={action} />
          <div class="d-step-actions">
            <button type="button" onClick={onSave} disabled={!(dirty() || useDirty()) || action.busy()}>
              {dt('wf.save')}
            </button>
            <button
              type="button"
              class="d-primary"
              onClick={onPublish}
              disabled={!steps().length || action.busy()}
            >
              {dt('wf.publish')}
            </button>
          </div>

          <h2>{dt('wf.revisions')}</h2>
          <WorkflowRevisions revisions={d().workflowRevisions} />
        </>
      )}
    </Show>
  );
}
