// The receipt's times (ReceiptPanel, ReceiptEmail): the browser's zone the receipt and its emails write local
// times in, and the code's countdown.
import { locale } from '../i18n';

/** The browser's IANA time zone: receipts and their emails write local times in it. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC'; // no zone reported: the receipt says UTC
  }
}

/** The code and receipt emails (and the emailed PDF) in this page's language and the browser's zone. */
export const writing = () => ({ lang: locale(), timeZone: browserTimeZone() });

export const mmss = (ms: number) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
// The spec's code lifetime and resend delay. A countdown never shows more than these, measured from when the
// answer arrived, so a browser clock behind the server's cannot show 10:01.
export const CODE_VALID_MS = 10 * 60_000;
export const RESEND_AFTER_MS = 60_000;
