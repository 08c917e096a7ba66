// What the person is asked to confirm in a wallet step, shown before anything is shared: the age threshold,
// the documents to sign (each shown inline by DocumentViewer, with size, type, SHA-256 and download), or the
// terms to approve (full text and SHA-256). The wallet receives the same hashes in the request's transaction
// data and signs them.
import { For, Match, Switch } from 'solid-js';
import { t } from '../i18n';
import type { SignerSession, SignerStep } from '../types';
import { DocumentViewer } from '../viewer/DocumentViewer';

export function stepHeading(step: SignerStep): string {
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

export function StepContent(props: {
  session: SignerSession;
  step: SignerStep;
  /** sign: positions of the documents shown to their end so far, and the report of one more. */
  shown?: readonly number[];
  onShownToEnd?: (position: number) => void;
}) {
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
        <div class="documents" data-testid="documents">
          <For each={props.step.documents ?? []}>
            {(doc) => (
              <DocumentViewer
                sessionId={props.session.id}
                doc={doc}
                shown={props.shown?.includes(doc.position) ?? false}
                onShownToEnd={(position) => props.onShownToEnd?.(position)}
              />
            )}
          </For>
        </div>
        <p class="muted">{t('step.signNotQes')}</p>
      </Match>
      <Match when={props.step.primitive === 'attestation'}>
        <p>{t('step.termsRead')}</p>
        <blockquote class="terms" data-testid="terms">
          {props.step.terms}
        </blockquote>
        <p class="hash muted">
          SHA-256: <code data-testid="terms-sha256">{props.step.termsSha256}</code>
        </p>
      </Match>
    </Switch>
  );
}
