// "Who asks for what": the workflow's steps in plain words, with done/current markers.
import { For, Show } from 'solid-js';
import type { ProjectionStep, SessionProjection } from '../types';

const CLAIM_LABELS: Record<string, string> = {
  given_name: 'Given name',
  family_name: 'Family name',
  birth_date: 'Date of birth',
  nationality: 'Nationality',
  document_status: 'Document status (checked with the issuer, not shared as data)',
};

/** Unknown claim names still read as words rather than identifiers. */
export function claimLabel(claim: string): string {
  const known = CLAIM_LABELS[claim];
  if (known) return known;
  const words = claim.replace(/[_.-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function stepTitle(step: ProjectionStep): string {
  switch (step.primitive) {
    case 'identify':
      return 'Your identity';
    case 'age_verify':
      return step.threshold ? `That you are ${step.threshold} or older` : 'Your age';
    case 'sign':
      return 'Your signature on documents';
    case 'attestation':
      return 'Your approval of short terms';
  }
}

export function StepList(props: { projection: SessionProjection }) {
  const done = (stage: number) => props.projection.completed_stages.includes(stage);
  const current = (stage: number) =>
    props.projection.status === 'in_progress' && props.projection.current_stage === stage && !done(stage);

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
                <span class="step-tag">Done</span>
              </Show>
              <Show when={current(step.stage)}>
                <span class="step-tag step-tag-now">Now</span>
              </Show>
            </div>
            <Show when={step.primitive === 'identify' && step.claims?.length}>
              <ul class="claims">
                <For each={step.claims}>{(claim) => <li>{claimLabel(claim)}</li>}</For>
              </ul>
            </Show>
            <Show when={step.primitive === 'age_verify'}>
              <p class="step-note">Only a yes or no is shared, not your date of birth.</p>
            </Show>
          </li>
        )}
      </For>
    </ol>
  );
}
