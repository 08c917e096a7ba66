// One webhook delivery's attempts (components/WebhookDeliveries.tsx): time, HTTP status, latency, the start
// of the answer, the error and the request body as delivered, newest first, 20 at a time.
import { createEffect, createSignal, on, onMount, Show } from 'solid-js';
import type { WebhookAttemptsQuery, WebhookAttemptsQueryVariables } from '../../graphql/generated';
import { gql, operation } from '../api';
import DOCUMENT from '../graphql/webhooks.graphql?raw';
import { dashLocale, dt } from '../i18n';
import { DATE_LOCALE, ErrorNote } from '../Screen';
import { DataTable } from './DataTable';

const WEBHOOK_ATTEMPTS = operation<WebhookAttemptsQuery, WebhookAttemptsQueryVariables>(
  DOCUMENT,
  'WebhookAttempts',
);

type Attempt = WebhookAttemptsQuery['webhookAttempts']['nodes'][number];

/** Attempt times to the second, in the dashboard's language: the first retries come seconds apart. */
const at = (iso: string): string =>
  `${new Date(iso).toLocaleString(DATE_LOCALE[dashLocale()], {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone: 'UTC',
  })} UTC`;

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
export function WebhookAttempts(props: {
  id: string;
  delivery: { id: string; deliveryId: string; attempts: number };
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
  // the log's refresh keeps this panel (reconciled rows); a new attempt of the delivery loads the list again
  createEffect(
    on(
      () => props.delivery.attempts,
      () => void load(null),
      { defer: true },
    ),
  );
  return (
    <div id={props.id} class="d-attempts" data-testid="webhook-attempts">
      <Show when={nodes().length}>
        <DataTable
          label={dt('wh.attemptsOf', { id: props.delivery.deliveryId })}
          rows={nodes()}
          expanded={(a) => props.bodies.has(a.id)}
          detail={(a) => (
            <section
              id={`body-${a.id}`}
              class="d-request-body"
              aria-label={dt('wh.bodyOf', { at: at(a.attemptedAt) })}
            >
              <p class="d-muted">{dt('wh.bodyNote')}</p>
              {/* focusable: a long body scrolls inside its box, and keyboard users must reach it */}
              <pre data-testid="request-body" tabindex="0">
                {pretty(a.requestBody)}
              </pre>
            </section>
          )}
          columns={[
            { header: dt('wh.col.time'), cell: (a) => at(a.attemptedAt) },
            { header: dt('wh.col.http'), cell: (a) => a.statusCode ?? dt('wh.noAnswer') },
            { header: dt('wh.col.latency'), cell: (a) => `${a.durationMs} ms` },
            {
              header: dt('wh.col.response'),
              cell: (a) =>
                a.responseExcerpt ? <code class="d-excerpt">{excerpt(a.responseExcerpt)}</code> : '—',
            },
            { header: dt('wh.col.error'), cell: (a) => a.error ?? '—' },
            {
              header: dt('wh.col.body'),
              cell: (a) => (
                <button
                  type="button"
                  aria-expanded={props.bodies.has(a.id) ? 'true' : 'false'}
                  aria-controls={`body-${a.id}`}
                  onClick={() => props.toggleBody(a.id)}
                >
                  {dt(props.bodies.has(a.id) ? 'wh.hide' : 'wh.show')}
                  <span class="d-sr">{dt('wh.bodyOfSr', { at: at(a.attemptedAt) })}</span>
                </button>
              ),
            },
          ]}
        />
      </Show>
      <Show when={!loading() && !error() && nodes().length === 0}>
        <p class="d-muted">{dt('wh.noAttempts')}</p>
      </Show>
      <Show when={error()}>{(e) => <ErrorNote error={e()} retry={() => void load(next())} />}</Show>
      <Show when={loading()}>
        <p class="d-loading" role="status">
          {dt('wh.loadingAttempts')}
        </p>
      </Show>
      <Show when={next() && !loading()}>
        <button type="button" onClick={() => void load(next())}>
          {dt('wh.olderAttempts')}
        </button>
      </Show>
    </div>
  );
}
