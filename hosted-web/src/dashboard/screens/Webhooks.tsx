// The webhook endpoint of the current environment: set its URL (the signing secret is shown once), rotate
// the secret (the old one keeps signing during the overlap), and the delivery log with attempts and
// redelivery of failed deliveries.
import { createResource, createSignal, For, Show } from 'solid-js';
import { environment, gql } from '../api';
import {
  CONFIGURE_WEBHOOK,
  type ConfigureWebhookData,
  REDELIVER_WEBHOOK,
  ROTATE_WEBHOOK_SECRET,
  type RotateWebhookSecretData,
  WEBHOOKS,
  type WebhooksData,
} from '../queries';
import { ErrorNote, when } from '../Screen';

export function Webhooks() {
  const [data, { refetch }] = createResource(environment, () => gql<WebhooksData>(WEBHOOKS));
  const [url, setUrl] = createSignal('');
  const [secret, setSecret] = createSignal('');
  const [notice, setNotice] = createSignal('');
  const [error, setError] = createSignal<unknown>(null);

  const act = async (f: () => Promise<void>) => {
    setError(null);
    setNotice('');
    try {
      await f();
      await refetch();
    } catch (e) {
      setError(e);
    }
  };

  const configure = (e: SubmitEvent) => {
    e.preventDefault();
    void act(async () => {
      const r = await gql<ConfigureWebhookData>(CONFIGURE_WEBHOOK, { url: url() });
      setSecret(r.configureWebhookEndpoint.secret);
      setUrl('');
    });
  };
  const rotate = () =>
    act(async () => {
      const r = await gql<RotateWebhookSecretData>(ROTATE_WEBHOOK_SECRET);
      setSecret(r.rotateWebhookSecret.secret);
    });
  const redeliver = (id: string) =>
    act(async () => {
      await gql(REDELIVER_WEBHOOK, { id });
      setNotice('Delivery queued again.');
    });

  return (
    <>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <Show when={notice()}>
        <p role="status" class="d-ok">
          {notice()}
        </p>
      </Show>
      <Show when={secret()}>
        <div class="d-card d-secret" role="status">
          <p>
            <strong>Copy this signing secret now.</strong> It is shown only once.
          </p>
          <label for="webhook-secret">Signing secret ({environment()})</label>
          <input id="webhook-secret" readonly value={secret()} />
          <button type="button" onClick={() => setSecret('')}>
            I have stored it
          </button>
        </div>
      </Show>
      <h2>Endpoint</h2>
      <Show
        when={data()?.webhookEndpoint}
        fallback={<p class="d-muted">No endpoint in {environment()} yet.</p>}
      >
        {(ep) => (
          <dl class="d-facts">
            <dt>URL</dt>
            <dd>
              <code>{ep().url}</code>
            </dd>
            <dt>Since</dt>
            <dd>{when(ep().createdAt)}</dd>
            <Show when={ep().previousSecretExpiresAt}>
              <dt>Old secret signs until</dt>
              <dd>{when(ep().previousSecretExpiresAt)}</dd>
            </Show>
          </dl>
        )}
      </Show>
      <form class="d-form" onSubmit={configure}>
        <label for="webhook-url">Endpoint URL (https)</label>
        <input
          id="webhook-url"
          type="url"
          required
          value={url()}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <button type="submit" class="d-primary">
          Save endpoint
        </button>
      </form>
      <Show when={data()?.webhookEndpoint}>
        <button type="button" onClick={rotate}>
          Rotate signing secret
        </button>
      </Show>
      <h2 id="deliveries-h">Deliveries</h2>
      <Show when={data()?.webhookDeliveries.length} fallback={<p class="d-muted">No deliveries yet.</p>}>
        <div class="d-table-wrap">
          <table aria-labelledby="deliveries-h">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Delivery id</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Created</th>
                <th scope="col">Last error</th>
                <th scope="col">
                  <span class="d-sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <For each={data()?.webhookDeliveries}>
                {(d) => (
                  <tr>
                    <td>{d.event}</td>
                    <td>
                      <code>{d.deliveryId}</code>
                    </td>
                    <td>{d.status}</td>
                    <td>{d.attempts}</td>
                    <td>{when(d.createdAt)}</td>
                    <td>{d.lastError ?? '—'}</td>
                    <td>
                      <Show when={d.status === 'failed'}>
                        <button
                          type="button"
                          aria-label={`Redeliver ${d.deliveryId}`}
                          onClick={() => redeliver(d.id)}
                        >
                          Redeliver
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
