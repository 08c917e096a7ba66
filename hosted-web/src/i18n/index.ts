// The signer page's language: the first of the browser's preferred languages (navigator.languages) we have a
// catalogue for, else English; the switcher overrides it for this browser (localStorage). t() reads the
// locale signal, so everything rendered through it follows a switch without reloading.
import { createSignal } from 'solid-js';
import { de } from './de';
import { en, type MessageKey, type Messages } from './en';
import { fr } from './fr';

export type Locale = 'en' | 'de' | 'fr';
export const CATALOGUES: Record<Locale, Messages> = { en, de, fr };
/** Each language named in itself, for the switcher. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch', fr: 'Français' };
const STORAGE_KEY = 'signer-page-locale';

const isLocale = (v: unknown): v is Locale => typeof v === 'string' && v in CATALOGUES;

/** The first supported language among the browser's preferences ("de-AT" counts as "de"). */
export function pickLocale(preferred: readonly string[]): Locale {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
}

function initialLocale(): Locale {
  try {
    const stored = localStorage.getItem(STORAGE_KEY);
    if (isLocale(stored)) return stored;
  } catch {
    // storage blocked (private mode, policies): the browser's preference still applies
  }
  return pickLocale(navigator.languages?.length ? navigator.languages : [navigator.language ?? 'en']);
}

const [locale, setLocaleSignal] = createSignal<Locale>(initialLocale());
document.documentElement.lang = locale();

export type { MessageKey, Messages };
export { locale };

export function setLocale(next: Locale) {
  setLocaleSignal(next);
  document.documentElement.lang = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // not remembered; the choice still holds for this page view
  }
}

/** The message for key in the current language, with {name} placeholders filled from vars. */
export function t(key: MessageKey, vars?: Record<string, string | number>): string {
  const text = CATALOGUES[locale()][key] ?? en[key];
  return vars
    ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m))
    : text;
}

/** True when the catalogue has this key (error codes from the server are checked before use). */
export function hasMessage(key: string): key is MessageKey {
  return key in en;
}

/** The Intl locale of the page's language: English as the receipt and its emails write it (day month year, 24 h). */
const intlLocale = () => (locale() === 'en' ? 'en-GB' : locale());

/**
 * Date and time in the current language: the one way the signer's pages write a moment, the same as the receipt
 * PDF, its emails and the emailed link's page (server receipt.words.ts localTime): "27 November 2026 at 17:45 CET".
 */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(intlLocale(), {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(date);
}

/** Time of day in the current language with its zone, as the link line writes it ("17:45 CET"; issue 29). */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(intlLocale(), {
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(date);
}
