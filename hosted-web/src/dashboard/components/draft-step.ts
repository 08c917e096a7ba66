// A workflow step as the editor holds it (screens/Workflows.tsx): text fields stay strings until saved, so a
// half-typed number is never lost; converted from the server's step and back to its input, and summarised
// (in the dashboard's language, messages/workflows.ts).
import type {
  Primitive,
  WorkflowStepFieldsFragment as WorkflowStep,
  WorkflowStepInput,
} from '../../graphql/generated';
import { dt } from '../i18n';
import { type DraftCondition, hasConditions, toConditionInput, toDraftCondition } from './condition-draft';

/** The primitive's name in the chosen language ("Age check"), for step headings and revisions. */
export const primitiveLabel = (p: Primitive): string => dt(`wf.primitive.${p}`);

export const wordCount = (s: string): number => s.split(/\s+/).filter(Boolean).length;

/** The names in a comma-separated list, trimmed, empty ones left out. */
export const claimList = (s: string): string[] =>
  s
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);

/** A step as edited: text fields stay strings until saved, so a half-typed number is never lost. */
export interface DraftStep {
  primitive: Primitive;
  claims: string;
  threshold: string;
  documents: string;
  terms: string;
  gateAfter: boolean;
  /** identify and age_verify: conditions on the result (components/StepConditions.tsx). */
  conditions: DraftCondition[];
  /** ADR 0026: anyone may present this step (holder "any"); otherwise the person of step 1. */
  anyHolder: boolean;
  /** ADR 0036: the routes whose issuer trust may validate the step; empty: every available one. */
  routes: string[];
}

export const toDraft = (s: WorkflowStep): DraftStep => ({
  primitive: s.primitive,
  claims: (s.claims ?? []).join(', '),
  threshold: s.threshold == null ? '18' : String(s.threshold),
  documents: s.documents == null ? '1' : String(s.documents),
  terms: s.terms ?? '',
  gateAfter: s.gateAfter,
  conditions: s.conditions.map(toDraftCondition),
  anyHolder: s.holder === 'any',
  routes: s.routes ?? [],
});

export const blank = (primitive: Primitive): DraftStep => ({
  primitive,
  claims: primitive === 'identify' ? 'given_name, family_name' : '',
  threshold: '18',
  documents: '1',
  terms: '',
  gateAfter: false,
  conditions: [],
  anyHolder: false,
  routes: [],
});

/** Only the fields of the step's primitive go to the server; numbers are sent as typed (it validates them). */
export const toInput = (s: DraftStep): WorkflowStepInput => {
  const base = {
    primitive: s.primitive,
    gateAfter: s.gateAfter,
    ...(hasConditions(s.primitive) && s.conditions.length
      ? { conditions: s.conditions.map(toConditionInput) }
      : {}),
    ...(s.anyHolder ? { holder: 'any' as const } : {}),
    ...(s.routes.length ? { routes: s.routes } : {}),
  };
  switch (s.primitive) {
    case 'identify':
      return {
        ...base,
        claims: claimList(s.claims),
      };
    case 'age_verify':
      return { ...base, threshold: Number.parseInt(s.threshold, 10) };
    case 'sign':
      return { ...base, documents: Number.parseInt(s.documents, 10) };
    case 'attestation':
      return { ...base, terms: s.terms };
  }
};

export const summary = (s: WorkflowStep): string => {
  switch (s.primitive) {
    case 'identify':
      return dt('wf.sum.claims', { claims: (s.claims ?? []).join(', ') });
    case 'age_verify':
      return dt('wf.sum.age', { n: String(s.threshold) });
    case 'sign':
      return dt('wf.sum.documents', { n: String(s.documents) });
    case 'attestation':
      return dt('wf.sum.terms', { n: String(wordCount(s.terms ?? '')) });
  }
};
