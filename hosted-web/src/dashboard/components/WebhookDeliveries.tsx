// The webhook delivery log (screens/Webhooks.tsx): event, delivery id, status, attempts (a count that opens
// the delivery's attempts, components/WebhookAttempts.tsx), created, last error, and "Redeliver" for a failed
// delivery. Which deliveries and request bodies are open is kept here, so a refresh of the log keeps them open.
import { createSignal, Show } from 'solid-js';
import type { WebhooksQuery } from '../../graphql/generated';
import { dt } from '../i18n';
import { when } from '../Screen';
import { DataTable } from './DataTable';
import { WebhookAttempts } from './WebhookAttempts';

type Delivery = WebhooksQuery['webhookDeliveries'][number];

/** A set with `id` added, or removed when it was there. */
const flip = (set: ReadonlySet<string>, id: string): ReadonlySet<string> => {
  const next = new Set(set);
  if (!next.delete(id)) next.add(id);
  return next;
};

export function WebhookDeliveries(props: {
  deliveries: Delivery[] | undefined;
  busy: boolean;
  refresh: () => void;
  redeliver: (id: string) => void;
}) {
  // deliveries (by id) whose attempts are open, and attempts (by id) whose request body is open
  const [open, setOpen] = createSignal<ReadonlySet<string>>(new Set());
  const toggle = (id: string) => setOpen((o) => flip(o, id));
  const [bodies, setBodies] = createSignal<ReadonlySet<string>>(new Set());
  const toggleBody = (id: string) => setBodies((o) => flip(o, id));
  return (
    <>
      <div class="d-heading-row">
        <h2 id="deliveries-h">{dt('wh.deliveries')}</h2>
        <button type="button" onClick={() => props.refresh()} disabled={props.busy}>
          {dt('wh.refresh')}
        </button>
      </div>
      <Show when={props.deliveries?.length} fallback={<p class="d-muted">{dt('wh.noDeliveries')}</p>}>
        <DataTable
          labelledby="deliveries-h"
          rows={props.deliveries}
          expanded={(d) => open().has(d.id)}
          detail={(d) => (
            <WebhookAttempts id={`attempts-${d.id}`} delivery={d} bodies={bodies()} toggleBody={toggleBody} />
          )}
          columns={[
            { header: dt('wh.col.event'), cell: (d) => d.event },
            { header: dt('wh.col.deliveryId'), cell: (d) => <code>{d.deliveryId}</code> },
            { header: dt('wh.col.status'), cell: (d) => dt(`wh.status.${d.status}`) },
            {
              header: dt('wh.col.attempts'),
              // the count opens the delivery's attempts (the button's text stays the bare count)
              cell: (d) => (
                <Show when={d.attempts > 0} fallback={d.attempts}>
                  <button
                    type="button"
                    class="d-disclosure"
                    aria-expanded={open().has(d.id)}
                    aria-controls={`attempts-${d.id}`}
                    aria-label={dt(d.attempts === 1 ? 'wh.attemptsOfOne' : 'wh.attemptsOfMany', {
                      n: String(d.attempts),
                      id: d.deliveryId,
                    })}
                    onClick={() => toggle(d.id)}
                  >
                    {d.attempts}
                  </button>
                </Show>
              ),
            },
            { header: dt('wh.col.created'), cell: (d) => when(d.createdAt) },
            { header: dt('wh.col.lastError'), cell: (d) => d.lastError ?? '—' },
            {
              header: dt('wh.col.actions'),
              srOnly: true,
              cell: (d) => (
                <Show when={d.status === 'failed'}>
                  <button
                    type="button"
                    aria-label={dt('wh.redeliverLabel', { id: d.deliveryId })}
                    onClick={() => props.redeliver(d.id)}
                  >
                    {dt('wh.redeliver')}
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
