// The dashboard's language switch (a labelled select): English, Deutsch, Français, each named in itself.
import { For } from 'solid-js';
import { DASH_LOCALE_NAMES, type DashLocale, dashLocale, dt, setDashLocale } from '../i18n';

export function DashLanguage(props: { id: string; class?: string }) {
  return (
    <label class={props.class ?? 'd-lang'} for={props.id}>
      <span>{dt('shell.language')}</span>
      <select
        id={props.id}
        value={dashLocale()}
        onChange={(e) => setDashLocale(e.currentTarget.value as DashLocale)}
      >
        <For each={Object.entries(DASH_LOCALE_NAMES)}>
          {([code, name]) => (
            <option value={code} lang={code}>
              {name}
            </option>
          )}
        </For>
      </select>
    </label>
  );
}
