// The signer page's message catalogues: every language has every key of the English reference, no extra
// keys, the same {placeholders}, and no empty or untranslated-looking (identical to English) long messages;
// plus the browser-preference rule. The catalogues are plain data, imported as the page imports them.
import { describe, expect, it } from 'vitest';
import { de } from '../../hosted-web/src/i18n/de';
import { en } from '../../hosted-web/src/i18n/en';
import { fr } from '../../hosted-web/src/i18n/fr';
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

  it('covers every error code the page maps (the server codes it shows plus the page-decided ones)', () => {
    const required = [
      'not_found',
      'session_expired',
      'session_bound_elsewhere',
      'redirect_other_browser',
      'request_not_found',
      'receipt_code_invalid',
      'wallet_cancelled',
      'wallet_unavailable',
      'network_error',
      'generic',
    ];
    for (const code of required) expect(Object.keys(en)).toContain(`error.${code}`);
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
