// The webhook endpoint of the current environment: set its URL (the signing secret is shown once), rotate
// the secret (the old one keeps signing during the overlap), send a test event (sandbox only), and the
// delivery log with attempts and redelivery of failed deliveries (components/WebhookDeliveries.tsx). In the
// dashboard's language (messages/webhooks.ts).
import { createEffect, createResource, createSignal, Match, on, onCleanup, Show, Switch } from 'solid-js';
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
import { TextField } from '../components/Field';
import { SecretOnce } from '../components/SecretOnce';
import { WebhookDeliveries } from '../components/WebhookDeliveries';
import DOCUMENT from '../graphql/webhooks.graphql?raw';
import { dt } from '../i18n';
import { reconciled } from '../reconciled';
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

/** How often the delivery log refreshes itself. */
const POLL_MS = 5_000;

export function Webhooks() {
  // refreshed in place (reconciled): a delivery whose attempts are open stays open, with its panel as it was
  const [data, { refetch }] = createResource(environment, () => gql(WEBHOOKS), { storage: reconciled });
  // the field shows what was typed, else the saved URL (after a save, a reload or an environment switch): a
  // late answer or the log's refresh never overwrites what a person is typing
  const [edit, setEdit] = createSignal<string | undefined>();
  const url = () => edit() ?? data()?.webhookEndpoint?.url ?? '';
  createEffect(on(environment, () => setEdit(undefined), { defer: true }));
  const [secret, setSecret] = createSignal('');
  const action = createAction();
  // the delivery log refreshes itself while the page is visible (deliveries and retries arrive on their own)
  const poll = setInterval(() => {
    if (document.visibilityState === 'visible' && !action.busy() && !data.loading) void refetch();
  }, POLL_MS);
  onCleanup(() => clearInterval(poll));
  const configure = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const r = await gql(CONFIGURE_WEBHOOK, { url: url() });
      setSecret(r.configureWebhookEndpoint.secret);
      await refetch();
      setEdit(undefined);
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
      return dt('wh.requeued');
    });
  const sendTest = () =>
    action.run(async () => {
      const { sendTestWebhook: d } = await gql(SEND_TEST_WEBHOOK);
      await refetch();
      return dt('wh.testQueued', { id: d.deliveryId });
    });
  const refresh = () => action.run(async () => refetch());

  return (
    <>
      <ActionStatus action={action} />
      <Show when={secret()}>
        <SecretOnce
          id="webhook-secret"
          label={dt(`wh.secret.${environment()}`)}
          value={secret()}
          onDone={() => setSecret('')}
        >
          <strong>{dt('wh.copyNow')}</strong>
          {dt('wh.shownOnce')}
        </SecretOnce>
      </Show>
      <h2>{dt('wh.endpoint')}</h2>
      <Show
        when={data()?.webhookEndpoint}
        fallback={<p class="d-muted">{dt('wh.noEndpoint', { in: dt(`env.in.${environment()}`) })}</p>}
      >
        {(ep) => (
          <dl class="d-facts">
            <dt>{dt('wh.url')}</dt>
            <dd>
              <code>{ep().url}</code>
            </dd>
            <dt>{dt('wh.since')}</dt>
            <dd>{when(ep().createdAt)}</dd>
            <Show when={ep().previousSecretExpiresAt}>
              <dt>{dt('wh.oldSecret')}</dt>
              <dd>{when(ep().previousSecretExpiresAt)}</dd>
            </Show>
          </dl>
        )}
      </Show>
      <form class="d-form" onSubmit={configure}>
        <TextField
          id="webhook-url"
          label={dt('wh.endpointUrl')}
          hint={dt(`wh.rule.${environment()}`)}
          type="url"
          required
          value={url()}
          onInput={(e) => setEdit(e.currentTarget.value)}
        />
        <button type="submit" class="d-primary" disabled={action.busy()}>
          {dt('wh.saveEndpoint')}
        </button>
      </form>
      <Show when={data()?.webhookEndpoint}>
        <section class="d-card d-rotate" aria-labelledby="rotate-h" data-testid="rotate-section">
          <h2 id="rotate-h">{dt('wh.signingSecret')}</h2>
          <p class="d-muted">{dt('wh.rotateText')}</p>
          <button type="button" onClick={rotate} disabled={action.busy()}>
            {dt('wh.rotate')}
          </button>
        </section>
      </Show>
      <h2>{dt('wh.testEvent')}</h2>
      <Switch>
        <Match when={environment() === 'production'}>
          <p class="d-muted" data-testid="test-event-note">
            {dt('wh.testProduction')}
          </p>
        </Match>
        <Match when={!data()?.webhookEndpoint}>
          <p class="d-muted" data-testid="test-event-note">
            {dt('wh.testNoEndpoint')}
          </p>
        </Match>
        <Match when={true}>
          <p class="d-muted">
            {dt('wh.testBefore')}
            <code>webhook.test</code>
            {dt('wh.testAfter')}
          </p>
          <button type="button" data-testid="send-test-event" disabled={action.busy()} onClick={sendTest}>
            {dt('wh.sendTest')}
          </button>
        </Match>
      </Switch>
      <WebhookDeliveries
        deliveries={data()?.webhookDeliveries}
        busy={action.busy()}
        refresh={refresh}
        redeliver={redeliver}
      />
    </>
  );
}
