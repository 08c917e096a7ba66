// The dashboard's error copy (hosted-web/src/dashboard/messages/errors.ts, results.ts): every server error code
// has an entry in DASH_ERRORS (keyed by ErrorCode) worded in every language, and FAILURE_WORDS words every code a
// failed session or a refused wallet answer carries. The catalogues' keys and placeholders per language are
// checked by dashboard-i18n.test.ts.
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

describe('dashboard error words', () => {
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
