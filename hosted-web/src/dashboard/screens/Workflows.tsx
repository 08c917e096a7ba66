// Workflows of the current environment: list and create; one workflow's draft editor (arrange steps, set each
// primitive's settings, its conditions, its routes and its gate, the intended use, save, publish a revision) and every
// published revision. The draft lives in local state until "Save draft"; publishing saves first, so what is
// published is what is on screen.
import { createResource, createSignal, For, Index, Show } from 'solid-js';
import type {
  CreateWorkflowMutation,
  CreateWorkflowMutationVariables,
  Primitive,
  PublishWorkflowMutation,
  PublishWorkflowMutationVariables,
  SetWorkflowIntendedUseMutation,
  SetWorkflowIntendedUseMutationVariables,
  SetWorkflowStepsMutation,
  SetWorkflowStepsMutationVariables,
  WorkflowQuery,
  WorkflowQueryVariables,
  WorkflowsQuery,
  WorkflowsQueryVariables,
} from '../../graphql/generated';
import { DashError, environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { ClaimsPicker } from '../components/ClaimsPicker';
import { DataTable } from '../components/DataTable';
import { blank, type DraftStep, summary, toDraft, toInput, wordCount } from '../components/draft-step';
import { Field, SelectField, TextField } from '../components/Field';
import {
  type DraftIntendedUse,
  IntendedUseFields,
  toDraftUse,
  toUseInput,
  useSummary,
} from '../components/IntendedUse';
import { conditionSummary, hasConditions, StepConditions } from '../components/StepConditions';
import { StepRoutes } from '../components/StepRoutes';
import DOCUMENT from '../graphql/workflows.graphql?raw';
import { linkClick, navigate } from '../router';
import { when } from '../Screen';

const WORKFLOWS = operation<WorkflowsQuery, WorkflowsQueryVariables>(DOCUMENT, 'Workflows');
const CREATE_WORKFLOW = operation<CreateWorkflowMutation, CreateWorkflowMutationVariables>(
  DOCUMENT,
  'CreateWorkflow',
);
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

/** The step picker's options: one per primitive of the GraphQL enum (a new primitive is a compile error here). */
const OPTION: Record<Primitive, string> = {
  identify: 'Identify (requested claims)',
  age_verify: 'Age check (threshold)',
  sign: 'Sign documents',
  attestation: 'Attestation (inline terms)',
};
const PRIMITIVES = (Object.keys(OPTION) as Primitive[]).map((value) => ({ value, label: OPTION[value] }));
const LABEL: Record<Primitive, string> = {
  identify: 'Identify',
  age_verify: 'Age check',
  sign: 'Sign documents',
  attestation: 'Attestation',
};
/** The spec's limit for attestation terms; the server enforces it, the editor warns while typing. */
const TERMS_MAX_WORDS = 1000;

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
          label="Workflow name"
          required
          maxlength="200"
          value={name()}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit" class="d-primary" disabled={action.busy()}>
          Create {environment()} workflow
        </button>
      </form>
      <Show
        when={list()?.workflows.length}
        fallback={<p class="d-muted">No workflows in {environment()} yet.</p>}
      >
        <DataTable
          label={`Workflows in ${environment()}`}
          rows={list()?.workflows}
          columns={[
            {
              header: 'Name',
              cell: (w) => (
                <a href={`/dashboard/workflows/${w.id}`} onClick={linkClick}>
                  {w.name}
                </a>
              ),
            },
            {
              header: 'Latest revision',
              cell: (w) => (w.latestRevision === 0 ? 'Not published' : `Revision ${w.latestRevision}`),
            },
            { header: 'Updated', cell: (w) => when(w.updatedAt) },
          ]}
        />
      </Show>
    </>
  );
}

