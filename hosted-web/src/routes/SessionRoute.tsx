// Route /s/{id}: opens the link (binding cookie), which answers the session (GraphQL signerSession, ADR 0062) with its own loading state and error boundary. Later updates (after
// actions, and polling) replace the loaded value in place, so the loading state only shows for the first load.
import { createResource, ErrorBoundary, Show, Suspense } from 'solid-js';
import { ApiError, openSession } from '../api';
import { ErrorAlert } from '../components/ErrorAlert';
import { LanguageSwitcher } from '../components/LanguageSwitcher';
import { Loading } from '../components/Loading';
import { toUserError } from '../errors';
import { t } from '../i18n';
import { SessionView } from './SessionView';

export function SessionRoute(props: { id: string }) {
  const [projection, { mutate, refetch }] = createResource(
    () => props.id,
    async (id) => {
      // opening the link gives this browser its binding cookie, which authorises the read it carries
      return openSession(id);
    },
  );

  return (
    <main class="page">
      <LanguageSwitcher />
      <ErrorBoundary
        fallback={(err, reset) => (
          <section class="card">
            <h1>{t('page.cannotOpen')}</h1>
            <ErrorAlert error={toUserError(err)} />
            <Show when={!(err instanceof ApiError && err.code === 'not_found')}>
              <button
                type="button"
                class="button"
                data-testid="retry"
                onClick={() => {
                  refetch();
                  reset();
                }}
              >
                {t('page.tryAgain')}
              </button>
            </Show>
          </section>
        )}
      >
        <Suspense fallback={<Loading label={t('page.loading')} />}>
          <Show when={projection()}>
            {(p) => <SessionView projection={p()} onProjection={(next) => mutate(() => next)} />}
          </Show>
        </Suspense>
      </ErrorBoundary>
    </main>
  );
}
