// Keeps the independent test wallet independent: it may import only node built-ins, @hpke/core and jose, and its
// own files (its mdoc side is hand-built CBOR/COSE, so @auth0/mdl is not needed and not allowed). No library of the verifier (@openid4vc/*, dcql, @sd-jwt/*,
// @owf/*, their predecessors @animo-id/*, or the CBOR library under @owf/mdoc), and nothing of our server or of
// the other test helpers, so a misreading of a specification in those cannot pass on both sides. The import
// graph is read from the source: static imports, re-exports, dynamic import() and require().
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const WALLET_DIR = path.resolve(__dirname, '../support/independent-wallet');
const ALLOWED_PACKAGES = [/^node:/, /^@hpke\/core$/, /^jose$/];

/** Every module specifier a TypeScript source names. */
export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) found.push(m[1] as string);
  return found;
}

/** Violations in the wallet folder: a package outside the allow-list, or a relative import leaving the folder. */
export function walletImportViolations(dir: string): string[] {
  const violations: string[] = [];
  const files = fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.[cm]?[jt]s$/.test(f));
  for (const file of files) {
    const full = path.join(dir, file);
    for (const spec of importSpecifiers(fs.readFileSync(full, 'utf8'))) {
      if (spec.startsWith('.')) {
        const target = path.resolve(path.dirname(full), spec);
        if (!target.startsWith(dir + path.sep)) violations.push(`${file}: ${spec} (outside the wallet)`);
      } else if (!ALLOWED_PACKAGES.some((re) => re.test(spec))) {
        violations.push(`${file}: ${spec}`);
      }
    }
  }
  return violations;
}

describe('the independent test wallet shares no library with the verifier', () => {
  it('imports only node built-ins, @hpke/core, jose and its own files', () => {
    // every part of the wallet is checked (a renamed folder would otherwise pass empty)
    expect(fs.readdirSync(WALLET_DIR).sort()).toEqual(
      expect.arrayContaining([
        'annex-c-wallet.ts',
        'cbor.ts',
        'cross-device.ts',
        'dcql-match.ts',
        'sd-jwt-presenter.ts',
        'transaction-data.ts',
        'wallet.ts',
      ]),
    );
    expect(walletImportViolations(WALLET_DIR)).toEqual([]);
  });

  it('recognises the forms of import a violation could take', () => {
    const src = [
      "import { DcqlQuery } from 'dcql';",
      "import type { X } from '@owf/mdoc';",
      "export * from '@sd-jwt/core';",
      "import '@openid4vc/openid4vp';",
      "const m = await import('cbor-x');",
      "const r = require('@animo-id/mdoc');",
      "import { y } from '../../server/src/x';",
    ].join('\n');
    expect(importSpecifiers(src)).toEqual([
      'dcql',
      '@owf/mdoc',
      '@sd-jwt/core',
      '../../server/src/x',
      '@openid4vc/openid4vp',
      'cbor-x',
      '@animo-id/mdoc',
    ]);
  });
});
