// The language switcher: a native select, so it works by keyboard and screen reader without extra code.
import { For } from 'solid-js';
import { CATALOGUES, LOCALE_NAMES, type Locale, locale, setLocale, t } from '../i18n';

export function LanguageSwitcher() {
  return (
    <div class="lang-switch">
      <label for="lang-select">{t('lang.label')}</label>
      <select
        id="lang-select"
        data-testid="language"
        value={locale()}
        onChange={(e) => setLocale(e.currentTarget.value as Locale)}
      >
        <For each={Object.keys(CATALOGUES) as Locale[]}>
          {(l) => (
            <option value={l} lang={l}>
              {LOCALE_NAMES[l]}
            </option>
          )}
        </For>
      </select>
    </div>
  );
}
