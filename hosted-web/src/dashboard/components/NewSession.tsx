// "Create a session" on the sessions screen (issue 20, spec §1 API-only access): a signed-in developer creates a
// session of a published workflow without API-only access and copies its hosted link (to try it, or to send it
// to a tester). Workflows set to API-only access are listed but cannot be chosen; the server refuses them too
// (workflow_api_only), which also covers a draft unticked but not yet published.
import { createResource, createSignal, For, Show } from 'solid-js';
import type {
  CreateDashboardSessionMutation,
  CreateDashboardSessionMutationVariables,
  CreateDashboardSignSessionMutation,
  CreateDashboardSignSessionMutationVariables,
  NewSessionRevisionQuery,
  NewSessionRevisionQueryVariables,
  NewSessionWorkflowsQuery,
  NewSessionWorkflowsQueryVariables,
} from '../../graphql/generated';
import { DashError, environment, gql, gqlUpload, operation } from '../api';
import DOCUMENT from '../graphql/test-session.graphql?raw';
import { dt } from '../i18n';
import { when } from '../Screen';
import { ActionStatus, createAction } from './action';

const WORKFLOWS = operation<NewSessionWorkflowsQuery, NewSessionWorkflowsQueryVariables>(
  DOCUMENT,
  'NewSessionWorkflows',
);
const CREATE = operation<CreateDashboardSessionMutation, CreateDashboardSessionMutationVariables>(
  DOCUMENT,
  'CreateDashboardSession',
);

const REVISION = operation<NewSessionRevisionQuery, NewSessionRevisionQueryVariables>(
  DOCUMENT,
  'NewSessionRevision',
);
const CREATE_SIGN = operation<
  CreateDashboardSignSessionMutation,
  CreateDashboardSignSessionMutationVariables
>(DOCUMENT, 'CreateDashboardSignSession');

/** How many documents the newest published revision's sign steps take, one entry per step (in order). */
async function signDocuments(workflowId: string): Promise<number[]> {
  const revisions = (await gql(REVISION, { workflowId })).workflowRevisions;
  const newest = revisions.reduce<(typeof revisions)[number] | null>(
    (a, r) => (a && a.revision > r.revision ? a : r),
    null,
  );
  return (newest?.steps ?? []).filter((s) => s.primitive === 'sign').map((s) => s.documents ?? 1);
}

type Created = CreateDashboardSessionMutation['createSession'];

export function NewSession(props: { onCreated?: () => void }) {
  const [workflows] = createResource(environment, async () =>
    (await gql(WORKFLOWS)).workflows.filter((w) => w.latestRevision > 0),
  );
  const [chosen, setChosen] = createSignal('');
  const [created, setCreated] = createSignal<Created | null>(null);
  const [copied, setCopied] = createSignal(false);
  const action = createAction();
  const selectable = () => (workflows() ?? []).filter((w) => !w.apiOnly);
  const workflowId = () => chosen() || selectable()[0]?.id || '';
  const [signSteps] = createResource(workflowId, signDocuments);
  /** One file field per document, numbered across the sign steps as the server takes them. */
  const fields = () =>
    (signSteps() ?? []).flatMap((count, step) =>
      Array.from({ length: count }, (_, i) => ({ step: step + 1, index: i + 1, count })),
    );
  const [files, setFiles] = createSignal<(File | undefined)[]>([]);
  const [missingFile, setMissingFile] = createSignal(-1);
  const setFile = (i: number, f: File | undefined) =>
    setFiles((prev) => {
      const next = [...prev];
      next[i] = f;
      return next;
    });

  const onCreate = () =>
    action.run(async () => {
      setCreated(null);
      setCopied(false);
      const wanted = fields().length;
      if (wanted === 0) {
        setCreated((await gql(CREATE, { workflowId: workflowId() })).createSession);
      } else {
        const chosenFiles = files().slice(0, wanted);
        const missing = fields().findIndex((_, i) => !chosenFiles[i]);
        setMissingFile(missing);
        if (missing >= 0) {
          document.getElementById(`new-session-file-${missing}`)?.focus();
          throw new DashError(
            'documents_required',
            400,
            dt('new.choosePdf', { n: String(wanted) }),
            undefined,
            `documents[${missing}]`,
          );
        }
        const { createSession } = await gqlUpload(
          CREATE_SIGN,
          { documents: chosenFiles as File[] },
          { workflowId: workflowId() },
        );
        setCreated(createSession);
        setFiles([]);
      }
      props.onCreated?.();
    });
  const onCopy = async () => {
    const link = created()?.url;
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      // no clipboard permission: the link stays selected in its field for a manual copy
      (document.getElementById('new-session-link') as HTMLInputElement | null)?.select();
    }
  };

  return (
    <section class="d-card d-new-session" aria-labelledby="new-session-heading">
      <h2 id="new-session-heading">{dt('new.title')}</h2>
      <Show
        when={selectable().length}
        fallback={
          <p class="d-muted">{workflows()?.length ? dt('new.allApiOnly') : dt('new.publishFirst')}</p>
        }
      >
        <div class="d-new-session-row">
          <div>
            <label for="new-session-workflow">{dt('new.of')}</label>
            <select
              id="new-session-workflow"
              value={workflowId()}
              onChange={(e) => {
                setChosen(e.currentTarget.value);
                setFiles([]);
              }}
            >
              <For each={workflows()}>
                {(w) => (
                  <option value={w.id} disabled={w.apiOnly}>
                    {w.apiOnly ? dt('new.apiOnly', { name: w.name }) : w.name}
                  </option>
                )}
              </For>
            </select>
          </div>
        </div>
        <Show when={fields().length}>
          <fieldset class="d-new-session-files">
            <legend>
              {fields().length === 1
                ? dt('new.signsOne')
                : dt('new.signsMany', { n: String(fields().length) })}
            </legend>
            <For each={fields()}>
              {(f, i) => (
                <div class="d-field">
                  <label for={`new-session-file-${i()}`}>
                    {(signSteps()?.length ?? 0) > 1 ? dt('new.signingStep', { n: String(f.step) }) : ''}
                    {f.count === 1
                      ? dt('new.document')
                      : dt('new.documentOf', { i: String(f.index), n: String(f.count) })}
                  </label>
                  <input
                    id={`new-session-file-${i()}`}
                    type="file"
                    accept="application/pdf,.pdf"
                    aria-invalid={missingFile() === i() ? 'true' : undefined}
                    onChange={(e) => {
                      setFile(i(), e.currentTarget.files?.[0]);
                      if (missingFile() === i()) setMissingFile(-1);
                    }}
                  />
                </div>
              )}
            </For>
          </fieldset>
        </Show>
        <div class="d-new-session-go">
          <button type="button" class="d-primary" onClick={onCreate} disabled={action.busy()}>
            {dt('new.create')}
          </button>
        </div>
      </Show>
      <ActionStatus action={action} />
      <Show when={created()}>
        {(s) => (
          <div class="d-new-session-link" role="status">
            <label for="new-session-link">{dt('new.link', { when: when(s().expires) })}</label>
            <input id="new-session-link" readonly value={s().url} onFocus={(e) => e.currentTarget.select()} />
            <div class="d-step-actions">
              <button type="button" onClick={onCopy}>
                {dt(copied() ? 'new.copied' : 'new.copy')}
              </button>
              <a href={s().url} target="_blank" rel="noopener">
                {dt('new.open')}
              </a>
            </div>
            <p class="d-muted">{dt('new.anyone')}</p>
          </div>
        )}
      </Show>
    </section>
  );
}
