// The webhook endpoint of the current environment: set its URL (the signing secret is shown once), rotate
// the secret (the old one keeps signing during the overlap), send a test event (sandbox only), and the
// delivery log with attempts and redelivery of failed deliveries.
import { createResource, createSignal, Match, Show, Switch } from 'solid-js';
import type {
  ConfigureWebhookMutation,
  ConfigureWebhookMutationVariables,
  RedeliverWebhookMutation,
  RedeliverWebhookMutationVariables,
  RotateWebhookSecretMutation,
  RotateWebhookSecretMutationVariables,
  SendTestWebhookMutation,
  SendTestWebhookMutationVariables,
  WebhooksQuery,
  WebhooksQueryVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { DataTable } from '../components/DataTable';
import { TextField } from '../components/Field';
import { SecretOnce } from '../components/SecretOnce';
import DOCUMENT from '../graphql/webhooks.graphql?raw';
import { when } from '../Screen';

const WEBHOOKS = operation<WebhooksQuery, WebhooksQueryVariables>(DOCUMENT, 'Webhooks');
const CONFIGURE_WEBHOOK = operation<ConfigureWebhookMutation, ConfigureWebhookMutationVariables>(
  DOCUMENT,
  'ConfigureWebhook',
);
const ROTATE_WEBHOOK_SECRET = operation<RotateWebhookSecretMutation, RotateWebhookSecretMutationVariables>(
  DOCUMENT,
  'RotateWebhookSecret',
);
const REDELIVER_WEBHOOK = operation<RedeliverWebhookMutation, RedeliverWebhookMutationVariables>(
  DOCUMENT,
  'RedeliverWebhook',
);
const SEND_TEST_WEBHOOK = operation<SendTestWebhookMutation, SendTestWebhookMutationVariables>(
  DOCUMENT,
  'SendTestWebhook',
);

export function Webhooks() {
  const [data, { refetch }] = createResource(environment, () => gql(WEBHOOKS));
  const [url, setUrl] = createSignal('');
  const [secret, setSecret] = createSignal('');
  const action = createAction();

  const configure = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const r = await gql(CONFIGURE_WEBHOOK, { url: url() });
      setSecret(r.configureWebhookEndpoint.secret);
      setUrl('');
      await refetch();
    });
  };
  const rotate = () =>
    action.run(async () => {
      setSecret((await gql(ROTATE_WEBHOOK_SECRET)).rotateWebhookSecret.secret);
      await refetch();
    });
  const redeliver = (id: string) =>
    action.run(async () => {
      await gql(REDELIVER_WEBHOOK, { id });
      await refetch();
      return 'Delivery queued again.';
    });
  const sendTest = () =>
    action.run(async () => {
      const { sendTestWebhook: d } = await gql(SEND_TEST_WEBHOOK);
      await refetch();
      return `Test event queued as delivery ${d.deliveryId}; it is in the log below.`;
    });
  const refresh = () => action.run(async () => refetch());

  return (
    <>
      <ActionStatus action={action} />
      <Show when={secret()}>
        <SecretOnce
          id="webhook-secret"
          label={`Signing secret (${environment()})`}
          value={secret()}
          onDone={() => setSecret('')}
        >
          <strong>Copy this signing secret now.</strong> It is shown only once.
        </SecretOnce>
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
        <TextField
          id="webhook-url"
          label="Endpoint URL (https)"
          type="url"
          required
          value={url()}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <button type="submit" class="d-primary" disabled={action.busy()}>
          Save endpoint
        </button>
      </form>
      <Show when={data()?.webhookEndpoint}>
        <button type="button" onClick={rotate}>
          Rotate signing secret
        </button>
      </Show>
      <h2>Test event</h2>
      <Switch>
        <Match when={environment() === 'production'}>
          <p class="d-muted" data-testid="test-event-note">
            Test events are sent from the sandbox only: every production delivery is a live event your systems
            act on. Switch to the sandbox to test your receiver.
          </p>
        </Match>
        <Match when={!data()?.webhookEndpoint}>
          <p class="d-muted" data-testid="test-event-note">
            Save an endpoint first, then send a test event to it from here.
          </p>
        </Match>
        <Match when={true}>
          <p class="d-muted">
            Sends a signed <code>webhook.test</code> event, not tied to any session, to the endpoint above, so
            you can check that your receiver answers and verifies the signature.
          </p>
          <button type="button" data-testid="send-test-event" disabled={action.busy()} onClick={sendTest}>
            Send test event
          </button>
        </Match>
      </Switch>
      <div class="d-heading-row">
        <h2 id="deliveries-h">Deliveries</h2>
        <button type="button" onClick={refresh} disabled={action.busy()}>
          Refresh log
        </button>
      </div>
      <Show when={data()?.webhookDeliveries.length} fallback={<p class="d-muted">No deliveries yet.</p>}>
        <DataTable
          labelledby="deliveries-h"
          rows={data()?.webhookDeliveries}
          columns={[
            { header: 'Event', cell: (d) => d.event },
            { header: 'Delivery id', cell: (d) => <code>{d.deliveryId}</code> },
            { header: 'Status', cell: (d) => d.status },
            { header: 'Attempts', cell: (d) => d.attempts },
            { header: 'Created', cell: (d) => when(d.createdAt) },
            { header: 'Last error', cell: (d) => d.lastError ?? '—' },
            {
              header: 'Actions',
              srOnly: true,
              cell: (d) => (
                <Show when={d.status === 'failed'}>
                  <button
                    type="button"
                    aria-label={`Redeliver ${d.deliveryId}`}
                    onClick={() => redeliver(d.id)}
                  >
                    Redeliver
                  </button>
                </Show>
              ),
            },
          ]}
        />
      </Show>
    </>
  );
}
