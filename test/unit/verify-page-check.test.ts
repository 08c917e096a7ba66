// The /verify page's in-browser receipt check (hosted-web/src/verify/receipt-check.ts) run in Node's WebCrypto:
// the same verdicts as the verify-receipt command (server/src/modules/receipt/receipt.verify.ts) on the genuine
// receipt saved on 2026-11-25, on today's forgery, on a forgery that names its own key set, on damaged files,
// and on the one-key-one-purpose rule. Each case is checked by both verifiers, so the rules cannot drift.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkReceipt } from '../../hosted-web/src/verify/receipt-check';
import { verifyReceiptPdf } from '../../server/src/modules/receipt/receipt.verify';
import { type ForgerKeys, forgeReceipt, forgerKeys } from '../support/receipt-forgery';
import { REPO_ROOT, withLineOnPage } from '../support/receipts';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/receipts');
const RECEIPT = new Uint8Array(fs.readFileSync(path.join(FIXTURES, 'receipt.pdf')));
const JWKS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'service-audit-jwks.json'), 'utf8'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-page-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const json = (() => {
  fs.writeFileSync(path.join(dir, 'r.pdf'), RECEIPT);
  execFileSync('pdfdetach', ['-save', '1', '-o', path.join(dir, 'r.json'), path.join(dir, 'r.pdf')]);
  return JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8'));
})();
const serviceKid = JWKS.keys[0].kid as string;

/** Both verifiers on one file and key set: the page's verdict and the command's must agree. */
async function both(pdf: Uint8Array, jwks: unknown) {
  const page = await checkReceipt(new Uint8Array(pdf), jwks as never);
  const cli = await verifyReceiptPdf(pdf, { mode: 'published', jwks: jwks as never, source: 'test' });
  expect(page.verified).toBe(cli.every((v) => v.ok));
  return page;
}

describe('the /verify page’s check agrees with verify-receipt', () => {
  it('a genuine receipt of an earlier release verifies; the seal rule of its release is named', async () => {
    const r = await both(RECEIPT, JWKS);
    expect(r.verified).toBe(true);
    expect(r.claims).toMatchObject({
      business: 'Łukasz & Şule Sp. z o.o.',
      steps: 4,
      totalSteps: 4,
      version: 2,
    });
    expect(r.lines.map((l) => [l.kind, l.step, l.ok])).toEqual([
      ['step', 1, true],
      ['step', 2, true],
      ['step', 3, true],
      ['step', 4, true],
      ['seal', undefined, true],
    ]);
    expect(r.lines.at(-1)?.legacySeal).toBe(true);
  });

  it('a receipt of this release (version 3, its own seal key) verifies against its key set', async () => {
    const v3 = new Uint8Array(fs.readFileSync(path.join(FIXTURES, 'v3/receipt.pdf')));
    const keys = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'v3/service-audit-jwks.json'), 'utf8'));
    const r = await both(v3, keys);
    expect(r.verified).toBe(true);
    expect(r.claims).toMatchObject({ version: 3, steps: 4 });
    expect(r.lines.at(-1)).toEqual({ kind: 'seal', ok: true });
    expect((await both(v3, JWKS)).verified).toBe(false);
  });

  it('refuses today’s forgery and a forgery naming its own key set, against this service’s key set', async () => {
    const today = await forgeReceipt(json, forgerKeys(serviceKid));
    const own: ForgerKeys = forgerKeys('forger/audit/1', 'forger/seal/1');
    const named = await forgeReceipt(json, own, { origin: 'https://forger.example', version: 3 });
    for (const pdf of [today, named]) {
      const r = await both(pdf, JWKS);
      expect(r.verified).toBe(false);
      expect(r.lines.find((l) => l.kind === 'seal')?.ok).toBe(false);
      expect(r.lines.find((l) => l.step === 1)?.ok).toBe(false);
    }
    const r = await both(named, JWKS);
    expect(r.claims?.origin).toBe('https://forger.example');
    expect(r.lines.find((l) => l.step === 1)?.detail).toBe(
      "no key with kid forger/audit/1 in this service's key set",
    );
    // against the forger's own key set it is consistent, which is why the page never uses a key set the file names
    expect((await both(named, own.jwks)).verified).toBe(true);
  });

  it('one key, one purpose', async () => {
    const same = forgerKeys('forger/audit/1');
    const sealedByAudit = await forgeReceipt(json, same, { version: 3 });
    const r = await both(sealedByAudit, same.jwks);
    expect(r.lines.find((l) => l.kind === 'seal')).toMatchObject({
      ok: false,
      detail: 'the key forger/audit/1 is not a receipt-seal key',
    });
  });

  it('an edited page, a truncated file, something else: a reason, never a throw', async () => {
    const edited = await both(await withLineOnPage(RECEIPT, 'given_name: Max'), JWKS);
    expect(edited.lines.find((l) => l.kind === 'seal')).toMatchObject({
      ok: false,
      detail: 'the file was changed after the service sealed it',
    });
    for (const bytes of [RECEIPT.subarray(0, 30_000), RECEIPT.subarray(0, RECEIPT.length - 300)]) {
      const r = await checkReceipt(new Uint8Array(bytes), JWKS);
      expect(r.verified).toBe(false);
    }
    const half = await checkReceipt(new Uint8Array(RECEIPT.subarray(0, 30_000)), JWKS);
    expect(half).toMatchObject({ unreadable: true, lines: [{ ok: false }] });
    const text = await checkReceipt(new TextEncoder().encode('hello'), JWKS);
    expect(text).toMatchObject({ verified: false, unreadable: true, lines: [{ detail: 'not a PDF file' }] });
  });
});