export function WorkflowDetail(props: { id: string }) {
  const [steps, setSteps] = createSignal<DraftStep[]>([]);
  const [apiOnly, setApiOnly] = createSignal(true);
  const [dirty, setDirty] = createSignal(false);
  const [use, setUse] = createSignal<DraftIntendedUse>(toDraftUse(null));
  const [useDirty, setUseDirty] = createSignal(false);
  const [adding, setAdding] = createSignal<Primitive>('identify');
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

  /** The step (0-based) and field the server's workflow_invalid names in `param` (steps[2].terms). */
  const invalid = () => {
    const e = action.error();
    if (!(e instanceof DashError) || e.code !== 'workflow_invalid' || !e.param) return null;
    const m = /^steps\[(\d+)\](?:\.(\w+))?/.exec(e.param);
    if (!m) return null;
    // the field's own line: the server's sentence without its "Step 3: " (the card's heading says it)
    return { step: Number(m[1]), field: m[2] ?? '', text: (e.detail ?? '').replace(/^Step \d+: /, '') };
  };
  const fieldError = (i: number, field: string) => {
    const v = invalid();
    return v && v.step === i && v.field === field ? v.text : null;
  };
  /** The server's refusal of the intended use, on the field it names (param intendedUse.purpose). */
  const useError = (field: string) => {
    const e = action.error();
    return e instanceof DashError && e.code === 'workflow_invalid' && e.param === `intendedUse.${field}`
      ? (e.detail ?? e.code)
      : null;
  };

  const change = (next: DraftStep[]) => {
    setSteps(next);
    setDirty(true);
    action.clear();
  };
  const update = (i: number, patch: Partial<DraftStep>) =>
    change(steps().map((s, j) => (j === i ? { ...s, ...patch } : s)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...steps()];
    const [s] = next.splice(i, 1);
    next.splice(i + by, 0, s as DraftStep);
    change(next);
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
      return 'Draft saved.';
    });
  const onPublish = () =>
    action.run(async () => {
      await save();
      const before = data()?.workflow.latestRevision ?? 0;
      const { publishWorkflow } = await gql(PUBLISH_WORKFLOW, { workflowId: props.id });
      await refetch();
      // the server answers the latest revision when the draft is identical to it (nothing new is published)
      return publishWorkflow.revision === before
        ? `Nothing changed since revision ${before}: no new revision was published.`
        : `Published revision ${publishWorkflow.revision}.`;
    });

  return (
    <Show when={data()}>
      {(d) => (
        <>
          <p>
            <a href="/dashboard/workflows" onClick={linkClick}>
              All workflows
            </a>
          </p>
          <dl class="d-facts">
            <dt>Name</dt>
            <dd>{d().workflow.name}</dd>
            <dt>Workflow id</dt>
            <dd>
              <code data-testid="workflow-id">{d().workflow.id}</code>
            </dd>
            <dt>Latest revision</dt>
            <dd>{d().workflow.latestRevision === 0 ? 'Not published' : d().workflow.latestRevision}</dd>
          </dl>

          <h2>Draft steps</h2>
          <Show when={!steps().length}>
            <p class="d-muted">No steps yet. Add the first one below.</p>
          </Show>
          <ol class="d-steps">
            <Index each={steps()}>
              {(s, i) => (
                <li
                  class="d-card d-step"
                  classList={{ 'd-step-invalid': invalid()?.step === i }}
                  data-testid={`step-${i + 1}`}
                >
                  <h3>
                    Step {i + 1}: {LABEL[s().primitive]}
                  </h3>
                  <Show when={s().primitive === 'identify'}>
                    <ClaimsPicker
                      id={`claims-${i}`}
                      error={fieldError(i, 'claims')}
                      value={s().claims}
                      onChange={(claims) => update(i, { claims })}
                    />
                  </Show>
                  <Show when={s().primitive === 'age_verify'}>
                    <TextField
                      id={`threshold-${i}`}
                      error={fieldError(i, 'threshold')}
                      label="Minimum age (years)"
                      type="number"
                      min="1"
                      max="150"
                      inputmode="numeric"
                      value={s().threshold}
                      onInput={(e) => update(i, { threshold: e.currentTarget.value })}
                    />
                  </Show>
                  <Show when={s().primitive === 'sign'}>
                    <TextField
                      id={`documents-${i}`}
                      error={fieldError(i, 'documents')}
                      label="Documents each session uploads"
                      type="number"
                      min="1"
                      inputmode="numeric"
                      value={s().documents}
                      onInput={(e) => update(i, { documents: e.currentTarget.value })}
                    />
                  </Show>
                  <Show when={s().primitive === 'attestation'}>
                    <Field id={`terms-${i}`} label="Terms the signer attests" error={fieldError(i, 'terms')}>
                      {(d) => (
                        <textarea
                          id={`terms-${i}`}
                          rows="6"
                          aria-describedby={[`terms-count-${i}`, d()].filter(Boolean).join(' ')}
                          aria-invalid={fieldError(i, 'terms') ? true : undefined}
                          value={s().terms}
                          onInput={(e) => update(i, { terms: e.currentTarget.value })}
                        />
                      )}
                    </Field>
                    <p
                      id={`terms-count-${i}`}
                      class={wordCount(s().terms) > TERMS_MAX_WORDS ? 'd-warn' : 'd-muted'}
                      aria-live="polite"
                      data-testid={`terms-count-${i}`}
                    >
                      {wordCount(s().terms)} of {TERMS_MAX_WORDS} words
                      {wordCount(s().terms) > TERMS_MAX_WORDS
                        ? `: too long by ${wordCount(s().terms) - TERMS_MAX_WORDS}; publishing will be refused.`
                        : ''}
                    </p>
                  </Show>
                  <StepRoutes
                    id={`routes-${i}`}
                    primitive={s().primitive}
                    value={s().routes}
                    error={fieldError(i, 'routes')}
                    onChange={(routes) => update(i, { routes })}
                  />
                  <Show when={hasConditions(s().primitive)}>
                    <StepConditions
                      stage={i}
                      primitive={s().primitive}
                      conditions={s().conditions}
                      stepLabels={steps().map((x) => LABEL[x.primitive])}
                      onChange={(conditions) => update(i, { conditions })}
                    />
                  </Show>
                  <label class="d-check">
                    <input
                      type="checkbox"
                      checked={s().gateAfter}
                      onChange={(e) => update(i, { gateAfter: e.currentTarget.checked })}
                    />
                    Gate: wait for us to continue or stop after this step
                  </label>
                  <Show when={i > 0}>
                    <label class="d-check">
                      <input
                        type="checkbox"
                        checked={s().anyHolder}
                        data-testid={`any-holder-${i}`}
                        onChange={(e) => update(i, { anyHolder: e.currentTarget.checked })}
                      />
                      Anyone may do this step (for example a second signer); otherwise it must be the person
                      who did step 1
                    </label>
                  </Show>
                  <div class="d-step-actions">
                    <button
                      type="button"
                      disabled={i === 0}
                      aria-label={`Move up step ${i + 1}`}
                      onClick={() => move(i, -1)}
                    >
                      Move up
                    </button>
                    <button
                      type="button"
                      disabled={i === steps().length - 1}
                      aria-label={`Move down step ${i + 1}`}
                      onClick={() => move(i, 1)}
                    >
                      Move down
                    </button>
                    <button
                      type="button"
                      class="d-danger"
                      aria-label={`Remove step ${i + 1}`}
                      onClick={() => change(steps().filter((_, j) => j !== i))}
                    >
                      Remove
                    </button>
                  </div>
                </li>
              )}
            </Index>
          </ol>
          <div class="d-form">
            <SelectField
              id="add-primitive"
              label="New step"
              value={adding()}
              onChange={(e) => setAdding(e.currentTarget.value as Primitive)}
            >
              <For each={PRIMITIVES}>{(p) => <option value={p.value}>{p.label}</option>}</For>
            </SelectField>
            <button type="button" onClick={() => change([...steps(), blank(adding())])}>
              Add step
            </button>
          </div>
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
            Sessions are created only through the API
          </label>
          <p id="api-only-hint" class="d-muted d-hint">
            Ticked: only your server creates sessions, with an API key. Unticked: you can also create one on
            the Sessions screen and copy its link. Applies from the next published revision.
          </p>
          <h2>Intended use</h2>
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
              Save draft
            </button>
            <button
              type="button"
              class="d-primary"
              onClick={onPublish}
              disabled={!steps().length || action.busy()}
            >
              Publish revision
            </button>
          </div>

          <h2>Published revisions</h2>
          <Show
            when={d().workflowRevisions.length}
            fallback={
              <p class="d-muted">Not published yet: sessions can use it once a revision is published.</p>
            }
          >
            <For each={[...d().workflowRevisions].reverse()}>
              {(r) => (
                <details class="d-card d-revision">
                  <summary>
                    Revision {r.revision}, published {when(r.publishedAt)}
                  </summary>
                  <ol>
                    <For each={r.steps}>
                      {(s) => (
                        <li>
                          {LABEL[s.primitive]} ({summary(s)}){s.gateAfter ? ', gate after' : ''}
                          {s.holder === 'any' ? ', anyone may do it' : ''}
                          {s.routes?.length ? `, routes: ${s.routes.join(', ')}` : ''}
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
                  <p class="d-muted">{r.apiOnly ? 'API only' : 'Not API only'}</p>
                </details>
              )}
            </For>
          </Show>
        </>
      )}
    </Show>
  );
}
