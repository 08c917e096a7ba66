// The signer's record of a session, shown to the bound browser once a step has completed: the receipt PDF
// (partial until the session completed), the signed originals with their hashes, the deadline of online
// access, the emailed receipt with its six-digit code (countdown, resend), and closing online access.
import { createEffect, createResource, createSignal, For, Match, onCleanup, Show, Switch } from 'solid-js';
import { toUserError, type UserError } from '../errors';
import {
  closeReceiptAccess,
  getSignerReceipt,
  requestReceiptEmailCode,
  type SignerReceipt,
  sendReceiptEmail,
} from '../receipt';
import { ErrorAlert } from './ErrorAlert';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const formatDate = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateFormat.format(d);
};
const mmss = (ms: number) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
const kb = (n: number) => (n < 1024 ? `${n} bytes` : `${(n / 1024).toFixed(1)} kB`);

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

  const act = async (action: () => Promise<SignerReceipt>) => {
    if (busy()) return;
    setBusy(true);
    setError(undefined);
    try {
      mutate(await action());
    } catch (e) {
      setError(toUserError(e));
      void refetch();
    } finally {
      setBusy(false);
    }
  };

  // after a download, re-read so the close-access warning knows about it
  const afterDownload = () => setTimeout(() => void refetch(), 1500);

  createEffect(() => {
    if (receipt()?.access !== 'open') setConfirmClose(false);
  });

  return (
    <section class="card receipt" aria-labelledby="receipt-heading" data-testid="receipt-panel">
      <h2 id="receipt-heading">Your record</h2>
      <Show when={receipt.error}>
        <ErrorAlert error={toUserError(receipt.error)} />
      </Show>
      <Show when={receipt()}>
        {(r) => (
          <Switch>
            <Match when={r().access === 'closed'}>
              <p data-testid="access-closed">
                You closed online access to this record. Nothing can be downloaded or emailed from here any
                more, and receipt links no longer work. Files you saved stay valid.
              </p>
            </Match>
            <Match when={r().access === 'ended'}>
              <p data-testid="access-ended">
                Online access ended on{' '}
                <time datetime={r().accessUntil ?? ''}>{formatDate(r().accessUntil ?? '')}</time> (48 hours
                after the verification ended). Files you saved stay valid.
              </p>
            </Match>
            <Match when={r().access === 'open'}>
              <Show when={error()}>{(e) => <ErrorAlert error={e()} />}</Show>
              <p>
                {r().partial
                  ? `A partial receipt of the ${r().completedSteps} of ${r().totalSteps} steps completed so far.`
                  : 'A receipt of everything you completed.'}{' '}
                It is a readable record of what was verified, not a new signature.
                <Show when={r().environment === 'sandbox'}> This is a test (sandbox) example.</Show>
              </p>
              <p>
                <a
                  class="button"
                  href={r().receiptUrl}
                  download=""
                  data-testid="download-receipt"
                  onClick={afterDownload}
                >
                  {r().partial ? 'Download partial receipt (PDF)' : 'Download receipt (PDF)'}
                </a>
              </p>
              <Show when={r().originals.length > 0}>
                <h3>Signed documents</h3>
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
                    You can download these here until <time datetime={until()}>{formatDate(until())}</time>.
                    Files you save stay valid after that.
                  </p>
                )}
              </Show>

              <h3>Receive the receipt by email</h3>
              <Show when={r().email.sentTo.length > 0}>
                <p class="notice" role="status" data-testid="email-sent">
                  Receipt sent to {r().email.sentTo.join(', ')}.
                </p>
              </Show>
              <form
                class="stack"
                onSubmit={(e) => {
                  e.preventDefault();
                  void act(() => requestReceiptEmailCode(props.sessionId, email()));
                }}
              >
                <label for="receipt-email">Email address</label>
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
                  const resendAt = () =>
                    r().email.resendAvailableAt ? Date.parse(r().email.resendAvailableAt as string) : 0;
                  const wait = () => resendAt() - now();
                  return (
                    <button
                      type="submit"
                      class="button secondary"
                      disabled={busy() || wait() > 0 || r().email.codesLeftThisHour === 0}
                      data-testid="send-code"
                    >
                      {r().email.codeSentTo
                        ? wait() > 0
                          ? `Send a new code in ${mmss(wait())}`
                          : 'Send a new code'
                        : 'Send code'}
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
                      const next = await sendReceiptEmail(props.sessionId, code());
                      setCode('');
                      return next;
                    });
                  }}
                >
                  <p data-testid="code-sent">
                    We sent a six-digit code to {r().email.codeSentTo}. It is valid for{' '}
                    <span data-testid="code-countdown" aria-live="off">
                      {mmss(Date.parse(r().email.codeExpiresAt as string) - now())}
                    </span>
                    .
                  </p>
                  <label for="receipt-code">Code</label>
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
                    Email me the receipt
                  </button>
                </form>
              </Show>
              <Show when={r().email.codesLeftThisHour === 0}>
                <p class="muted">You have asked for five codes this hour. Please try again later.</p>
              </Show>

              <Show when={r().canClose}>
                <h3>Close online access</h3>
                <p class="muted">
                  Closing stops all downloads, receipt emails and receipt links for this verification, for
                  good. The result {r().partial ? '' : 'and its evidence '}stay with the business as before.
                </p>
                <Show
                  when={confirmClose()}
                  fallback={
                    <button
                      type="button"
                      class="button secondary"
                      onClick={() => setConfirmClose(true)}
                      data-testid="close-access"
                    >
                      Close online access…
                    </button>
                  }
                >
                  <div
                    class="alert"
                    role="alertdialog"
                    aria-labelledby="close-warning"
                    data-testid="close-confirm"
                  >
                    <p id="close-warning">
                      <Show
                        when={!r().pdfDownloaded}
                        fallback={<>You downloaded the receipt in this browser. </>}
                      >
                        <strong data-testid="no-download-warning">
                          You have not downloaded the receipt in this browser.
                        </strong>{' '}
                        After closing, it cannot be downloaded here any more.{' '}
                      </Show>
                      A receipt email you already asked for may still arrive.
                    </p>
                    <button
                      type="button"
                      class="button"
                      disabled={busy()}
                      onClick={() => void act(() => closeReceiptAccess(props.sessionId))}
                      data-testid="confirm-close"
                    >
                      Close access permanently
                    </button>{' '}
                    <button type="button" class="button secondary" onClick={() => setConfirmClose(false)}>
                      Cancel
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
