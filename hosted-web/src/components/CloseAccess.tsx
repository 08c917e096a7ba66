// Closing online access to the signer's record (ReceiptPanel): a confirmation that says whether the PDF was
// downloaded, and an outlined danger button (irreversible).
import { createSignal, Show } from 'solid-js';
import { t } from '../i18n';
import { closeReceiptAccess, type SignerReceipt } from '../receipt';

export function CloseAccess(props: {
  sessionId: string;
  receipt: SignerReceipt;
  busy: boolean;
  act: (action: () => Promise<SignerReceipt>) => Promise<void>;
}) {
  // unmounted (and so reset) once access is no longer open
  const [confirmClose, setConfirmClose] = createSignal(false);
  return (
    <>
      <h3>{t('receipt.closeTitle')}</h3>
      <p class="muted">{props.receipt.partial ? t('receipt.closeTextPartial') : t('receipt.closeText')}</p>
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
        <div class="confirm" role="alertdialog" aria-labelledby="close-warning" data-testid="close-confirm">
          {/* reassurance is said as such; only the missing download is a warning */}
          <Show when={props.receipt.pdfDownloaded}>
            <p class="ok" data-testid="downloaded-note">
              {t('receipt.downloaded')}
            </p>
          </Show>
          <p id="close-warning">
            <Show when={!props.receipt.pdfDownloaded}>
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
            disabled={props.busy}
            onClick={() => void props.act(() => closeReceiptAccess(props.sessionId))}
            data-testid="confirm-close"
          >
            {t('receipt.confirmClose')}
          </button>{' '}
          <button type="button" class="button secondary" onClick={() => setConfirmClose(false)}>
            {t('receipt.cancel')}
          </button>
        </div>
      </Show>
    </>
  );
}
