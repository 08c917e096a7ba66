// Every route renders inside a Screen: its own heading, loading state and error boundary, so one failing
// screen never blanks the shell. Errors show the copy from the one map in errors.ts.
import { ErrorBoundary, type JSX, Suspense } from 'solid-js';
import { DashError } from './api';
import { errorCopy, hasOwnCopy } from './errors';
import { dashLocale, dt } from './i18n';

/** The date format's locale per dashboard language (en keeps en-GB, as before issue 29). */
export const DATE_LOCALE = { en: 'en-GB', de: 'de-DE', fr: 'fr-FR' } as const;

/** Codes whose server message says what exactly is wrong (e.g. "Step 3: attestation needs terms."). */
const DETAILED = new Set(['validation_failed', 'workflow_invalid', 'unsupported_media_type']);

export function ErrorNote(props: { error: unknown; retry?: () => void; words?: string | null }) {
  const code = () => (props.error instanceof DashError ? props.error.code : 'unknown');
  const detail = () => (props.error instanceof DashError ? props.error.detail : undefined);
  return (
    <div class="d-error" role="alert">
      <p>{errorCopy(code(), detail())}</p>
      {/* which field is wrong, or what a code without words of its own means: only the server's detail says */}
      {props.words ? (
        <p data-testid="error-detail">{props.words}</p>
      ) : (DETAILED.has(code()) || !hasOwnCopy(code())) &&
        detail() &&
        detail() !== errorCopy(code(), detail()) ? (
        <p data-testid="error-detail">{detail()}</p>
      ) : null}
      <p class="d-error-code">{dt('error.code', { code: code() })}</p>
      {props.error instanceof DashError && props.error.requestId ? (
        <p>{dt('error.requestId', { id: props.error.requestId })}</p>
      ) : null}
      {props.retry && (
        <button type="button" onClick={() => props.retry?.()}>
          {dt('error.retry')}
        </button>
      )}
    </div>
  );
}

export function Screen(props: { title: string; children: JSX.Element }) {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title" tabindex="-1">
        {props.title}
      </h1>
      <ErrorBoundary fallback={(err, reset) => <ErrorNote error={err} retry={reset} />}>
        <Suspense
          fallback={
            <p class="d-loading" role="status">
              {dt('shell.loading')}
            </p>
          }
        >
          {props.children}
        </Suspense>
      </ErrorBoundary>
    </section>
  );
}

export const when = (iso: string | null | undefined): string =>
  iso
    ? `${new Date(iso).toLocaleString(DATE_LOCALE[dashLocale()], {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'UTC',
      })} UTC`
    : '—';
