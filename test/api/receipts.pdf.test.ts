// The signer's record as the signer and an auditor observe it (the receipt PDFs: partial and final receipts read back with poppler and verified with
// verify-receipt and openssl, and forgeries refused), over real HTTP on MariaDB with a real SMTP
// server and the injected clock (test/support/receipts-suite.ts).
import { generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from '../../server/src/modules/audit/canonical-json';
import {
  KEY_VERSION_TTL_MS,
  LocalKmsProvider,
  loadOrCreateLocalMasterKey,
} from '../../server/src/modules/kms/local-kms.provider';
import { type ReceiptData, renderReceiptPdf } from '../../server/src/modules/receipt/receipt.document';
import { type Json } from '../support/harness';
import { opensslVerifyAudit } from '../support/openssl';
import {
  pdfdetachJson,
  pdftotext,
  SignerBrowser,
  verifyReceiptCli,
  withLineOnPage,
  withReceiptJson,
} from '../support/receipts';
import { HOUR, receiptsSuite, sha256Hex, TERMS } from '../support/receipts-suite';

/**
 * What a forger with the project's renderer does: another given name, every audit record re-signed (digests
 * and chain recomputed) with a fresh key under the service's kid, the keys inside the file replaced by the
 * fresh one, re-rendered and sealed with it.
 */
async function forge(json: Json, givenName: string): Promise<Uint8Array> {
  const fresh = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const data = structuredClone(json) as ReceiptData;
  const first = data.steps[0] as ReceiptData['steps'][number];
  first.result = { ...first.result, claims: { ...(first.result.claims as object), given_name: givenName } };
  let previous: string | null = null;
  for (const step of data.steps) {
    const { service_signature: sig, ...content } = step.audit_record;
    const signed = {
      ...content,
      result_digest: `sha-256:${canonicalDigest(step.result).toString('base64url')}`,
      previous_audit_hash: previous,
    };
    const bytes = Buffer.from(canonicalJson(signed));
    step.audit_digest = sha256Hex(bytes);
    const value = sign('sha256', bytes, { key: fresh.privateKey, dsaEncoding: 'der' }).toString('base64url');
    step.audit_record = { ...signed, service_signature: { kid: sig.kid, value } };
    previous = step.audit_digest;
  }
  const freshJwk = fresh.publicKey.export({ format: 'jwk' });
  data.keys = {
    keys: data.keys.keys.map((k) => ({
      ...freshJwk,
      kid: k.kid,
      alg: 'ES256',
      use: 'sig',
      purpose: k.purpose,
    })),
  };
  return renderReceiptPdf(data, async (zeroed) =>
    sign('sha256', zeroed, { key: fresh.privateKey, dsaEncoding: 'der' }),
  );
}

describe('the signer’s record (receipts): pdf', () => {
  const s = receiptsSuite('receipts_pdf');
  const { clock, files, contract, annex, newFourStep, share, jwks } = s;

  it('gives the bound browser a partial receipt midway and the final one, verifiable offline', async () => {
    const b = await newFourStep();
    expect((await b.read()).json.results).toEqual([]);
    expect((await b.pdf()).json.code).toBe('receipt_not_available');
    await share(b); // identify

    // the spec's signer read: binding cookie, no API key; the completed prefix only; nothing advances
    const read = await b.read();
    expect(read.status).toBe(200);
    expect(read.json).toMatchObject({
      session_id: b.sessionId,
      status: 'in_progress',
      partial: true,
      access_until: null,
    });
    expect(read.json.results).toHaveLength(1);
    expect(read.json.results[0]).toMatchObject({
      stage: 0,
      primitive: 'identify',
      claims: { given_name: 'Erika' },
    });
    expect((await b.client.session()).body.currentStage).toBe(1);
    // another browser, and a business API key without the cookie, are refused
    const other = new SignerBrowser(s.t.baseUrl, b.sessionId);
    expect((await other.read()).json.code).toBe('session_bound_elsewhere');
    expect((await other.pdf()).status).toBe(403);
    expect((await s.api.rest('GET', `/v1/sessions/${b.sessionId}/receipt`)).body.code).toBe(
      'session_bound_elsewhere',
    );
    expect((await new SignerBrowser(s.t.baseUrl, 'sess_doesnotexist0000000000').read()).status).toBe(404);

    const partial = await b.pdf();
    expect(partial.status).toBe(200);
    expect(partial.headers.get('content-type')).toBe('application/pdf');
    const partialFile = files.write('partial.pdf', partial.bytes);
    const partialText = pdftotext(partialFile);
    expect(partialText).toContain('PARTIAL');
    expect(partialText).toContain('EXAMPLE');
    expect(partialText).toContain('1 of 4 steps completed');
    expect(partialText).toContain('Łukasz & Şule');
    // the business by its name; the workflow's internal name and revision are not the person's (issue 29)
    expect(partialText).not.toContain('Договор аренды');
    expect(partialText).not.toMatch(/revision/i);
    expect(partialText).toContain('not a new');
    // verified the way the PDF says: against the service the reader names (http only for this machine)
    const partialCli = await verifyReceiptCli(partialFile, { service: s.t.baseUrl });
    expect(partialText).toContain(`Open ${s.t.baseUrl}/verify and drop this file there`);
    expect(partialText).toContain(`"verify-receipt receipt.pdf --service ${s.t.baseUrl}"`);
    expect(partialText).not.toContain('pnpm');
    expect(partialCli.out).toMatch(new RegExp(`RECEIPT VERIFIED against ${s.t.baseUrl}\n$`));
    expect(partialCli.out).toMatch(
      /plain http accepted only because (127\.0\.0\.1|localhost) is this machine/,
    );
    expect(partialCli.code).toBe(0);

    await share(b); // age_verify
    await share(b); // sign
    await share(b); // attestation
    const final = await b.pdf();
    const finalFile = files.write('final.pdf', final.bytes);
    const text = pdftotext(finalFile);
    expect(text).not.toContain('PARTIAL');
    expect(text).toContain('EXAMPLE');
    expect(text).toContain('Over 18: yes');
    expect(text).toContain(sha256Hex(contract));
    expect(text).toContain('Mietvertrag.pdf');
    expect(text).toContain('Onaylıyorum');
    const json = pdfdetachJson(finalFile);
    expect(json).toMatchObject({ type: 'service.receipt', partial: false, example: true });
    expect(json.steps.map((s: Json) => s.primitive)).toEqual([
      'identify',
      'age_verify',
      'sign',
      'attestation',
    ]);
    expect(json.steps[2].result.documents.map((d: Json) => d.sha256)).toEqual([
      sha256Hex(contract),
      sha256Hex(annex),
    ]);
    expect(json.steps[3].terms).toBe(TERMS);
    // the same records the business reads, verified with openssl against the published key set
    const live = await jwks();
    for (const step of json.steps) {
      expect(opensslVerifyAudit(step.audit_record, live)).toBe(true);
      expect((await s.api.rest('GET', `/v1/audits/${step.audit_id}`)).body).toEqual(step.audit_record);
    }
    const cli = await verifyReceiptCli(finalFile, {
      jwks: files.write('saved-jwks.json', Buffer.from(JSON.stringify(live))),
    });
    expect(cli.out).toContain('OK   Step 4 (attestation): signature verified with the published key');
    expect(cli.out).toContain('OK   seal over the whole file: the file is exactly as the service made it');
    expect(cli.out).toMatch(/RECEIPT VERIFIED against the saved key set \S+saved-jwks\.json\n$/);
    expect(cli.code).toBe(0);

    // an altered attachment fails: the identify step's name changed in receipt.json, the pages untouched
    const altered = structuredClone(json);
    expect(altered.steps[0].result.claims.given_name).toBe('Erika');
    altered.steps[0].result.claims.given_name = 'Erikb';
    const bad = await verifyReceiptCli(
      files.write('tampered.pdf', await withReceiptJson(final.bytes, altered)),
      { service: s.t.baseUrl },
    );
    expect(bad.out).toContain('FAIL Step 1 (identify): result does not match the signed result_digest');
    expect(bad.out).toContain(
      'FAIL seal over the whole file: the file was changed after the service sealed it',
    );
    expect(bad.out).toMatch(/RECEIPT NOT VERIFIED against \S+: the file is not as that service made it/);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe(''); // a verdict, not pnpm's lifecycle error lines

    // in the signer's language and time zone, as the hosted page asks for it: names and values, local times
    // with the zone, the technical part on its own last page; it verifies like any other
    const german = await b.get(`/t/sessions/${b.sessionId}/receipt.pdf?lang=de&tz=Europe%2FBerlin`);
    const germanFile = files.write('beleg.pdf', german.bytes);
    const de = pdftotext(germanFile);
    for (const s of [
      'BEISPIEL',
      'Vorname: Erika',
      'Über 18: ja',
      'Abgeschlossen: 23. November 2026 um 09:00 MEZ',
    ])
      expect(de).toContain(s);
    expect(de).not.toContain('given_name');
    const pages = de.split('\f').filter((page) => page.trim());
    expect(pages[0]).not.toContain('service_signature');
    expect(pages.at(-1)).toContain('Technische Angaben');
    expect(pages.at(-1)).toContain('service_signature');
    expect((await verifyReceiptCli(germanFile, { service: s.t.baseUrl })).code).toBe(0);
    // unknown language or zone: English and UTC, never an error
    const fallback = await b.get(`/t/sessions/${b.sessionId}/receipt.pdf?lang=xx&tz=Mars%2FOlympus`);
    expect(fallback.status).toBe(200);
    expect(pdftotext(files.write('fallback.pdf', fallback.bytes))).toContain(
      'Completed: 23 November 2026 at 08:00 UTC',
    );

    // signed originals: exact bytes with their hash, next to their links
    const state = (await b.state()).data.signerReceipt;
    expect(state).toMatchObject({
      sessionStatus: 'completed',
      partial: false,
      completedSteps: 4,
      totalSteps: 4,
      access: 'open',
      pdfDownloaded: true,
      canClose: true,
    });
    expect(state.accessUntil).toBe(new Date(clock.now().getTime() + 48 * HOUR).toISOString());
    expect(state.originals.map((o: Json) => [o.label, o.sha256])).toEqual([
      ['Mietvertrag.pdf', sha256Hex(contract)],
      ['Anhang.txt', sha256Hex(annex)],
    ]);
    for (const o of state.originals) {
      const got = await b.get(o.url);
      expect(got.status).toBe(200);
      expect(sha256Hex(got.bytes)).toBe(o.sha256);
      expect(got.headers.get('x-document-sha256')).toBe(o.sha256);
    }
  });

  it('refuses a forged receipt in every mode but the self-consistency check, and an edited page', async () => {
    const b = await newFourStep();
    for (let i = 0; i < 4; i++) await share(b);
    const final = await b.pdf();
    const finalFile = files.write('genuine.pdf', final.bytes);
    const json = pdfdetachJson(finalFile);
    const live = await jwks();
    if (process.env.RECEIPT_FIXTURE_DIR) {
      // how test/fixtures/receipts was made (see its README)
      fs.writeFileSync(path.join(process.env.RECEIPT_FIXTURE_DIR, 'receipt.pdf'), final.bytes);
      fs.writeFileSync(
        path.join(process.env.RECEIPT_FIXTURE_DIR, 'service-audit-jwks.json'),
        `${JSON.stringify(live, null, 2)}\n`,
      );
    }

    // another name, every record re-signed with a fresh key under the service's kid, the keys inside the file
    // replaced, re-rendered and sealed with the project's renderer
    const forged = files.write('forged.pdf', await forge(json, 'Max'));
    expect(pdftotext(forged)).toContain('Given name: Max');
    const saved = files.write('published-jwks.json', Buffer.from(JSON.stringify(live)));
    for (const opts of [
      { service: s.t.baseUrl },
      { jwks: saved },
      { jwks: `${s.t.baseUrl}/.well-known/service-audit-jwks.json` },
    ]) {
      const r = await verifyReceiptCli(forged, opts);
      expect(r.out).toContain('FAIL Step 1 (identify): the signature does not match the record');
      expect(r.out).toContain('FAIL seal over the whole file');
      expect(r.out).not.toContain('RECEIPT VERIFIED');
      expect(r.out).toMatch(/RECEIPT NOT VERIFIED against .+: the file is not as/);
      expect(r.code).toBe(1);
      expect(r.err).toBe('');
    }
    for (const opts of [{}, { selfConsistentOnly: true }]) {
      const r = await verifyReceiptCli(forged, opts);
      expect(r.out).toContain('NOT VERIFIED: name the service you trust');
      expect(r.out).not.toContain('RECEIPT VERIFIED');
      expect(r.code).toBe(1);
    }
    const self = await verifyReceiptCli(forged, { selfConsistentOnly: true });
    expect(self.out).toContain(
      'SELF-CONSISTENT ONLY: the file agrees with itself. This does not prove that the service signed it',
    );

    // an edited page: one more line drawn on it, the attachment and its signed data unchanged
    const edited = files.write('edited.pdf', await withLineOnPage(final.bytes, 'given_name: Max'));
    expect(pdftotext(edited)).toMatch(/given_name:\s+Max/);
    const e = await verifyReceiptCli(edited, { service: s.t.baseUrl });
    expect(e.out).toContain('OK   Step 1 (identify): signature verified with the published key');
    expect(e.out).toContain(
      'FAIL seal over the whole file: the file was changed after the service sealed it',
    );
    expect(e.out).toMatch(/RECEIPT NOT VERIFIED against \S+: the file is not as that service made it/);
    expect(e.code).toBe(1);
    expect(e.err).toBe('');
  });

  it('seals with a key of its own, published with its purpose; a rotation keeps earlier receipts verifiable', async () => {
    const b = await newFourStep();
    await share(b);
    const first = files.write('seal-1.pdf', (await b.pdf()).bytes);
    const j1 = pdfdetachJson(first);
    expect(j1.version).toBe(3);
    const auditKid = j1.steps[0].audit_record.service_signature.kid;
    expect(j1.seal.kid).not.toBe(auditKid);
    const live = await jwks();
    const purposeOf = (kid: string) => live.keys.find((k: Json) => k.kid === kid)?.purpose;
    expect(purposeOf(j1.seal.kid)).toBe('receipt-seal');
    expect(purposeOf(auditKid)).toBe('audit-signing');
    expect(live.keys.every((k: Json) => ['receipt-seal', 'audit-signing'].includes(k.purpose))).toBe(true);

    // the operator's rotate-receipt-seal-key, on the service's own database and master key
    const kms = new LocalKmsProvider({
      ds: s.t.svc.ds,
      keyRing: s.t.svc.config.kmsKeyRing,
      masterKey: loadOrCreateLocalMasterKey(s.t.svc.config.dataDir),
      clock,
    });
    const next = await kms.rotate('receipt-seal');
    // another process's rotation reaches the service within KEY_VERSION_TTL_MS (ADR 0044)
    clock.advance(KEY_VERSION_TTL_MS + 1000);
    const second = files.write('seal-2.pdf', (await b.pdf()).bytes);
    expect(pdfdetachJson(second).seal.kid).toBe(next);
    expect(next).not.toBe(j1.seal.kid);
    for (const f of [first, second]) {
      const r = await verifyReceiptCli(f, { service: s.t.baseUrl });
      expect(r.out).toContain('OK   seal over the whole file: the file is exactly as the service made it');
      expect(r.out).toMatch(new RegExp(`RECEIPT VERIFIED against ${s.t.baseUrl}\\n$`));
      expect(r.code).toBe(0);
    }
  });
});
