// verify-receipt trusts only the service the reader names (issue 28, ADR 0047), as a person runs it from the
// repository root: `--service <origin>` (that origin's published key set, fetched) or `--jwks <saved copy>`;
// without one it says what the file claims and NOT VERIFIED. The genuine receipt saved on 2026-11-25
// (test/fixtures/receipts) is the service's; forgeries are made with the project's renderer; the "services"
// are loopback servers started here (the genuine one publishes the fixture's key set).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgeReceipt, forgerKeys, keySetServer, loopbackServer } from '../support/receipt-forgery';
import { REPO_ROOT, verifyReceiptCli } from '../support/receipts';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/receipts');
const RECEIPT = path.join(FIXTURES, 'receipt.pdf');
const JWKS = path.join(FIXTURES, 'service-audit-jwks.json');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-trust-'));
const genuineJwks = JSON.parse(fs.readFileSync(JWKS, 'utf8'));
const json = (() => {
  execFileSync('pdfdetach', ['-save', '1', '-o', path.join(dir, 'receipt.json'), RECEIPT]);
  return JSON.parse(fs.readFileSync(path.join(dir, 'receipt.json'), 'utf8'));
})();
const serviceKid = genuineJwks.keys[0].kid as string;
const write = (name: string, bytes: Uint8Array | string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, bytes);
  return f;
};
const closers: Array<() => Promise<void>> = [];
let genuine: string; // origin of "the service" (publishes the fixture's key set)
let forger: string; // origin of the forger's own key set
let forgerKeySet: ReturnType<typeof forgerKeys>;

