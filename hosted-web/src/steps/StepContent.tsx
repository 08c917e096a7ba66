// What the person is asked to confirm in a wallet step, shown before anything is shared: the age threshold,
// the documents to sign (label, size, type, SHA-256, download), or the terms to approve (full text and
// SHA-256). The wallet receives the same hashes in the request's transaction data and signs them.
import { For, Match, Switch } from 'solid-js';
import { documentUrl } from '../api';
import type { ProjectionDocument, ProjectionStep, SessionProjection } from '../types';

export function stepHeading(step: ProjectionStep): string {
  switch (step.primitive) {
    case 'identify':
      return 'Share your identity';
    case 'age_verify':
      return 'Confirm your age';
    case 'sign':
      return step.documents?.length === 1 ? 'Sign this document' : 'Sign these documents';
    case 'attestation':
      return 'Approve these terms';
  }
}

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${sizeFormat.format(bytes / 1024)} KB`;
  return `${sizeFormat.format(bytes / 1024 / 1024)} MB`;
}

const TYPE_LABELS: Record<string, string> = {
  'application/pdf': 'PDF',
  'text/plain': 'Text',
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
};

function DocumentItem(props: { session: SessionProjection; doc: ProjectionDocument }) {
  return (
    <li class="document" data-testid={`document-${props.doc.position}`}>
      <a
        href={documentUrl(props.session.id, props.doc.position)}
        download={props.doc.label}
        data-testid="document-download"
      >
        {props.doc.label}
      </a>{' '}
      <span class="muted">
        ({TYPE_LABELS[props.doc.content_type] ?? props.doc.content_type}, {formatSize(props.doc.size)})
      </span>
      <div class="hash">
        SHA-256: <code data-testid="document-sha256">{props.doc.sha256}</code>
      </div>
    </li>
  );
}

export function StepContent(props: { session: SessionProjection; step: ProjectionStep }) {
  const business = () => props.session.business.name;
  return (
    <Switch>
      <Match when={props.step.primitive === 'age_verify'}>
        <p data-testid="age-threshold">
          {business()} asks whether you are <strong>{props.step.threshold} or older</strong>. It receives only
          yes or no, never your date of birth.
        </p>
      </Match>
      <Match when={props.step.primitive === 'sign'}>
        <p>
          Read the documents below. Your wallet signs exactly these files, identified by their SHA-256
          fingerprints; they cannot be changed afterwards.
        </p>
        <ul class="documents" data-testid="documents">
          <For each={props.step.documents ?? []}>
            {(doc) => <DocumentItem session={props.session} doc={doc} />}
          </For>
        </ul>
        <p class="muted">
          This is an electronic signature made with the key in your wallet. It is not a qualified electronic
          signature (QES).
        </p>
      </Match>
      <Match when={props.step.primitive === 'attestation'}>
        <p>Read the terms below. Your wallet signs your approval of exactly this text.</p>
        <blockquote class="terms" data-testid="terms">
          {props.step.terms}
        </blockquote>
        <p class="hash muted">
          SHA-256: <code data-testid="terms-sha256">{props.step.terms_sha256}</code>
        </p>
      </Match>
    </Switch>
  );
}
