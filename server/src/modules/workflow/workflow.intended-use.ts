// The intended use of a workflow (issue 19, ADR 0042): the purpose a wallet shows the person, in one language,
// and optionally the registration certificate's intended-use identifier. Stored with the draft and copied into
// each published revision; a session's registration certificate (rc-wrp+jwt) takes it from its revision, and
// falls back to the business's default purpose (relying_party.purpose) when the revision has none.
import { AppError } from '../../common/errors';

export const INTENDED_USE_LANGS = ['en', 'de', 'fr'] as const;
export type IntendedUseLang = (typeof INTENDED_USE_LANGS)[number];

export interface IntendedUse {
  /** What the data is asked for, as a wallet shows it (1-300 characters). */
  purpose: string;
  /** The language of `purpose` (default en). */
  lang: IntendedUseLang;
  /** The registration certificate's intended-use identifier, when the business registered one. */
  identifier?: string;
}

export const INTENDED_USE_LIMITS = { purpose: 300, identifier: 128 };

/** An identifier as registrars hand them out (a URI, a URN or a token): visible ASCII, no spaces. */
const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._~:/?#@!$&'()*+,;=%-]*$/;

const bad = (field: string, message: string) =>
  new AppError('workflow_invalid', message, { param: `intendedUse.${field}` });

/**
 * Validates and normalises an intended use (trimmed). null/undefined: none (the business default applies).
 * Refusals are workflow_invalid with param intendedUse.purpose / .lang / .identifier.
 */
export function validateIntendedUse(input: unknown): IntendedUse | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object' || Array.isArray(input))
    throw new AppError('workflow_invalid', 'intendedUse must be an object.', { param: 'intendedUse' });
  const raw = input as Record<string, unknown>;
  if (typeof raw.purpose !== 'string' || raw.purpose.trim() === '')
    throw bad('purpose', 'The purpose is required when an intended use is set.');
  const purpose = raw.purpose.trim();
  if ([...purpose].length > INTENDED_USE_LIMITS.purpose)
    throw bad('purpose', `The purpose may have at most ${INTENDED_USE_LIMITS.purpose} characters.`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(purpose))
    throw bad('purpose', 'The purpose may not contain line breaks or control characters.');
  const lang = raw.lang === undefined || raw.lang === null ? 'en' : raw.lang;
  if (!INTENDED_USE_LANGS.includes(lang as IntendedUseLang))
    throw bad('lang', `The purpose's language must be one of ${INTENDED_USE_LANGS.join(', ')}.`);
  const out: IntendedUse = { purpose, lang: lang as IntendedUseLang };
  if (raw.identifier !== undefined && raw.identifier !== null) {
    const identifier = typeof raw.identifier === 'string' ? raw.identifier.trim() : null;
    if (identifier === null) throw bad('identifier', 'The intended-use identifier must be a string.');
    if (identifier !== '') {
      if (identifier.length > INTENDED_USE_LIMITS.identifier || !IDENTIFIER.test(identifier))
        throw bad(
          'identifier',
          `The intended-use identifier must be 1-${INTENDED_USE_LIMITS.identifier} visible ASCII characters without spaces (a URI or token).`,
        );
      out.identifier = identifier;
    }
  }
  return out;
}

/** The stored column's value (JSON or null). */
export const intendedUseColumn = (u: IntendedUse | null): string | null => (u ? JSON.stringify(u) : null);

/** The stored column read back; a row written before the column existed has none. */
export const intendedUseOf = (column: string | null | undefined): IntendedUse | null =>
  column ? (JSON.parse(column) as IntendedUse) : null;
