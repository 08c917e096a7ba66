// Receipts saved in the past keep verifying (ADR 0027): a receipt made by the service on 2026-11-25 and the key
// set it published then (test/fixtures/receipts) are checked here as a person does it, from the repository root
// (`pnpm --silent verify-receipt`, `pnpm --silent verify-audit`) and with the README's openssl recipes run in a
// folder outside the repository. A change of layout, pdf-lib or font must never make this fail; if it does,
// the change broke every receipt people have saved.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, verifyReceiptCli } from '../support/receipts';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/receipts');
const RECEIPT = path.join(FIXTURES, 'receipt.pdf');
const JWKS = path.join(FIXTURES, 'service-audit-jwks.json');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receipt-fixture-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The sh code blocks of the README section that contains `marker`, in order. */
function readmeRecipe(marker: string, index: number): string {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf(marker);
  expect(from).toBeGreaterThan(0);
  const blocks = [...readme.slice(from).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  // the receipt recipes sit in an indented list item
  return (blocks[index] as string).replace(/^ {2}/gm, '');
}

/**
 * Runs shell lines in a folder outside the repository, with no node_modules to lean on: without the NODE_PATH
 * that pnpm's bin shims (vitest's included) export, which would let `require` find the workspace's packages.
 */
function sh(script: string, cwd: string): Promise<{ code: number; out: string }> {
  const { NODE_PATH: _, ...env } = process.env;
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, env, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, out: stdout + stderr }),
    );
  });
}

const receiptJson = () => {
  execFileSync('pdfdetach', ['-save', '1', '-o', path.join(dir, 'receipt.json'), RECEIPT]);
  return JSON.parse(fs.readFileSync(path.join(dir, 'receipt.json'), 'utf8'));
};

