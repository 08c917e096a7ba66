// API keys of the current environment: create (the full key is shown once, right here), list by prefix,
// revoke. Keys are per environment, so switching the environment reloads the list.
import { createResource, createSignal, For, Show } from 'solid-js';
import {
  ApiKeyScope,
  type ApiKeysQuery,
  type ApiKeysQueryVariables,
  type CreateApiKeyMutation,
  type CreateApiKeyMutationVariables,
  type RevokeApiKeyMutation,
  type RevokeApiKeyMutationVariables,
} from '../../graphql/generated';
import { DashError, environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { ConfirmButton } from '../components/ConfirmButton';
import { DataTable } from '../components/DataTable';
import { TextField } from '../components/Field';
import { SecretOnce } from '../components/SecretOnce';
import DOCUMENT from '../graphql/api-keys.graphql?raw';
import { dt } from '../i18n';
import { when } from '../Screen';

const API_KEYS = operation<ApiKeysQuery, ApiKeysQueryVariables>(DOCUMENT, 'ApiKeys');
const CREATE_API_KEY = operation<CreateApiKeyMutation, CreateApiKeyMutationVariables>(
  DOCUMENT,
  'CreateApiKey',
);
const REVOKE_API_KEY = operation<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>(
  DOCUMENT,
  'RevokeApiKey',
);

/**
 * What each scope allows, in words (README "API keys"). A new key starts with the narrowest that works for an
 * integration: create sessions and read their results. A full key (no scope: every /v1 call) is its own box.
 */
const SCOPES: { scope: ApiKeyScope; readonly words: string }[] = [
  ApiKeyScope.SessionsCreate,
  ApiKeyScope.SessionsRead,
  ApiKeyScope.SessionsWrite,
  ApiKeyScope.AuditsRead,
].map((scope) => ({
  scope,
  get words() {
    return dt(`keys.scope.${scope}`);
  },
}));
const NARROWEST: ApiKeyScope[] = [ApiKeyScope.SessionsCreate, ApiKeyScope.SessionsRead];
const scopeWords = (scopes: readonly ApiKeyScope[] | null): string =>
  scopes?.length
    ? SCOPES.filter((s) => scopes.includes(s.scope))
        .map((s) => s.words)
        .join(', ')
    : dt('keys.full');

export function ApiKeys() {
  const [keys, { refetch }] = createResource(environment, () => gql(API_KEYS));
  const [label, setLabel] = createSignal('');
  const [scopes, setScopes] = createSignal<ApiKeyScope[]>(NARROWEST);
  const [full, setFull] = createSignal(false);
  const toggle = (scope: ApiKeyScope, on: boolean) =>
    setScopes((now) => (on ? [...now, scope] : now.filter((s) => s !== scope)));
  const [created, setCreated] = createSignal<CreateApiKeyMutation['createApiKey'] | null>(null);
  const action = createAction();

  const create = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const chosen = scopes();
      if (!full() && chosen.length === 0) {
        document.getElementById(`scope-${SCOPES[0]?.scope}`)?.focus();
        throw new DashError('validation_failed', 400, dt('keys.chooseOne'), undefined, 'scopes');
      }
      const answer = await gql(CREATE_API_KEY, { label: label(), scopes: full() ? null : chosen });
      setCreated(answer.createApiKey);
      setLabel('');
      setScopes(NARROWEST);
      setFull(false);
      await refetch();
    });
  };
  const revoke = (id: string) =>
    action.run(async () => {
      await gql(REVOKE_API_KEY, { id });
      await refetch();
    });

  return (
    <>
      <ActionStatus action={action} />
      <Show when={created()}>
        {(c) => (
          <SecretOnce
            id="new-key"
            label={dt(`keys.new.${environment()}`)}
            value={c().key}
            onDone={() => setCreated(null)}
          >
            <strong>{dt('keys.copyNow')}</strong>
            {dt('keys.shownOnce')}
          </SecretOnce>
        )}
      </Show>
      <form class="d-form" onSubmit={create}>
        <TextField
          id="key-label"
          label={dt('keys.label')}
          required
          maxlength="100"
          value={label()}
          onInput={(e) => setLabel(e.currentTarget.value)}
        />
        <fieldset class="d-scopes" aria-describedby="scopes-hint">
          <legend>{dt('keys.scopes')}</legend>
          <p id="scopes-hint" class="d-muted">
            {dt('keys.scopesHint')}
          </p>
          <For each={SCOPES}>
            {(s) => (
              <label>
                <input
                  id={`scope-${s.scope}`}
                  type="checkbox"
                  value={s.scope}
                  disabled={full()}
                  checked={full() || scopes().includes(s.scope)}
                  onChange={(e) => toggle(s.scope, e.currentTarget.checked)}
                />
                <span>
                  {s.words} <code>{s.scope.replace('_', ':')}</code>
                </span>
              </label>
            )}
          </For>
          <label class="d-scope-full">
            <input type="checkbox" checked={full()} onChange={(e) => setFull(e.currentTarget.checked)} />
            <span>{dt('keys.fullHint')}</span>
          </label>
        </fieldset>
        <button type="submit" class="d-primary" disabled={action.busy()}>
          {dt(`keys.create.${environment()}`)}
        </button>
      </form>
      <Show
        when={keys()?.apiKeys.length}
        fallback={<p class="d-muted">{dt(`keys.none.${environment()}`)}</p>}
      >
        <DataTable
          label={dt(`keys.table.${environment()}`)}
          rows={keys()?.apiKeys}
          columns={[
            { header: dt('keys.label'), cell: (k) => k.label },
            { header: dt('keys.prefix'), cell: (k) => <code>{k.prefix}…</code> },
            { header: dt('keys.scopes'), cell: (k) => scopeWords(k.scopes) },
            { header: dt('keys.created'), cell: (k) => when(k.createdAt) },
            { header: dt('keys.lastUsed'), cell: (k) => when(k.lastUsedAt) },
            {
              header: dt('keys.status'),
              cell: (k) => (
                <Show when={!k.revokedAt} fallback={dt('keys.revoked', { when: when(k.revokedAt) })}>
                  <span class="d-key-active" data-testid="key-status">
                    {dt('keys.active')}
                  </span>{' '}
                  <ConfirmButton
                    label={dt('keys.revokeLabel', { label: k.label })}
                    question={dt('keys.revokeQ', { label: k.label })}
                    confirm={dt('keys.revokeYes')}
                    onConfirm={() => revoke(k.id)}
                  >
                    {dt('keys.revoke')}
                  </ConfirmButton>
                </Show>
              ),
            },
          ]}
        />
      </Show>
    </>
  );
}
