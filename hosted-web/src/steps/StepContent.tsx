// What the person is asked to confirm in a wallet step, shown before anything is shared: the age threshold,
// the documents to sign (label, size, type, SHA-256, download), or the terms to approve (full text and
// SHA-256). The wallet receives the same hashes in the request's transaction data and signs them.
import { For, Match, Switch } from 'solid-js';
import { documentUrl } from '../api';
import { locale, t } from '../i18n';
import type { ProjectionDocument, ProjectionStep, SessionProjection } from '../types';

export function stepHeading(step: ProjectionStep): string {
  switch (step.primitive) {
    case 'identify':
      return t('step.headIdentify');
    case 'age_verify':
      return t('step.headAge');
    case 'sign':
      return step.documents?.length === 1 ? t('step.headSignOne') : t('step.headSignMany');
    case 'attestation':
      return t('step.headAttestation');
  }
}

function formatSize(bytes: number): string {
  const sizeFormat = new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 });
  if (bytes < 1024) return t('step.bytes', { n: bytes });
  if (bytes < 1024 * 1024) return `${sizeFormat.format(bytes / 1024)} KB`;
  return `${sizeFormat.format(bytes / 1024 / 1024)} MB`;
}

const typeLabel = (contentType: string): string =>
  ({
    'application/pdf': 'PDF',
    'text/plain': t('step.typeText'),
    'image/png': t('step.typePng'),
    'image/jpeg': t('step.typeJpeg'),
  })[contentType] ?? contentType;

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
        ({typeLabel(props.doc.content_type)}, {formatSize(props.doc.size)})
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
          {t('step.ageAsk', { business: business(), threshold: props.step.threshold ?? '' })}
        </p>
      </Match>
      <Match when={props.step.primitive === 'sign'}>
        <p>{t('step.signRead')}</p>
        <ul class="documents" data-testid="documents">
          <For each={props.step.documents ?? []}>
            {(doc) => <DocumentItem session={props.session} doc={doc} />}
          </For>
        </ul>
        <p class="muted">{t('step.signNotQes')}</p>
      </Match>
      <Match when={props.step.primitive === 'attestation'}>
        <p>{t('step.termsRead')}</p>
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
