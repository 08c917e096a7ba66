// The dashboard's message catalogues (issue 29): German and French have every key of English and no other, each
// message non-empty with the same {placeholders}, whole sentences translated; French puts a no-break space
// before : ; ? ! and German says "Sie". Checked per screen file (hosted-web/src/dashboard/messages/*.ts) and on
// the assembled catalogue the dashboard reads (i18n.ts, loaded with a stand-in `document`).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const MESSAGES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../hosted-web/src/dashboard/messages',
);
type Catalogue = Record<string, string>;
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** What is wrong with `messages` measured against English (empty: nothing). */
function problems(en: Catalogue, messages: Catalogue, lang: 'de' | 'fr'): string[] {
  const out: string[] = [];
  for (const key of Object.keys(en)) if (!(key in messages)) out.push(`${key}: missing`);
  for (const key of Object.keys(messages)) if (!(key in en)) out.push(`${key}: not in English`);
  for (const [key, text] of Object.entries(en)) {
    const t = messages[key];
    if (t === undefined) continue;
    if (!t.trim()) out.push(`${key}: empty`);
    if (placeholders(t).join() !== placeholders(text).join()) out.push(`${key}: placeholders differ`);
    if (text.split(' ').length > 3 && t === text) out.push(`${key}: same as English`);
    // a plain space before : ; ? ! (French wants a no-break one); "https://" and "{r}:1" are not punctuation
    if (lang === 'fr' && / [:;?!](\s|$)/.test(t)) out.push(`${key}: plain space before punctuation`);
    if (lang === 'fr' && /[\p{L}\p{N})»][;?!](\s|$)/u.test(t)) out.push(`${key}: no space before ; ? !`);
    if (lang === 'fr' && /[\p{L})»]:(\s|$)/u.test(t)) out.push(`${key}: no space before :`);
    if (lang === 'de' && /\b(du|dich|dir|dein\w*)\b/i.test(t)) out.push(`${key}: informal address`);
  }
  return out;
}

describe('dashboard message catalogues', () => {
  const files = fs.readdirSync(MESSAGES).filter((f) => f.endsWith('.ts'));

  it('has a message file per translated screen', () => {
    for (const f of ['workflows.ts', 'webhooks.ts', 'branding-rp.ts', 'environment.ts', 'secret-once.ts'])
      expect(files).toContain(f);
  });

  for (const file of files) {
    it(`${file}: German and French have every English key, filled, with the same placeholders`, async () => {
      const m = (await import(path.join(MESSAGES, file))) as Record<'en' | 'de' | 'fr', Catalogue>;
      expect(problems(m.en, m.de, 'de'), `${file} de`).toEqual([]);
      expect(problems(m.en, m.fr, 'fr'), `${file} fr`).toEqual([]);
    });
  }

  it('the catalogue the dashboard reads is complete in German and French', async () => {
    vi.stubGlobal('document', { documentElement: { lang: '' } });
    vi.stubGlobal('navigator', { languages: ['en'], language: 'en' });
    const { CATALOGUES } = await import('../../hosted-web/src/dashboard/i18n');
    vi.unstubAllGlobals();
    expect(Object.keys(CATALOGUES.en).length).toBeGreaterThan(400);
    expect(problems(CATALOGUES.en, CATALOGUES.de, 'de')).toEqual([]);
    expect(problems(CATALOGUES.en, CATALOGUES.fr, 'fr')).toEqual([]);
  });

  it('finds a key missing in French (the check can fail)', () => {
    expect(problems({ 'a.b': 'Save the draft now please' }, {}, 'fr')).toEqual(['a.b: missing']);
    expect(problems({ 'a.b': 'Why?' }, { 'a.b': 'Pourquoi ?' }, 'fr')).toEqual([
      'a.b: plain space before punctuation',
    ]);
  });
});
