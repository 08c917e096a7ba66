// Workflows of the current environment: list and create (issue 29: in the dashboard's language). One workflow's
// draft editor is screens/WorkflowDetail.tsx.
import { createResource, createSignal, Show } from 'solid-js';
import type {
  CreateWorkflowMutation,
  CreateWorkflowMutationVariables,
  WorkflowsQuery,
  WorkflowsQueryVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { DataTable } from '../components/DataTable';
import { TextField } from '../components/Field';
import DOCUMENT from '../graphql/workflows.graphql?raw';
import { dt } from '../i18n';
import { linkClick, navigate } from '../router';
import { when } from '../Screen';

export { WorkflowDetail } from './WorkflowDetail';

const WORKFLOWS = operation<WorkflowsQuery, WorkflowsQueryVariables>(DOCUMENT, 'Workflows');
const CREATE_WORKFLOW = operation<CreateWorkflowMutation, CreateWorkflowMutationVariables>(
  DOCUMENT,
  'CreateWorkflow',
);

export function Workflows() {
  const [list, { refetch }] = createResource(environment, () => gql(WORKFLOWS));
  const [name, setName] = createSignal('');
  const action = createAction();

  const create = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const { createWorkflow } = await gql(CREATE_WORKFLOW, { input: { name: name() } });
      setName('');
      await refetch();
      navigate(`/dashboard/workflows/${createWorkflow.id}`);
    });
  };

  return (
    <>
      <ActionStatus action={action} />
      <form class="d-form" onSubmit={create}>
        <TextField
          id="workflow-name"
          label={dt('wf.name')}
          required
          maxlength="200"
          value={name()}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit" class="d-primary" disabled={action.busy()}>
          {dt(`wf.create.${environment()}`)}
        </button>
      </form>
      <Show
        when={list()?.workflows.length}
        fallback={<p class="d-muted">{dt('wf.none', { in: dt(`env.in.${environment()}`) })}</p>}
      >
        <DataTable
          label={dt('wf.table', { in: dt(`env.in.${environment()}`) })}
          rows={list()?.workflows}
          columns={[
            {
              header: dt('wf.col.name'),
              cell: (w) => (
                <a href={`/dashboard/workflows/${w.id}`} onClick={linkClick}>
                  {w.name}
                </a>
              ),
            },
            {
              header: dt('wf.col.latest'),
              cell: (w) =>
                w.latestRevision === 0
                  ? dt('wf.notPublished')
                  : dt('wf.revisionN', { n: String(w.latestRevision) }),
            },
            { header: dt('wf.col.updated'), cell: (w) => when(w.updatedAt) },
          ]}
        />
      </Show>
    </>
  );
}