beforeAll(async () => {
  const g = await keySetServer(genuineJwks);
  genuine = g.origin;
  forgerKeySet = forgerKeys(
    'projects/forger/locations/global/keyRings/k/cryptoKeys/audit-signing/cryptoKeyVersions/1',
    'projects/forger/locations/global/keyRings/k/cryptoKeys/receipt-seal/cryptoKeyVersions/1',
  );
  const f = await keySetServer(forgerKeySet.jwks);
  forger = f.origin;
  closers.push(g.close, f.close);
});
afterAll(async () => {
  for (const c of closers) await c();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Every run: a verdict on stdout, nothing on stderr, never a stack trace. */
function clean(r: { out: string; err: string }) {
  expect(r.err).toBe('');
  expect(r.out).not.toMatch(/\n\s+at /);
}

describe('verify-receipt trusts only the service the reader names', () => {
  it('a genuine receipt of an earlier release verifies against the service named, and says which', async () => {
    // exactly the README's command (pnpm --silent verify-receipt); the other runs start the same source built once
    const r = await verifyReceiptCli(RECEIPT, { service: genuine, viaPnpm: true });
    clean(r);
    expect(r.out).toContain('The file says: issued by http://127.0.0.1:45761');
    expect(r.out).toContain(`Trusted: ${genuine} (the key set published at ${genuine}/.well-known/`);
    expect(r.out).toContain('OK   Step 1 (identify): signature verified with the published key');
    expect(r.out).toContain('OK   Step 4 (attestation): signature verified with the published key');
    // the one rule that changed since: the seal has a key of its own; this receipt's was the audit key
    expect(r.out).toContain(
      "a receipt of version 2: sealed with the service's audit key, as receipts were before the seal had a key of its own",
    );
    expect(r.out).not.toContain('NOT SELF-CONSISTENT');
    expect(r.out).toMatch(new RegExp(`RECEIPT VERIFIED against ${genuine}\\n$`));
    expect(r.code).toBe(0);

    const saved = await verifyReceiptCli(RECEIPT, { jwks: JWKS });
    clean(saved);
    expect(saved.out).toMatch(/RECEIPT VERIFIED against the saved key set \S+service-audit-jwks\.json\n$/);
    expect(saved.code).toBe(0);
  });

  it('a receipt of this release (version 3, its own seal key) verifies against its saved key set', async () => {
    const r = await verifyReceiptCli(path.join(FIXTURES, 'v3/receipt.pdf'), {
      jwks: path.join(FIXTURES, 'v3/service-audit-jwks.json'),
    });
    clean(r);
    expect(r.out).toContain('receipt version 3.');
    expect(r.out).toContain('OK   Step 4 (attestation): signature verified with the published key');
    expect(r.out).toContain('OK   seal over the whole file: the file is exactly as the service made it');
    expect(r.out).not.toContain('version 2');
    expect(r.out).toMatch(/RECEIPT VERIFIED against the saved key set \S+v3\/service-audit-jwks\.json\n$/);
    expect(r.code).toBe(0);
    // the key set of the earlier release does not have this seal key
    const old = await verifyReceiptCli(path.join(FIXTURES, 'v3/receipt.pdf'), { jwks: JWKS });
    expect(old.out).toContain('FAIL seal over the whole file: no key with kid');
    expect(old.code).toBe(1);
  });

  it('without a service named: what the file claims, NOT VERIFIED, non-zero exit (even for a genuine file)', async () => {
    for (const opts of [{}, { selfConsistentOnly: true }]) {
      const r = await verifyReceiptCli(RECEIPT, opts);
      clean(r);
      expect(r.out).toMatch(
        /^The file says: issued by http:\/\/127\.0\.0\.1:45761 for Łukasz & Şule Sp\. z o\.o\.;/,
      );
      expect(r.out).toContain('NOT VERIFIED: name the service you trust');
      expect(r.out).not.toContain('RECEIPT VERIFIED');
      expect(r.code).toBe(1);
    }
  });

  it('refuses today’s forgery (fresh key under the service’s kid, keys in the file replaced) in every mode', async () => {
    const forged = write('forged.pdf', await forgeReceipt(json, forgerKeys(serviceKid)));
    for (const opts of [{}, { selfConsistentOnly: true }, { jwks: JWKS }, { service: genuine }]) {
      const r = await verifyReceiptCli(forged, opts);
      clean(r);
      expect(r.out).not.toContain('RECEIPT VERIFIED');
      expect(r.code).toBe(1);
    }
    const r = await verifyReceiptCli(forged, { service: genuine });
    expect(r.out).toContain('FAIL Step 1 (identify): the signature does not match the record');
    expect(r.out).toContain('FAIL seal over the whole file');
    // (the fixture names the address its service had that day, not the loopback "service" of this test)
    expect(r.out).toMatch(new RegExp(`RECEIPT NOT VERIFIED: this receipt was not issued by ${genuine} `));
  });

  it('refuses a forgery that names its own key set, served by the forger, in every mode', async () => {
    const forged = write(
      'forged-own-keys.pdf',
      await forgeReceipt(json, forgerKeySet, { origin: forger, version: 3 }),
    );
    // the file claims the forger's address; nothing fetches it unless the reader names it
    const none = await verifyReceiptCli(forged);
    clean(none);
    expect(none.out).toContain(`The file says: issued by ${forger}`);
    expect(none.out).toContain('NOT VERIFIED: name the service you trust');
    expect(none.code).toBe(1);

    const self = await verifyReceiptCli(forged, { selfConsistentOnly: true });
    clean(self);
    expect(self.out).toContain('SELF-CONSISTENT ONLY');
    expect(self.out).toContain('NOT VERIFIED: name the service you trust');
    expect(self.code).toBe(1);

    for (const opts of [{ service: genuine }, { jwks: JWKS }]) {
      const r = await verifyReceiptCli(forged, opts);
      clean(r);
      expect(r.out).toContain(
        `FAIL Step 1 (identify): no key with kid ${forgerKeySet.audit.kid} in the key set`,
      );
      expect(r.out).toContain('FAIL seal over the whole file: no key with kid');
      expect(r.out).not.toContain('RECEIPT VERIFIED');
      expect(r.code).toBe(1);
    }
    expect((await verifyReceiptCli(forged, { service: genuine })).out).toMatch(
      new RegExp(
        `RECEIPT NOT VERIFIED: this receipt was not issued by ${genuine} \\(it names ${forger}\\)\\n$`,
      ),
    );

    // Only a reader who names the forger's address as the service they trust gets a verdict, and it names
    // exactly that origin (never the service the forged page imitates).
    const named = await verifyReceiptCli(forged, { service: forger });
    clean(named);
    expect(named.out).toMatch(new RegExp(`RECEIPT VERIFIED against ${forger}\\n$`));
  });

  it('one key, one purpose: a version-3 seal by an audit key, or a step signed by a seal key, is refused', async () => {
    const sameKey = forgerKeys(forgerKeySet.audit.kid); // the seal made with the audit-signing key
    const s = await keySetServer(sameKey.jwks);
    closers.push(s.close);
    const sealedByAudit = write(
      'sealed-by-audit-key.pdf',
      await forgeReceipt(json, sameKey, { origin: s.origin, version: 3 }),
    );
    const r = await verifyReceiptCli(sealedByAudit, { service: s.origin });
    clean(r);
    expect(r.out).toContain('OK   Step 1 (identify)');
    expect(r.out).toContain(
      `FAIL seal over the whole file: the key ${sameKey.audit.kid} is not published as a receipt-seal key`,
    );
    expect(r.code).toBe(1);

    const swapped = forgerKeys(forgerKeySet.seal.kid, forgerKeySet.seal.kid);
    swapped.jwks.keys[0].purpose = 'receipt-seal'; // the records signed with the seal key
    const t = await keySetServer(swapped.jwks);
    closers.push(t.close);
    const stepsBySeal = write(
      'steps-by-seal-key.pdf',
      await forgeReceipt(json, swapped, { origin: t.origin, version: 3 }),
    );
    const q = await verifyReceiptCli(stepsBySeal, { service: t.origin });
    clean(q);
    expect(q.out).toContain('a receipt-seal key, which never signs audit records');
    expect(q.code).toBe(1);
  });
});

describe('verify-receipt: bad input gets a clear verdict and a non-zero exit, never a crash', () => {
  it('a receipt of another service', async () => {
    const other = await keySetServer(forgerKeys('projects/other/cryptoKeyVersions/1').jwks);
    closers.push(other.close);
    const r = await verifyReceiptCli(RECEIPT, { service: other.origin });
    clean(r);
    expect(r.out).toContain(`FAIL Step 1 (identify): no key with kid ${serviceKid} in the key set`);
    expect(r.out).toMatch(
      new RegExp(
        `RECEIPT NOT VERIFIED: this receipt was not issued by ${other.origin} \\(it names http://127\\.0\\.0\\.1:45761\\)\\n$`,
      ),
    );
    expect(r.code).toBe(1);
  });

  it('a truncated PDF, a file that is no PDF, a missing file', async () => {
    const whole = fs.readFileSync(RECEIPT);
    for (const [name, bytes] of [
      ['truncated.pdf', whole.subarray(0, Math.floor(whole.length / 2))],
      ['tail-cut.pdf', whole.subarray(0, whole.length - 200)],
      ['not-a-pdf.pdf', Buffer.from('hello')],
    ] as const) {
      const r = await verifyReceiptCli(write(name, bytes), { service: genuine });
      clean(r);
      expect(r.out).toMatch(/FAIL /);
      expect(r.out).toMatch(/RECEIPT NOT VERIFIED/);
      expect(r.code).toBe(1);
    }
    const half = await verifyReceiptCli(path.join(dir, 'truncated.pdf'), { service: genuine });
    expect(half.out).toContain('FAIL attachment: not a complete, readable PDF: damaged or cut short');
    const missing = await verifyReceiptCli(path.join(dir, 'nowhere.pdf'), { service: genuine });
    clean(missing);
    expect(missing.out).toContain('FAIL cannot read');
    expect(missing.code).toBe(1);
  });

  it('a key set that does not answer, answers an error, or answers something else', async () => {
    const silent = await loopbackServer(() => {}); // accepts, never answers
    const failing = await loopbackServer((_q, res) => res.writeHead(503).end('down'));
    const html = await loopbackServer((_q, res) => res.writeHead(200).end('<html>hello</html>'));
    const notASet = await loopbackServer((_q, res) => res.writeHead(200).end('{"hello":1}'));
    closers.push(silent.close, failing.close, html.close, notASet.close);
    const cases: Array<[string, RegExp]> = [
      [silent.origin, /\(no answer in time\)/],
      [failing.origin, /answered 503/],
      [html.origin, /did not answer with a key set \(not JSON\)/],
      [notASet.origin, /is not a key set/],
      ['http://127.0.0.1:1', /cannot fetch http:\/\/127\.0\.0\.1:1\//],
      ['http://verify.example', /the key set must come over https/],
      ['not a url at all', /is not the address of a service/],
    ];
    for (const [service, why] of cases) {
      const r = await verifyReceiptCli(RECEIPT, { service, env: { VERIFY_KEY_SET_TIMEOUT_MS: '800' } });
      clean(r);
      expect(r.out).toMatch(why);
      expect(r.out).toMatch(/RECEIPT NOT VERIFIED: /);
      expect(r.code).toBe(1);
    }
  });
});
