// A secret shown once (a new API key, a webhook signing secret): read-only, wrapped in a monospace box so a
// phone shows all of it without scrolling sideways, selected on focus, with a Copy button, until the user says
// it is stored. Nothing keeps it after that; the server stores only a hash or an encrypted copy.
import { createSignal, type JSX } from 'solid-js';
import { dt } from '../i18n';

/**
 * Copies with the Clipboard API where the browser grants it (a secure context, a user gesture); otherwise, or
 * when it is refused, selects the text and falls back to the older copy command. Says what happened.
 */
async function copyText(value: string, box: HTMLTextAreaElement | undefined): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(value);
      return true;
    }
  } catch {
    // refused (no permission, not focused): try the fallback below
  }
  if (!box) return false;
  box.focus();
  box.select();
  try {
    // deprecated but the only way left without the Clipboard API; false when the browser refuses
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

export function SecretOnce(props: {
  id: string;
  label: string;
  value: string;
  children: JSX.Element;
  onDone: () => void;
}) {
  let box: HTMLTextAreaElement | undefined;
  const [copied, setCopied] = createSignal<'yes' | 'no' | null>(null);
  const copy = async () => setCopied((await copyText(props.value, box)) ? 'yes' : 'no');
  return (
    <div class="d-card d-secret" role="status">
      <p>{props.children}</p>
      <label for={props.id}>{props.label}</label>
      <textarea
        ref={box}
        id={props.id}
        class="d-secret-value"
        readonly
        rows="3"
        spellcheck={false}
        value={props.value}
        onFocus={(e) => e.currentTarget.select()}
      />
      <div class="d-secret-actions">
        <button type="button" onClick={() => void copy()}>
          {dt('secret.copy')}
        </button>
        <button type="button" onClick={() => props.onDone()}>
          {dt('secret.stored')}
        </button>
      </div>
      <p class="d-copy-result" data-testid="copy-result" aria-live="polite">
        {copied() === 'yes' ? dt('secret.copied') : copied() === 'no' ? dt('secret.copyFailed') : ''}
      </p>
    </div>
  );
}
