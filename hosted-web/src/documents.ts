// How a sign step's document is named on the page: its type and size in the page's language (used by the
// step list before Start and by the viewer).
import { locale, t } from './i18n';
import type { SignerDocument } from './types';

/**
 * A file size, one way per language (issue 29): decimal units as the language writes them ("1.4 kB",
 * "1,4 kB", "1,4 ko"; "403 bytes", "403 Byte", "403 octets"), by Intl.NumberFormat's unit style.
 */
export function formatSize(bytes: number): string {
  const unit = bytes < 1000 ? 'byte' : bytes < 1_000_000 ? 'kilobyte' : 'megabyte';
  const value = unit === 'byte' ? bytes : unit === 'kilobyte' ? bytes / 1000 : bytes / 1_000_000;
  return new Intl.NumberFormat(locale(), {
    style: 'unit',
    unit,
    unitDisplay: unit === 'byte' ? 'long' : 'short',
    maximumFractionDigits: 1,
  }).format(value);
}

export const typeLabel = (contentType: string): string =>
  ({
    'application/pdf': 'PDF',
    'text/plain': t('step.typeText'),
    'image/png': t('step.typePng'),
    'image/jpeg': t('step.typeJpeg'),
  })[contentType] ?? contentType;

/** "PDF, 12 KB" */
export const documentFacts = (d: SignerDocument): string =>
  `${typeLabel(d.contentType)}, ${formatSize(d.size)}`;
