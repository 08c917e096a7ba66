// The dashboard's message catalogues (hosted-web/src/dashboard/messages/*.ts) as plain data: every language has
// every English key with the same {placeholders} and translated sentences; the error copy words every server
// error code (DASH_ERRORS keyed by ErrorCode) and the failure lines every code a failed session or a refused
// wallet answer carries (FAILURE_WORDS), each in every language.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DASH_ERRORS, DASH_GENERIC_ERROR } from '../../hosted-web/src/dashboard/messages/errors';
import { FAILURE_WORDS } from '../../hosted-web/src/dashboard/messages/results';
import { ConditionFailureReason } from '../../hosted-web/src/graphql/generated';
import { ERROR_CODES } from '../../server/src/common/errors';

type Catalogue = Record<string, string>;
const dir = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../hosted-web/src/dashboard/messages',
);
const modules: Record<string, { en: Catalogue; de: Catalogue; fr: Catalogue }> = {};
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ts')))
  modules[f] = await import(path.join(dir, f));
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('dashboard message catalogues', () => {
  for (const [file, m] of Object.entries(modules))
    for (const lang of ['de', 'fr'] as const)
      it(`${file}: ${lang} has the English keys, placeholders, and translated sentences`, () => {
        expect(Object.keys(m[lang]).sort()).toEqual(Object.keys(m.en).sort());
        for (const [key, text] of Object.entries(m.en)) {
          const translated = m[lang][key] as string;
          expect(translated.trim(), key).toBeTruthy();
          expect(placeholders(translated), key).toEqual(placeholders(text));
          if (text.split(' ').length > 3) expect(translated, key).not.toBe(text);
        }
      });

  it('words every server error code, and only those plus the dashboard’s own', () => {
    const server = Object.keys(ERROR_CODES);
    const mapped = Object.keys(DASH_ERRORS);
    expect(server.filter((c) => !mapped.includes(c))).toEqual([]);
    expect(mapped.filter((c) => !server.includes(c)).sort()).toEqual(['network_error', 'passkey_cancelled']);
    const errors = modules['errors.ts'] as { en: Catalogue; de: Catalogue; fr: Catalogue };
    for (const key of Object.values(DASH_ERRORS))
      for (const lang of ['en', 'de', 'fr'] as const) expect(errors[lang][key], key).toBeTruthy();
    // what a dashboard user does gets words of its own, not the generic line
    for (const code of [
      'role_insufficient',
      'workflow_invalid',
      'session_state_conflict',
      'route_unavailable',
    ])
      expect(DASH_ERRORS[code as keyof typeof DASH_ERRORS], code).not.toBe(DASH_GENERIC_ERROR);
  });

  it('has a failure sentence for every refusal of a wallet answer and every condition failure', () => {
    const refusals = Object.entries(ERROR_CODES)
      .filter(([code, { status }]) => status === 422 && !code.startsWith('receipt_'))
      .map(([code]) => code);
    const worded = Object.keys(FAILURE_WORDS);
    expect(refusals.filter((c) => !worded.includes(c))).toEqual([]);
    expect(Object.values(ConditionFailureReason).filter((c) => !worded.includes(c))).toEqual([]);
    expect(worded).toEqual(expect.arrayContaining(['session_expired', 'step_window_expired']));
  });
});
