// A workflow's intended use (ADR 0042): the purpose a wallet shows the person, its language, and the
// registration certificate's intended-use identifier. All empty: the business's default purpose (Relying party
// screen) is sent. The server decides; its refusal (workflow_invalid, param intendedUse.<field>) is shown on
// the field it names.
import { For } from 'solid-js';
import type { IntendedUseFieldsFragment, IntendedUseInput } from '../../graphql/generated';
import { dt } from '../i18n';
import { SelectField, TextField } from './Field';

export interface DraftIntendedUse {
  purpose: string;
  lang: string;
  identifier: string;
}

const LANGS = [
  { value: 'en', label: 'English' },
  { value: 'de', label: 'Deutsch' },
  { value: 'fr', label: 'Français' },
];

export const toDraftUse = (u: IntendedUseFieldsFragment | null | undefined): DraftIntendedUse => ({
  purpose: u?.purpose ?? '',
  lang: u?.lang ?? 'en',
  identifier: u?.identifier ?? '',
});

/** null when nothing is filled in (the business default applies); otherwise as typed, for the server to judge. */
export const toUseInput = (d: DraftIntendedUse): IntendedUseInput | null =>
  !d.purpose.trim() && !d.identifier.trim()
    ? null
    : { purpose: d.purpose, lang: d.lang, identifier: d.identifier.trim() || null };

/** One line for a published revision. */
export const useSummary = (u: IntendedUseFieldsFragment | null | undefined): string =>
  u
    ? dt('use.summary', { lang: u.lang, purpose: u.purpose }) +
      (u.identifier ? dt('use.summaryId', { id: u.identifier }) : '')
    : dt('use.default');

export function IntendedUseFields(props: {
  value: DraftIntendedUse;
  error: (field: 'purpose' | 'lang' | 'identifier') => string | null;
  onChange: (next: DraftIntendedUse) => void;
}) {
  const set = (patch: Partial<DraftIntendedUse>) => props.onChange({ ...props.value, ...patch });
  return (
    <div class="d-form" data-testid="intended-use">
      <TextField
        id="intended-purpose"
        label={dt('use.purpose')}
        hint={dt('use.purposeHint')}
        error={props.error('purpose')}
        maxlength="300"
        value={props.value.purpose}
        onInput={(e) => set({ purpose: e.currentTarget.value })}
      />
      <SelectField
        id="intended-lang"
        label={dt('use.lang')}
        error={props.error('lang')}
        value={props.value.lang}
        onChange={(e) => set({ lang: e.currentTarget.value })}
      >
        <For each={LANGS}>{(l) => <option value={l.value}>{l.label}</option>}</For>
      </SelectField>
      <TextField
        id="intended-identifier"
        label={dt('use.identifier')}
        hint={dt('use.identifierHint')}
        error={props.error('identifier')}
        maxlength="128"
        value={props.value.identifier}
        onInput={(e) => set({ identifier: e.currentTarget.value })}
      />
    </div>
  );
}
