// How a sign step's document is named on the page: its type and size in the page's language (used by the
// step list before Start and by the viewer).
import { locale, t } from './i18n';
import type { SignerDocument } from './types';

export function formatSize(bytes: number): string {
  const sizeFormat = new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 });
  if (bytes < 1024) return t('step.bytes', { n: bytes });
  if (bytes < 1024 * 1024) return `${sizeFormat.format(bytes / 1024)} KB`;
  return `${sizeFormat.format(bytes / 1024 / 1024)} MB`;
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