describe('a receipt saved on 2026-11-25', () => {
  it('verifies against the key set the service published', async () => {
    const r = await verifyReceiptCli(RECEIPT, { jwks: JWKS });
    expect(r.out).toContain('OK   seal over the whole file: the file is exactly as the service made it');
    expect(r.out).toContain('OK   Step 4 (attestation): signature verified with the published key');
    expect(r.out).toMatch(/RECEIPT VERIFIED against the saved key set \S+service-audit-jwks\.json\n$/);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('is not verified when the published key set cannot be had, or is not the service’s', async () => {
    // the address printed on it (a local development service that is gone) is never fetched on its own
    const none = await verifyReceiptCli(RECEIPT);
    expect(none.out).toContain('The file says: issued by http://127.0.0.1:45761');
    expect(none.out).toMatch(/NOT VERIFIED: name the service you trust/);
    expect(none.code).toBe(1);
    expect(none.err).toBe('');
    const gone = await verifyReceiptCli(RECEIPT, { service: 'http://127.0.0.1:45761' });
    expect(gone.out).toMatch(/FAIL keys: (cannot fetch|GET) http:\/\/127\.0\.0\.1:45761\/\.well-known/);
    expect(gone.out).toContain('RECEIPT NOT VERIFIED');
    expect(gone.code).toBe(1);
    expect(gone.err).toBe('');
    const other = path.join(dir, 'other-jwks.json');
    const jwks = JSON.parse(fs.readFileSync(JWKS, 'utf8'));
    jwks.keys[0].x = JSON.parse(fs.readFileSync(JWKS, 'utf8')).keys[0].y;
    fs.writeFileSync(other, JSON.stringify(jwks));
    const wrong = await verifyReceiptCli(RECEIPT, { jwks: other });
    expect(wrong.out).toMatch(/RECEIPT NOT VERIFIED against the saved key set \S+other-jwks\.json/);
    expect(wrong.code).toBe(1);
  });

  it('verifies with the README’s openssl recipes outside the repository', async () => {
    const data = receiptJson();
    const work = fs.mkdtempSync(path.join(dir, 'openssl-'));
    fs.copyFileSync(JWKS, path.join(work, 'jwks.json'));
    const auditRecipe = readmeRecipe('### Audit records', 0);
    for (const step of data.steps) {
      fs.writeFileSync(path.join(work, 'audit.json'), JSON.stringify(step.audit_record));
      const r = await sh(auditRecipe, work);
      expect(r.out).toContain('Signature Verified Successfully');
      expect(r.code).toBe(0);
    }
    const changed = { ...data.steps[0].audit_record, stage: 7 };
    fs.writeFileSync(path.join(work, 'audit.json'), JSON.stringify(changed));
    expect((await sh(auditRecipe, work)).out).toContain('Signature Verification Failure');

    // the seal: key.pem is the published key named by receipt.json's seal.kid (made by the audit recipe:
    // every key of this session is the same version)
    expect(data.seal.kid).toBe(data.steps[0].audit_record.service_signature.kid);
    fs.copyFileSync(RECEIPT, path.join(work, 'receipt.pdf'));
    const sealRecipe = readmeRecipe('### The signer', 1);
    const sealed = await sh(sealRecipe, work);
    expect(sealed.out).toContain('Verified OK');
    expect(sealed.code).toBe(0);
    const edited = fs.readFileSync(RECEIPT);
    edited[200] = edited[200] === 0x20 ? 0x0a : 0x20; // one byte of the first object
    fs.writeFileSync(path.join(work, 'receipt.pdf'), edited);
    expect((await sh(sealRecipe, work)).out).toContain('Verification failure');
  });

  it('verify-audit from the repository root: a verdict and an exit code, no pnpm noise', async () => {
    const data = receiptJson();
    const audit = path.join(dir, 'audit.json');
    const run = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) =>
        execFile('pnpm', ['--silent', 'verify-audit', ...args], { cwd: REPO_ROOT }, (err, out, e) =>
          resolve({ code: err ? Number(err.code) : 0, out, err: e }),
        ),
      );
    fs.writeFileSync(audit, JSON.stringify(data.steps[1].audit_record));
    expect(await run(audit, JWKS)).toEqual({
      code: 0,
      out: `OK (the saved key set ${JWKS})\n`,
      err: '',
    });
    fs.writeFileSync(audit, JSON.stringify({ ...data.steps[1].audit_record, stage: 0 }));
    expect(await run(audit, JWKS)).toEqual({
      code: 1,
      out: 'FAIL: the signature does not match the record\n',
      err: '',
    });
  });

  it('verifies with the standalone verifier (verify/, one file, Node alone) outside the repository', async () => {
    await new Promise<void>((resolve, reject) =>
      execFile(
        'pnpm',
        ['--silent', '--filter', '@credential-verification-service/verify', 'build'],
        { cwd: REPO_ROOT },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    const work = fs.mkdtempSync(path.join(dir, 'standalone-'));
    for (const f of ['verify-receipt.mjs', 'verify-audit.mjs'])
      fs.copyFileSync(path.join(REPO_ROOT, 'verify/dist', f), path.join(work, f));
    fs.copyFileSync(RECEIPT, path.join(work, 'receipt.pdf'));
    fs.copyFileSync(JWKS, path.join(work, 'jwks.json'));
    const ok = await sh('node verify-receipt.mjs receipt.pdf --jwks jwks.json', work);
    expect(ok.out).toMatch(/RECEIPT VERIFIED against the saved key set jwks\.json\n$/);
    expect(ok.code).toBe(0);
    const edited = fs.readFileSync(RECEIPT);
    edited[200] = edited[200] === 0x20 ? 0x0a : 0x20;
    fs.writeFileSync(path.join(work, 'receipt.pdf'), edited);
    const bad = await sh('node verify-receipt.mjs receipt.pdf --jwks jwks.json', work);
    expect(bad.out).toContain('FAIL seal over the whole file');
    expect(bad.code).toBe(1);
    fs.writeFileSync(path.join(work, 'audit.json'), JSON.stringify(receiptJson().steps[0].audit_record));
    expect(await sh('node verify-audit.mjs audit.json jwks.json', work)).toEqual({
      code: 0,
      out: 'OK (the saved key set jwks.json)\n',
    });
  });
});
