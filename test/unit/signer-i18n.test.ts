// The signer page's message catalogues: every language has every key of the English reference, no extra
// keys, the same {placeholders}, and no empty or untranslated-looking (identical to English) long messages;
// plus the browser-preference rule. The catalogues are plain data, imported as the page imports them.
import { describe, expect, it } from 'vitest';
import { ERROR_MESSAGES, GENERIC } from '../../hosted-web/src/error-messages';
import { de } from '../../hosted-web/src/i18n/de';
import { en } from '../../hosted-web/src/i18n/en';
import { fr } from '../../hosted-web/src/i18n/fr';
import { ERROR_CODES } from '../../server/src/common/errors';
import { WALLET_CHOICES } from '../../server/src/modules/sandbox/personas';

const catalogues: Record<string, Record<string, string>> = { de, fr };
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('signer page message catalogues', () => {
  for (const [lang, messages] of Object.entries(catalogues)) {
    it(`${lang} has exactly the English keys`, () => {
      const missing = Object.keys(en).filter((k) => !(k in messages));
      const extra = Object.keys(messages).filter((k) => !(k in en));
      expect({ missing, extra }).toEqual({ missing: [], extra: [] });
    });

    it(`${lang} messages are non-empty, keep every placeholder, and are translated`, () => {
      for (const [key, text] of Object.entries(en)) {
        const translated = messages[key];
        expect(translated?.trim(), key).toBeTruthy();
        expect(placeholders(translated), key).toEqual(placeholders(text));
        // short labels (PDF, Code, Status:) may be the same word; whole sentences may not
        if (text.split(' ').length > 3) expect(translated, key).not.toBe(text);
      }
    });
  }

  it('words every server error code (ERROR_MESSAGES keyed by ErrorCode), each in every language', () => {
    const server = Object.keys(ERROR_CODES);
    const mapped = Object.keys(ERROR_MESSAGES);
    // the server's whole list, plus only the codes the page makes itself
    expect(server.filter((c) => !mapped.includes(c))).toEqual([]);
    expect(mapped.filter((c) => !server.includes(c)).sort()).toEqual([
      'network_error',
      'wallet_cancelled',
      'wallet_unavailable',
    ]);
    for (const [code, key] of Object.entries(ERROR_MESSAGES))
      for (const messages of [en, de, fr]) expect(messages[key], code).toBeTruthy();
    // every refusal of a wallet answer (422) is told in its own words, never the generic line
    for (const [code, { status }] of Object.entries(ERROR_CODES))
      if (status === 422) expect(ERROR_MESSAGES[code as keyof typeof ERROR_MESSAGES], code).not.toBe(GENERIC);
  });

  it("has a name and a note for every sandbox test person the server offers, the English ones the server's own", () => {
    for (const c of WALLET_CHOICES) {
      expect(en[`persona.${c.id}.label` as keyof typeof en], c.id).toBe(c.label);
      expect(en[`persona.${c.id}.note` as keyof typeof en], c.id).toBe(c.description);
    }
    const ids = new Set(WALLET_CHOICES.map((c) => c.id));
    for (const key of Object.keys(en).filter((k) => k.startsWith('persona.')))
      expect(ids.has(key.split('.')[1] as string), key).toBe(true);
  });
});
