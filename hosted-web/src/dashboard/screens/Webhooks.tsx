// The webhook endpoint of the current environment: set its URL (the signing secret is shown once), rotate
// the secret (the old one keeps signing during the overlap), send a test event (sandbox only), and the
// delivery log with attempts and redelivery of failed deliveries.
import {
  createEffect,
  createMemo,
  createResource,
  createSignal,
  Match,
  on,
  onCleanup,
  onMount,
  Show,
  Switch,
} from 'solid-js';
import type {
  ConfigureWebhookMutation,
  ConfigureWebhookMutationVariables,
  RedeliverWebhookMutation,
  RedeliverWebhookMutationVariables,
  RotateWebhookSecretMutation,
  RotateWebhookSecretMutationVariables,
  SendTestWebhookMutation,
  SendTestWebhookMutationVariables,
  WebhookAttemptsQuery,
  WebhookAttemptsQueryVariables,
  WebhooksQuery,
  WebhooksQueryVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { ActionStatus, createAction } from '../components/action';
import { DataTable } from '../components/DataTable';
import { TextField } from '../components/Field';
import { SecretOnce } from '../components/SecretOnce';
import DOCUMENT from '../graphql/webhooks.graphql?raw';
import { ErrorNote, when } from '../Screen';

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
const WEBHOOK_ATTEMPTS = operation<WebhookAttemptsQuery, WebhookAttemptsQueryVariables>(
  DOCUMENT,
  'WebhookAttempts',
);

/** What the server accepts as an endpoint URL, per environment (server/src/common/ssrf.ts). */
const URL_RULE = {
  sandbox:
    'Sandbox: https:// or http://. A loopback or private address (e.g. http://127.0.0.1:8080/hooks, a ' +
    'receiver on your machine) works only where this service allows private targets, as development ' +
    'setups do; otherwise the host must be public.',
  production: 'Production: https:// only, to a public host (no loopback or private addresses).',
} as const;

/** How often the delivery log refreshes itself. */
const POLL_MS = 5_000;

export function Webhooks() {
  const [data, { refetch }] = createResource(environment, () => gql(WEBHOOKS));
  const [url, setUrl] = createSignal('');
  // the field shows the saved URL (after a save, a reload or an environment switch), ready to be edited
  const savedUrl = createMemo(() => data()?.webhookEndpoint?.url ?? '');
  createEffect(on(savedUrl, (u) => setUrl(u)));
  const [secret, setSecret] = createSignal('');
  const action = createAction();
  // the delivery log refreshes itself while the page is visible (deliveries and retries arrive on their own)
  const poll = setInterval(() => {
    if (document.visibilityState === 'visible' && !action.busy() && !data.loading) void refetch();
  }, POLL_MS);
  onCleanup(() => clearInterval(poll));
  // deliveries (by id) whose attempts are open; kept across refetches of the log
  const [open, setOpen] = createSignal<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((o) => {
      const next = new Set(o);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  // attempts (by id) whose request body is open; kept here, so a refresh of the log (which renders each
  // open delivery's attempts afresh) keeps them open
  const [bodies, setBodies] = createSignal<ReadonlySet<string>>(new Set());
  const toggleBody = (id: string) =>
    setBodies((o) => {
      const next = new Set(o);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const configure = (e: SubmitEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const r = await gql(CONFIGURE_WEBHOOK, { url: url() });
      setSecret(r.configureWebhookEndpoint.secret);
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
          label="Endpoint URL"
          hint={URL_RULE[environment()]}
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
        <section class="d-card d-rotate" aria-labelledby="rotate-h" data-testid="rotate-section">
          <h2 id="rotate-h">Signing secret</h2>
          <p class="d-muted">
            Rotating makes a new secret and shows it once; the old one keeps signing alongside it for a while,
            so you can switch your receiver over without losing deliveries.
          </p>
          <button type="button" onClick={rotate} disabled={action.busy()}>
            Rotate signing secret
          </button>
        </section>
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
          expanded={(d) => open().has(d.id)}
          detail={(d) => (
            <Attempts id={`attempts-${d.id}`} delivery={d} bodies={bodies()} toggleBody={toggleBody} />
          )}
          columns={[
            { header: 'Event', cell: (d) => d.event },
            { header: 'Delivery id', cell: (d) => <code>{d.deliveryId}</code> },
            { header: 'Status', cell: (d) => d.status },
            {
              header: 'Attempts',
              // the count opens the delivery's attempts (the button's text stays the bare count)
              cell: (d) => (
                <Show when={d.attempts > 0} fallback={d.attempts}>
                  <button
                    type="button"
                    class="d-disclosure"
                    aria-expanded={open().has(d.id)}
                    aria-controls={`attempts-${d.id}`}
                    aria-label={`${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'} of ${d.deliveryId}`}
                    onClick={() => toggle(d.id)}
                  >
                    {d.attempts}
                  </button>
                </Show>
              ),
            },
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

type Attempt = WebhookAttemptsQuery['webhookAttempts']['nodes'][number];

/** Attempt times to the second: the first retries come seconds apart. */
const at = (iso: string): string =>
  `${new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' })} UTC`;

/** The server keeps the first 1 KiB of each answer; the log shows its start. */
const EXCERPT_CHARS = 200;
const excerpt = (s: string | null | undefined): string =>
  !s ? '—' : s.length > EXCERPT_CHARS ? `${s.slice(0, EXCERPT_CHARS)}…` : s;

/** The delivered body as the receiver got it, indented for reading (the signed bytes are the compact form). */
const pretty = (body: string): string => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

/**
 * One delivery's attempts, newest first, loaded when opened (20 at a time), with its own loading and error
 * state so a failure here leaves the log usable. Never shows the delivery id: rows of the log are found by it.
 */
function Attempts(props: {
  id: string;
  delivery: { id: string; deliveryId: string };
  /** attempts whose request body is open, and the toggle (held by the screen, see above) */
  bodies: ReadonlySet<string>;
  toggleBody: (attemptId: string) => void;
}) {
  const [nodes, setNodes] = createSignal<Attempt[]>([]);
  const [next, setNext] = createSignal<string | null>(null);
  const [loading, setLoading] = createSignal(false);
  const [error, setError] = createSignal<unknown>(null);
  const load = async (after: string | null) => {
    setLoading(true);
    setError(null);
    try {
      const { webhookAttempts: page } = await gql(WEBHOOK_ATTEMPTS, {
        deliveryEventId: props.delivery.id,
        after,
      });
      setNodes((n) => (after ? [...n, ...page.nodes] : page.nodes));
      setNext(page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };
  onMount(() => void load(null));
  return (
    <div id={props.id} class="d-attempts" data-testid="webhook-attempts">
      <Show when={nodes().length}>
        <DataTable
          label={`Attempts of ${props.delivery.deliveryId}`}
          rows={nodes()}
          expanded={(a) => props.bodies.has(a.id)}
          detail={(a) => (
            <section
              id={`body-${a.id}`}
              class="d-request-body"
              aria-label={`Request body of the attempt at ${at(a.attemptedAt)}`}
            >
              <p class="d-muted">
                Request body as delivered (shown indented; the signature covers the compact bytes sent)
              </p>
              {/* focusable: a long body scrolls inside its box, and keyboard users must reach it */}
              <pre data-testid="request-body" tabindex="0">
                {pretty(a.requestBody)}
              </pre>
            </section>
          )}
          columns={[
            { header: 'Time', cell: (a) => at(a.attemptedAt) },
            { header: 'HTTP status', cell: (a) => a.statusCode ?? 'no answer' },
            { header: 'Latency', cell: (a) => `${a.durationMs} ms` },
            {
              header: 'Response',
              cell: (a) =>
                a.responseExcerpt ? <code class="d-excerpt">{excerpt(a.responseExcerpt)}</code> : '—',
            },
            { header: 'Error', cell: (a) => a.error ?? '—' },
            {
              header: 'Request body',
              cell: (a) => (
                <button
                  type="button"
                  aria-expanded={props.bodies.has(a.id) ? 'true' : 'false'}
                  aria-controls={`body-${a.id}`}
                  onClick={() => props.toggleBody(a.id)}
                >
                  {props.bodies.has(a.id) ? 'Hide' : 'Show'}
                  <span class="d-sr"> request body of the attempt at {at(a.attemptedAt)}</span>
                </button>
              ),
            },
          ]}
        />
      </Show>
      <Show when={!loading() && !error() && nodes().length === 0}>
        <p class="d-muted">No attempts recorded yet.</p>
      </Show>
      <Show when={error()}>{(e) => <ErrorNote error={e()} retry={() => void load(next())} />}</Show>
      <Show when={loading()}>
        <p class="d-loading" role="status">
          Loading attempts…
        </p>
      </Show>
      <Show when={next() && !loading()}>
        <button type="button" onClick={() => void load(next())}>
          Show older attempts
        </button>
      </Show>
    </div>
  );
}
