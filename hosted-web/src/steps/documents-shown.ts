// A sign step's documents shown to their end (IdentifyStep): reported to the server as the person reaches each
// end, and retried on a network failure; the wallet is offered once every document is recorded. A reload starts
// from what the server recorded (ADR 0029).
import { createSignal, onCleanup } from 'solid-js';
import { reportDocumentShown } from '../api';
import type { SignerSession, SignerStep } from '../types';

/** `props` is read lazily (a component's reactive props), as the step's own code read them. */
export function createDocumentsShown(props: { session: SignerSession; step: SignerStep }) {
  const [shown, setShown] = createSignal<readonly number[]>(
    (props.step.documents ?? []).filter((d) => d.shownToEnd).map((d) => d.position),
  );
  const reporting = new Set<number>();
  let retry: ReturnType<typeof setTimeout> | undefined;
  onCleanup(() => clearTimeout(retry));
  const onShownToEnd = (position: number, attempt = 0) => {
    if (shown().includes(position) || reporting.has(position)) return;
    reporting.add(position);
    reportDocumentShown(props.session.id, position)
      .then((r) => setShown(r.shown_to_end))
      .catch(() => {
        // not recorded (network): tried again a few times, and again whenever the end comes back into view
        if (attempt < 3) retry = setTimeout(() => onShownToEnd(position, attempt + 1), 2000 * (attempt + 1));
      })
      .finally(() => reporting.delete(position));
  };
  const allShown = () =>
    props.step.primitive !== 'sign' ||
    (props.step.documents ?? []).every((d) => shown().includes(d.position));
  return { shown, onShownToEnd, allShown };
}
