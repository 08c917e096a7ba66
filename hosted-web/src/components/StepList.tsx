// "Who asks for what": the workflow's steps in plain words, with done/current markers, and the step that ended
// a failed or expired session marked as not done (never a success mark for a refused condition, issue 29).
import { For, Show } from 'solid-js';
import { documentFacts } from '../documents';
import { hasMessage, t } from '../i18n';
import type { SignerSession, SignerStep } from '../types';

/** Unknown claim names still read as words rather than identifiers. */
export function claimLabel(claim: string): string {
  const key = `claim.${claim}`;
  if (hasMessage(key)) return t(key);
  const words = claim.replace(/[_.-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function stepTitle(step: SignerStep): string {
  switch (step.primitive) {
    case 'identify':
      return t('steps.identify');
    case 'age_verify':
      return step.threshold ? t('steps.ageThreshold', { threshold: step.threshold }) : t('steps.age');
    case 'sign':
      return t('steps.sign');
    case 'attestation':
      return t('steps.attestation');
  }
}

export function StepList(props: { projection: SignerSession }) {
  const done = (stage: number) => props.projection.completedStages.includes(stage);
  const current = (stage: number) =>
    props.projection.status === 'in_progress' && props.projection.currentStage === stage && !done(stage);
  // the step that ended the session: never marked done, and said in words (issue 29)
  const ended = (stage: number): 'failed' | 'timedOut' | undefined => {
    const { status, failure } = props.projection;
    if (!failure || failure.stage !== stage || done(stage)) return undefined;
    if (status === 'failed') return 'failed';
    return status === 'expired' && failure.window === 'step' ? 'timedOut' : undefined;
  };

  return (
    <ol class="steps" data-testid="steps">
      <For each={props.projection.steps}>
        {(step) => (
          <li
            class="step"
            classList={{ 'step-done': done(step.stage), 'step-current': current(step.stage) }}
            aria-current={current(step.stage) ? 'step' : undefined}
          >
            <div class="step-head">
              <span class="step-title">{stepTitle(step)}</span>
              <Show when={done(step.stage)}>
                <span class="step-tag">{t('steps.done')}</span>
              </Show>
              <Show when={current(step.stage)}>
                <span class="step-tag step-tag-now">{t('steps.now')}</span>
              </Show>
              <Show when={ended(step.stage)}>
                {(how) => (
                  <span class="step-tag step-tag-failed" data-testid="step-not-done">
                    {how() === 'failed' ? t('steps.notDone') : t('steps.timedOut')}
                  </span>
                )}
              </Show>
            </div>
            <Show when={step.primitive === 'identify' && step.claims?.length}>
              <ul class="claims">
                <For each={step.claims}>{(claim) => <li>{claimLabel(claim)}</li>}</For>
              </ul>
            </Show>
            <Show when={step.primitive === 'age_verify'}>
              <p class="step-note">{t('steps.ageNote')}</p>
            </Show>
            <Show when={step.primitive === 'sign' && step.documents?.length}>
              <p class="step-note">{t('steps.signShown')}</p>
              <ul class="claims" data-testid="step-documents">
                <For each={step.documents}>
                  {(d) => (
                    <li>
                      {d.label} <span class="muted">({documentFacts(d)})</span>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
            <Show when={step.primitive === 'attestation'}>
              <p class="step-note" data-testid="step-terms-note">
                {t('steps.termsShown')}
              </p>
            </Show>
          </li>
        )}
      </For>
    </ol>
  );
}
