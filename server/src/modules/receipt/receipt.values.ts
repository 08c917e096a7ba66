// Owns how the receipt page writes a claim's value for the person (issue 29): dates of birth and other
// calendar dates as dates in their language ("12 August 1964", "12. August 1964", "12 août 1964"), and
// country codes as country names ("DE" -> "Germany", "Deutschland", "Allemagne"). The signed result in
// receipt.json keeps the values exactly as the business received them; only the page is written this way.
import type { ReceiptLang } from './receipt.words';

const DATE_CLAIMS = new Set(['birth_date', 'birthdate', 'expiry_date', 'issuance_date', 'issue_date']);
const COUNTRY_CLAIMS = new Set([
  'nationality',
  'nationalities',
  'issuing_country',
  'birth_country',
  'resident_country',
  'country',
]);
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const locale = (lang: ReceiptLang) => (lang === 'en' ? 'en-GB' : lang);
const raw = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

function date(v: string, lang: ReceiptLang): string {
  const m = ISO_DATE.exec(v);
  if (!m) return v;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) return v;
  return new Intl.DateTimeFormat(locale(lang), { dateStyle: 'long', timeZone: 'UTC' }).format(d);
}

function country(v: unknown, names: Intl.DisplayNames): string {
  if (typeof v !== 'string' || !/^[A-Za-z]{2}$/.test(v)) return raw(v);
  try {
    return names.of(v.toUpperCase()) ?? v;
  } catch {
    return v;
  }
}

/** A claim's value as the page writes it in `lang`; anything it does not recognise as it is. */
export function claimValue(key: string, v: unknown, lang: ReceiptLang): string {
  if (DATE_CLAIMS.has(key) && typeof v === 'string') return date(v, lang);
  if (COUNTRY_CLAIMS.has(key)) {
    const names = new Intl.DisplayNames([locale(lang)], { type: 'region' });
    return Array.isArray(v) ? v.map((c) => country(c, names)).join(', ') : country(v, names);
  }
  return raw(v);
}
