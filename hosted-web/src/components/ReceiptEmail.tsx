// The emailed receipt (ReceiptPanel): the address, a six-digit code with its countdown and resend delay, and
// the receipt sent once the code is entered. Emails and the emailed PDF are written in the page's language and
// the browser's time zone.
import { createSignal, Show } from 'solid-js';
import { t } from '../i18n';
import { requestReceiptEmailCode, type SignerReceipt, sendReceiptEmail } from '../receipt';
import { CODE_VALID_MS, mmss, RESEND_AFTER_MS, writing } from './receipt-times';

export function ReceiptEmail(props: {
  sessionId: string;
  receipt: SignerReceipt;
  busy: boolean;
  /** Runs a receipt action; its answer replaces the record (ReceiptPanel). */
  act: (action: () => Promise<SignerReceipt>) => Promise<void>;
  /** Time left until `until`, never more than `cap` after the last answer arrived. */
  remaining: (until: string | null | undefined, cap: number) => number;
}) {
  const [email, setEmail] = createSignal('');
  const [code, setCode] = createSignal('');
  return (
    <>
      <h3>{t('receipt.emailTitle')}</h3>
      <Show when={props.receipt.email.sentTo.length > 0}>
        <p class="notice" role="status" data-testid="email-sent">
          {t('receipt.sentTo', { to: props.receipt.email.sentTo.join(', ') })}
        </p>
      </Show>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          void props.act(() => requestReceiptEmailCode(props.sessionId, email(), writing()));
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
          const wait = () => props.remaining(props.receipt.email.resendAvailableAt, RESEND_AFTER_MS);
          return (
            <button
              type="submit"
              class="button secondary"
              disabled={props.busy || wait() > 0 || props.receipt.email.codesLeftThisHour === 0}
              data-testid="send-code"
            >
              {props.receipt.email.codeSentTo
                ? wait() > 0
                  ? t('receipt.newCodeIn', { time: mmss(wait()) })
                  : t('receipt.newCode')
                : t('receipt.sendCode')}
            </button>
          );
        })()}
      </form>
      <Show when={props.receipt.email.codeSentTo && props.receipt.email.codeExpiresAt}>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void props.act(async () => {
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
                to: props.receipt.email.codeSentTo ?? '',
              }).split('{time}');
              return (
                <>
                  {before}
                  <span data-testid="code-countdown" aria-live="off">
                    {mmss(props.remaining(props.receipt.email.codeExpiresAt, CODE_VALID_MS))}
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
          <button type="submit" class="button" disabled={props.busy} data-testid="send-receipt">
            {t('receipt.emailMe')}
          </button>
        </form>
      </Show>
      <Show when={props.receipt.email.codesLeftThisHour === 0}>
        <p class="muted">{t('receipt.codeLimit')}</p>
      </Show>
    </>
  );
}
