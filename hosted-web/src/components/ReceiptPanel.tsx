// The signer's record of a session, shown to the bound browser once a step has completed: the receipt PDF
// (partial until the session completed), the signed originals with their hashes, the deadline of online
// access, the emailed receipt with its six-digit code (countdown, resend: ReceiptEmail), and closing online
// access (CloseAccess).

import { createResource, createSignal, For, Match, onCleanup, Show, Switch } from 'solid-js';
import { formatSize } from '../documents';
import { toUserError, type UserError } from '../errors';
import { formatDateTime as formatDate, locale, t } from '../i18n';
import { getSignerReceipt, type SignerReceipt } from '../receipt';
import { CloseAccess } from './CloseAccess';
import { ErrorAlert } from './ErrorAlert';
import { ReceiptEmail } from './ReceiptEmail';
import { browserTimeZone } from './receipt-times';

/** The receipt PDF written in this page's language and the browser's time zone (ADR 0027). */
function receiptHref(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}lang=${locale()}&tz=${encodeURIComponent(browserTimeZone())}`;
}

// file sizes one way per language, as the step list and the viewer write them (issue 29)
const kb = formatSize;

export function ReceiptPanel(props: { sessionId: string; version: string }) {
  const [receipt, { mutate, refetch }] = createResource(
    () => `${props.sessionId}|${props.version}`,
    () => getSignerReceipt(props.sessionId),
  );
  const [error, setError] = createSignal<UserError>();
  const [busy, setBusy] = createSignal(false);
  const [now, setNow] = createSignal(Date.now());
  const tick = setInterval(() => setNow(Date.now()), 1000);
  onCleanup(() => clearInterval(tick));
  // when the last answer arrived (the tick may be up to a second old by then)
  const [receivedAt, setReceivedAt] = createSignal(Date.now());
  const remaining = (until: string | null | undefined, cap: number) =>
    until ? Math.min(Date.parse(until) - now(), cap - (now() - receivedAt())) : 0;

  const act = async (action: () => Promise<SignerReceipt>) => {
    if (busy()) return;
    setBusy(true);
    setError(undefined);
    try {
      const next = await action();
      const at = Date.now();
      setNow(at);
      setReceivedAt(at);
      mutate(next);
    } catch (e) {
      setError(toUserError(e));
      void refetch();
    } finally {
      setBusy(false);
    }
  };

  // after a download, re-read so the close-access warning knows about it; the server records the download
  // once the PDF is rendered, which may take longer than the first look: look again a few times until it does
  let downloadCheck: ReturnType<typeof setTimeout> | undefined;
  onCleanup(() => clearTimeout(downloadCheck));
  const afterDownload = (attempt = 0) => {
    clearTimeout(downloadCheck);
    downloadCheck = setTimeout(
      async () => {
        const next = await refetch();
        if (!next?.pdfDownloaded && attempt < 4) afterDownload(attempt + 1);
      },
      1500 * (attempt + 1),
    );
  };

  return (
    <section class="card receipt" aria-labelledby="receipt-heading" data-testid="receipt-panel">
      <h2 id="receipt-heading">{t('receipt.title')}</h2>
      <Show when={receipt.error}>
        <ErrorAlert error={toUserError(receipt.error)} />
      </Show>
      {/* latest: a re-read keeps the record on screen instead of suspending it */}
      <Show when={receipt.latest}>
        {(r) => (
          <Switch>
            <Match when={r().access === 'closed'}>
              <p data-testid="access-closed">{t('receipt.closedText')}</p>
            </Match>
            <Match when={r().access === 'ended'}>
              <p data-testid="access-ended">
                <time datetime={r().accessUntil ?? ''}>
                  {t('receipt.endedText', { date: formatDate(r().accessUntil ?? '') })}
                </time>
              </p>
            </Match>
            <Match when={r().access === 'open'}>
              <Show when={error()}>{(e) => <ErrorAlert error={e()} />}</Show>
              <p>
                {r().partial
                  ? t('receipt.partial', { done: r().completedSteps, total: r().totalSteps })
                  : t('receipt.full')}{' '}
                {t('receipt.notSignature')}
                <Show when={r().environment === 'sandbox'}> {t('receipt.sandbox')}</Show>
              </p>
              <p>
                <a
                  class="button"
                  href={receiptHref(r().receiptUrl)}
                  download=""
                  data-testid="download-receipt"
                  onClick={() => afterDownload()}
                >
                  {r().partial ? t('receipt.downloadPartial') : t('receipt.download')}
                </a>
              </p>
              <Show when={r().originals.length > 0}>
                <h3>{t('receipt.signedDocs')}</h3>
                <ul class="documents" data-testid="originals">
                  <For each={r().originals}>
                    {(o) => (
                      <li class="document">
                        <a href={o.url} download="" data-testid="original-link">
                          {o.label}
                        </a>{' '}
                        <span class="muted">({kb(o.size)})</span>
                        <div class="hash">
                          SHA-256: <code data-testid="original-hash">{o.sha256}</code>
                        </div>
                      </li>
                    )}
                  </For>
                </ul>
              </Show>
              <Show when={r().accessUntil}>
                {(until) => (
                  <p class="muted" data-testid="access-until">
                    <time datetime={until()}>{t('receipt.until', { date: formatDate(until()) })}</time>
                  </p>
                )}
              </Show>

              <ReceiptEmail
                sessionId={props.sessionId}
                receipt={r()}
                busy={busy()}
                act={act}
                remaining={remaining}
              />
              <Show when={r().canClose}>
                <CloseAccess sessionId={props.sessionId} receipt={r()} busy={busy()} act={act} />
              </Show>
            </Match>
          </Switch>
        )}
      </Show>
    </section>
  );
}
