// The same-device redirect back from a wallet (OpenID4VP 1.0 §8.2, issue 26, ADR 0050): /s/{id}/return with
// the response_code in the fragment (never sent to the server by the browser itself, never in a Referer). The
// page presents the code once with its binding cookie; the session's own browser goes on to the session view
// (the step completed at the wallet's POST), another browser reads why nothing is shown.
import { createEffect, createSignal, Match, onMount, Switch } from 'solid-js';
import { ApiError } from '../api-error';
import { ErrorAlert } from '../components/ErrorAlert';
import { LanguageSwitcher } from '../components/LanguageSwitcher';
import { Loading } from '../components/Loading';
import { toUserError, type UserError } from '../errors';
import { t } from '../i18n';

/** The session id of a return path `/s/{id}/return`, or undefined. */
export function returnSessionIdFromPath(pathname: string): string | undefined {
  const match = /^\/s\/([^/]+)\/return\/?$/.exec(pathname);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

async function presentCode(id: string, code: string | null): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`/t/sessions/${encodeURIComponent(id)}/wallet-redirect`, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ response_code: code }),
    });
  } catch {
    throw new ApiError('network_error', 0);
  }
  if (res.ok) return;
  const problem = (await res.json().catch(() => ({}))) as { code?: string; request_id?: string };
  throw new ApiError(problem.code ?? 'internal_error', res.status, problem.request_id);
}

export function WalletReturn(props: { id: string }) {
  const [error, setError] = createSignal<UserError | undefined>();
  const [used, setUsed] = createSignal(false);
  const sessionHref = () => `/s/${encodeURIComponent(props.id)}`;
  createEffect(() => {
    document.title = t('return.title');
  });
  onMount(async () => {
    const code = new URLSearchParams(location.hash.slice(1)).get('response_code');
    history.replaceState(null, '', location.pathname); // the code is single-use: keep it out of history
    try {
      await presentCode(props.id, code);
      location.replace(sessionHref());
    } catch (err) {
      if (err instanceof ApiError && err.code === 'request_not_found') setUsed(true);
      else setError(toUserError(err));
    }
  });
  return (
    <main class="page">
      <LanguageSwitcher />
      <section class="card" data-testid="wallet-return">
        <h1>{t('return.title')}</h1>
        <Switch fallback={<Loading label={t('return.checking')} />}>
          <Match when={error()}>{(e) => <ErrorAlert error={e()} />}</Match>
          <Match when={used()}>
            <p data-testid="return-link-used">{t('return.linkUsed')}</p>
            <a class="button" href={sessionHref()}>
              {t('return.openSession')}
            </a>
          </Match>
        </Switch>
      </section>
    </main>
  );
}
