// The signer's record of a session, shown to the bound browser once a step has completed: the receipt PDF
// (partial until the session completed), the signed originals with their hashes, the deadline of online
// access, the emailed receipt with its six-digit code (countdown, resend), and closing online access.

import { createEffect, createResource, createSignal, For, Match, onCleanup, Show, Switch } from 'solid-js';
import { formatSize } from '../documents';
import { toUserError, type UserError } from '../errors';
import { formatDateTime as formatDate, locale, t } from '../i18n';
import {
  closeReceiptAccess,
  getSignerReceipt,
  requestReceiptEmailCode,
  type SignerReceipt,
  sendReceiptEmail,
} from '../receipt';
import { ErrorAlert } from './ErrorAlert';

/** The browser's IANA time zone: receipts and their emails write local times in it. */
function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC'; // no zone reported: the receipt says UTC
  }
}

/** The receipt PDF written in this page's language and the browser's time zone (ADR 0027). */
function receiptHref(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}lang=${locale()}&tz=${encodeURIComponent(browserTimeZone())}`;
}

/** The code and receipt emails (and the emailed PDF) in this page's language and the browser's zone. */
const writing = () => ({ lang: locale(), timeZone: browserTimeZone() });

const mmss = (ms: number) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
// The spec's code lifetime and resend delay. A countdown never shows more than these, measured from when the
// answer arrived, so a browser clock behind the server's cannot show 10:01.
const CODE_VALID_MS = 10 * 60_000;
const RESEND_AFTER_MS = 60_000;
// file sizes one way per language, as the step list and the viewer write them (issue 29)
const kb = formatSize;

export function ReceiptPanel(props: { sessionId: string; version: string }) {
  const [receipt, { mutate, refetch }] = createResource(
    () => `${props.sessionId}|${props.version}`,
    () => getSignerReceipt(props.sessionId),
  );
  const [error, setError] = createSignal<UserError>();
  const [busy, setBusy] = createSignal(false);
  const [email, setEmail] = createSignal('');
  const [code, setCode] = createSignal('');
  const [confirmClose, setConfirmClose] = createSignal(false);
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

  createEffect(() => {
    if (receipt.latest?.access !== 'open') setConfirmClose(false);
  });

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

              <h3>{t('receipt.emailTitle')}</h3>
              <Show when={r().email.sentTo.length > 0}>
                <p class="notice" role="status" data-testid="email-sent">
                  {t('receipt.sentTo', { to: r().email.sentTo.join(', ') })}
                </p>
              </Show>
              <form
                class="stack"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(() => requestReceiptEmailCode(props.sessionId, email(), writing()));
                }}
              >
                <label for="receipt-email">{t('receipt.emailLabel')}</label>
                <input
                  id="receipt-email"
                  type="email"
                  autocomplete="email"
                  required
                  value={email()}
                  onInput={(e) => setEmail(e.currentTarget.value)}
                  data-testid="email-input"
                />
                {(() => {
                  const wait = () => remaining(r().email.resendAvailableAt, RESEND_AFTER_MS);
                  return (
                    <button
                      type="submit"
                      class="button secondary"
                      disabled={busy() || wait() > 0 || r().email.codesLeftThisHour === 0}
                      data-testid="send-code"
                    >
                      {r().email.codeSentTo
                        ? wait() > 0
                          ? t('receipt.newCodeIn', { time: mmss(wait()) })
                          : t('receipt.newCode')
                        : t('receipt.sendCode')}
                    </button>
                  );
                })()}
              </form>
              <Show when={r().email.codeSentTo && r().email.codeExpiresAt}>
                <form
                  class="stack"
                  onSubmit={(e) => {
                    e.preventDefault();
                    void act(async () => {
                      const next = await sendReceiptEmail(props.sessionId, code(), writing());
                      setCode('');
                      return next;
                    });
                  }}
                >
                  <p data-testid="code-sent">
                    {(() => {
                      // the countdown stays its own element (tests and assistive tech read it separately)
                      const [before, after] = t('receipt.codeSent', {
                        to: r().email.codeSentTo ?? '',
                      }).split('{time}');
                      return (
                        <>
                          {before}
                          <span data-testid="code-countdown" aria-live="off">
                            {mmss(remaining(r().email.codeExpiresAt, CODE_VALID_MS))}
                          </span>
                          {after}
                        </>
                      );
                    })()}
                  </p>
                  <label for="receipt-code">{t('receipt.codeLabel')}</label>
                  <input
                    id="receipt-code"
                    inputmode="numeric"
                    autocomplete="one-time-code"
                    pattern="[0-9]{6}"
                    maxLength={6}
                    required
                    value={code()}
                    onInput={(e) => setCode(e.currentTarget.value)}
                    data-testid="code-input"
                  />
                  <button type="submit" class="button" disabled={busy()} data-testid="send-receipt">
                    {t('receipt.emailMe')}
                  </button>
                </form>
              </Show>
              <Show when={r().email.codesLeftThisHour === 0}>
                <p class="muted">{t('receipt.codeLimit')}</p>
              </Show>

              <Show when={r().canClose}>
                <h3>{t('receipt.closeTitle')}</h3>
                <p class="muted">{r().partial ? t('receipt.closeTextPartial') : t('receipt.closeText')}</p>
                <Show
                  when={confirmClose()}
                  fallback={
                    <button
                      type="button"
                      class="button secondary"
                      onClick={() => setConfirmClose(true)}
                      data-testid="close-access"
                    >
                      {t('receipt.closeButton')}
                    </button>
                  }
                >
                  <div
                    class="confirm"
                    role="alertdialog"
                    aria-labelledby="close-warning"
                    data-testid="close-confirm"
                  >
                    {/* reassurance is said as such; only the missing download is a warning */}
                    <Show when={r().pdfDownloaded}>
                      <p class="ok" data-testid="downloaded-note">
                        {t('receipt.downloaded')}
                      </p>
                    </Show>
                    <p id="close-warning">
                      <Show when={!r().pdfDownloaded}>
                        <strong class="warn" data-testid="no-download-warning">
                          {t('receipt.notDownloaded')}
                        </strong>{' '}
                        {t('receipt.afterClose')}{' '}
                      </Show>
                      {t('receipt.mayArrive')}
                    </p>
                    {/* irreversible: an outlined danger button, never the page's primary accent */}
                    <button
                      type="button"
                      class="button danger"
                      disabled={busy()}
                      onClick={() => void act(() => closeReceiptAccess(props.sessionId))}
                      data-testid="confirm-close"
                    >
                      {t('receipt.confirmClose')}
                    </button>{' '}
                    <button type="button" class="button secondary" onClick={() => setConfirmClose(false)}>
                      {t('receipt.cancel')}
                    </button>
                  </div>
                </Show>
              </Show>
            </Match>
          </Switch>
        )}
      </Show>
    </section>
  );
}
