// API keys of the current environment: create (the full key is shown once, right here), list by prefix,
// revoke. Keys are per environment, so switching the environment reloads the list.
import { createResource, createSignal, For, Show } from 'solid-js';
import { environment, gql } from '../api';
import {
  API_KEYS,
  type ApiKeysData,
  CREATE_API_KEY,
  type CreateApiKeyData,
  REVOKE_API_KEY,
} from '../queries';
import { ErrorNote, when } from '../Screen';

export function ApiKeys() {
  const [keys, { refetch }] = createResource(environment, () => gql<ApiKeysData>(API_KEYS));
  const [label, setLabel] = createSignal('');
  const [created, setCreated] = createSignal<CreateApiKeyData['createApiKey'] | null>(null);
  const [error, setError] = createSignal<unknown>(null);

  const create = async (e: SubmitEvent) => {
    e.preventDefault();
    setError(null);
    try {
      setCreated((await gql<CreateApiKeyData>(CREATE_API_KEY, { label: label() })).createApiKey);
      setLabel('');
      await refetch();
    } catch (err) {
      setError(err);
    }
  };

  const revoke = async (id: string) => {
    setError(null);
    try {
      await gql(REVOKE_API_KEY, { id });
      await refetch();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <Show when={created()}>
        {(c) => (
          <div class="d-card d-secret" role="status">
            <p>
              <strong>Copy this key now.</strong> It is shown only once; we store a hash of it.
            </p>
            <label for="new-key">New {environment()} key</label>
            <input id="new-key" readonly value={c().key} onFocus={(e) => e.currentTarget.select()} />
            <button type="button" onClick={() => setCreated(null)}>
              I have stored it
            </button>
          </div>
        )}
      </Show>
      <form class="d-form" onSubmit={create}>
        <label for="key-label">Label</label>
        <input
          id="key-label"
          required
          maxlength="100"
          value={label()}
          onInput={(e) => setLabel(e.currentTarget.value)}
        />
        <button type="submit" class="d-primary">
          Create {environment()} key
        </button>
      </form>
      <Show
        when={keys()?.apiKeys.length}
        fallback={<p class="d-muted">No API keys in {environment()} yet.</p>}
      >
        <div class="d-table-wrap">
          <table aria-label={`API keys in ${environment()}`}>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Prefix</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              <For each={keys()?.apiKeys}>
                {(k) => (
                  <tr>
                    <td>{k.label}</td>
                    <td>
                      <code>{k.prefix}…</code>
                    </td>
                    <td>{when(k.createdAt)}</td>
                    <td>{when(k.lastUsedAt)}</td>
                    <td>
                      <Show when={!k.revokedAt} fallback={<>Revoked {when(k.revokedAt)}</>}>
                        <button
                          type="button"
                          class="d-danger"
                          aria-label={`Revoke key ${k.label}`}
                          onClick={() => revoke(k.id)}
                        >
                          Revoke
                        </button>
                      </Show>
                    </td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </div>
      </Show>
    </>
  );
}
