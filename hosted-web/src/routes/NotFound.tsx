// The view for any path that is not a session link.
import { createEffect } from 'solid-js';
import { LanguageSwitcher } from '../components/LanguageSwitcher';
import { t } from '../i18n';

export function NotFound() {
  createEffect(() => {
    document.title = t('page.notFoundTitle');
  });
  return (
    <main class="page">
      <LanguageSwitcher />
      <section class="card" data-testid="not-found">
        <h1>{t('page.notFoundTitle')}</h1>
        <p>{t('page.notFoundText')}</p>
      </section>
    </main>
  );
}
