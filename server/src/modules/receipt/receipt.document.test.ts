// The receipt file alone, read back with poppler (pdftotext, pdfdetach, pdffonts) the way a signer's tools
// read it: names in Latin Extended, Cyrillic and Greek render from the embedded font, the labels are there,
// receipt.json is an embedded file with the same data, and verification (ADR 0027: signed data and the seal,
// keys from the published set) fails on any edit while another layout of the same data still verifies.
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from '../audit/canonical-json';
import { type ReceiptData, renderReceiptPdf } from './receipt.document';
import { addSealPlaceholder, applySeal, SEAL_COVERS } from './receipt.seal';
import { type ReceiptTrust, verifyReceiptPdf } from './receipt.verify';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receipt-doc-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const KID = 'projects/t/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1';
const jwkOf = (key: KeyObject) => ({ ...key.export({ format: 'jwk' }), kid: KID, alg: 'ES256', use: 'sig' });
const jwk = jwkOf(publicKey);
/** The published key set, as the person obtained it. */
const published: ReceiptTrust = { mode: 'published', jwks: { keys: [jwk] }, source: 'test' };
/** Seals like the KMS does: DER over SHA-256 of the zeroed file. */
const sealerOf = (key: KeyObject) => async (zeroed: Uint8Array) =>
  sign('sha256', zeroed, { key, dsaEncoding: 'der' });
const render = (data: ReceiptData, key: KeyObject = privateKey) => renderReceiptPdf(data, sealerOf(key));

/** A receipt of one identify step whose audit record is signed like the KMS signs (DER over the digest). */
function receiptOf(
  claims: Record<string, string>,
  opts: { partial: boolean; example: boolean },
): ReceiptData {
  const sessionId = 'sess_0123456789abcdefghjkmnpqrs';
  const result = { claims };
  const content = {
    audit_id: `${sessionId}_0`,
    version: 1 as const,
    type: 'step.completed' as const,
    session_id: sessionId,
    business_id: 'biz_1',
    environment: 'sandbox' as const,
    workflow_id: 'wf_1',
    workflow_revision: 1,
    stage: 0,
    primitive: 'identify',
    result_digest: `sha-256:${canonicalDigest(result).toString('base64url')}`,
    verification: { format: 'dc+sd-jwt' },
    previous_audit_hash: null,
    signed_at: '2026-11-23T05:00:00.000Z',
  };
  const digest = createHash('sha256').update(canonicalJson(content)).digest('hex');
  const value = sign('sha256', Buffer.from(canonicalJson(content)), {
    key: privateKey,
    dsaEncoding: 'der',
  }).toString('base64url');
  return {
    type: 'service.receipt',
    version: 1,
    generated_at: '2026-11-23T05:01:00.000Z',
    partial: opts.partial,
    example: opts.example,
    statement: 'A readable record, not a new signature.',
    session: {
      id: sessionId,
      status: opts.partial ? 'in_progress' : 'completed',
      environment: 'sandbox',
      created_at: '2026-11-23T04:59:00.000Z',
      ended_at: null,
      total_steps: opts.partial ? 2 : 1,
    },
    business: { name: 'Łukasz & Şule Sp. z o.o.' },
    workflow: { id: 'wf_1', name: 'Проверка личности · Επαλήθευση', revision: 1 },
    steps: [
      {
        stage: 0,
        primitive: 'identify',
        completed_at: '2026-11-23T05:00:00.000Z',
        result,
        audit_id: content.audit_id,
        audit_digest: digest,
        audit_record: { ...content, service_signature: { kid: jwk.kid, value } },
      },
    ],
    keys: { keys: [jwk] },
    jwks_url: 'http://127.0.0.1/.well-known/service-audit-jwks.json',
    seal: { alg: 'ES256', kid: KID, covers: SEAL_COVERS },
  };
}

const write = (name: string, bytes: Uint8Array) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, bytes);
  return f;
};
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', cwd: dir });

describe('receipt PDF', () => {
  const claims = { given_name: 'Ирина Ελένη', family_name: 'Łukaszewicz-Şahin' };

  it('renders names in Polish, Turkish, Cyrillic and Greek with an embedded font, and the labels', async () => {
    const f = write('partial.pdf', await render(receiptOf(claims, { partial: true, example: true })));
    const text = run('pdftotext', ['-layout', f, '-']);
    for (const s of ['Ирина Ελένη', 'Łukaszewicz-Şahin', 'Łukasz & Şule']) expect(text).toContain(s);
    // the business by its name; the internal workflow name and revision are not the person's (issue 29)
    expect(text).not.toContain('Проверка личности');
    expect(text).not.toMatch(/revision/i);
    expect(text).toContain('EXAMPLE');
    expect(text).toContain('PARTIAL');
    expect(text).toContain('not a new');
    // a second document in the same process renders every glyph too (no state shared between subsets)
    const other = receiptOf(
      { given_name: 'Επιβεβαιώνω', family_name: 'Onaylıyorum' },
      { partial: false, example: false },
    );
    const g = write('second.pdf', await render(other));
    const text2 = run('pdftotext', ['-layout', g, '-']);
    expect(text2).toContain('Επιβεβαιώνω');
    expect(text2).toContain('Onaylıyorum');
    const fonts = run('pdffonts', [f]);
    expect(fonts).toMatch(/DejaVuSans.*CID TrueType.*yes\s+(yes|no)\s+yes/);
  });

  it('speaks the signer’s language with local times, and puts the technical part on its own page', async () => {
    const data = {
      ...receiptOf(
        { ...claims, birth_date: '1964-08-12', nationality: 'DE' },
        { partial: true, example: true },
      ),
      presentation: { lang: 'de' as const, time_zone: 'Europe/Berlin' },
    };
    const f = write('beleg.pdf', await render(data));
    const pages = run('pdftotext', ['-layout', f, '-']).split('\f');
    for (const s of [
      'BEISPIEL · TEILWEISE',
      '1 von 2 Schritten abgeschlossen; die Sitzung ist in Bearbeitung',
      'Vorname: Ирина Ελένη',
      'Nachname: Łukaszewicz-Şahin',
      'Abgeschlossen: 23. November 2026 um 06:00 MEZ',
      'Geburtsdatum: 12. August 1964',
      'Staatsangehörigkeit: Deutschland',
    ])
      expect(pages[0]).toContain(s);
    expect(pages[0]).not.toContain('given_name');
    expect(pages[0]).not.toContain('service_signature');
    expect(pages[1]).toContain('Technische Angaben');
    expect(pages[1]).toContain('service_signature');
    expect(pages[1]).toContain('So prüfen Sie den Beleg');
    const fr = run('pdftotext', [
      '-layout',
      write(
        'recu.pdf',
        await render({ ...data, presentation: { lang: 'fr', time_zone: 'America/New_York' } }),
      ),
      '-',
    ]);
    // French: a (no-break) space before the colon (pdftotext writes it as a space); dates and countries in French
    expect(fr).toContain('Prénom : Ирина Ελένη');
    expect(fr).toContain('Date de naissance : 12 août 1964');
    expect(fr).toContain('Nationalité : Allemagne');
    expect(fr).not.toContain('1964-08-12');
    expect(fr).toContain('23 novembre 2026 à 00:00 UTC−5');
  });

  it('never counts or marks as completed a step whose workflow condition failed the session (issue 29)', async () => {
    // a minor's age check: verified, but the workflow's "over is false => fail" ended the session
    const base = receiptOf(claims, { partial: true, example: false });
    const [step] = base.steps;
    if (!step) throw new Error('no step');
    const condition = { index: 0, claim: 'over', operator: 'equals', outcome: 'fail' };
    const data: ReceiptData = {
      ...base,
      session: { ...base.session, status: 'failed', total_steps: 1 },
      steps: [{ ...step, audit_record: { ...step.audit_record, condition } }],
    };
    const page = (lang: 'en' | 'de' | 'fr') =>
      render({ ...data, presentation: { lang, time_zone: 'UTC' } }).then(
        (bytes) =>
          run('pdftotext', ['-layout', write(`failed-${lang}.pdf`, bytes), '-']).split('\f')[0] ?? '',
      );
    const en = await page('en');
    expect(en).toContain('0 of 1 steps completed; the session is failed');
    expect(en).toContain('Not completed: checked, but the business');
    expect(en).not.toMatch(/Completed: /);
    const de = await page('de');
    expect(de).toContain('0 von 1 Schritten abgeschlossen');
    expect(de).toContain('Nicht abgeschlossen');
    expect(de).not.toMatch(/Abgeschlossen: /);
    const fr = await page('fr');
    expect(fr).toContain('Non terminée');
    expect(fr).not.toMatch(/Terminée : /);
  });

  it('carries receipt.json as an embedded file that pdfdetach extracts byte for byte', async () => {
    const data = receiptOf(claims, { partial: false, example: false });
    const f = write('final.pdf', await render(data));
    expect(run('pdfdetach', ['-list', f])).toMatch(/1: receipt\.json/);
    run('pdfdetach', ['-save', '1', '-o', path.join(dir, 'out.json'), f]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8'))).toEqual(data);
    const text = run('pdftotext', [f, '-']);
    expect(text).not.toContain('PARTIAL');
    expect(text).not.toContain('EXAMPLE');
  });

  it('verifies a genuine receipt, and another layout of the same data, against the published key', async () => {
    const data = receiptOf(claims, { partial: false, example: false });
    const pdf = await render(data);
    const verdicts = await verifyReceiptPdf(pdf, published);
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
    expect(verdicts.find((v) => v.check === 'seal over the whole file')?.detail).toContain('published key');

    // a future layout, font or pdf-lib: a different page around the same receipt.json, sealed by the service,
    // verifies too (nothing is re-rendered and compared)
    const other = await PDFDocument.create();
    other.addPage().drawText('Receipt (another layout)', { x: 50, y: 700, size: 18 });
    addSealPlaceholder(other);
    await other.attach(Buffer.from(JSON.stringify(data)), 'receipt.json', { mimeType: 'application/json' });
    const relaid = await applySeal(await other.save({ useObjectStreams: false }), sealerOf(privateKey));
    expect((await verifyReceiptPdf(relaid, published)).filter((v) => !v.ok)).toEqual([]);
  });

  it('fails an edited page, appended data, an edited JSON and an unsealed receipt', async () => {
    const data = receiptOf(claims, { partial: false, example: false });
    const pdf = await render(data);
    const sealVerdict = async (bytes: Uint8Array) =>
      (await verifyReceiptPdf(bytes, published)).find((v) => v.check === 'seal over the whole file');

    // an edited page: the same attachment, an extra line of text
    const doc = await PDFDocument.load(pdf);
    doc.getPage(0).drawText('Amount: 1,000,000 EUR', { x: 50, y: 50, size: 10 });
    expect(await sealVerdict(await doc.save({ useObjectStreams: false }))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('changed after the service sealed it'),
    });
    // an incremental update appended to the sealed file
    const appended = Buffer.concat([Buffer.from(pdf), Buffer.from('\n1 0 obj\n(x)\nendobj\n')]);
    expect((await sealVerdict(appended))?.ok).toBe(false);

    // an edited JSON, re-rendered and sealed again with the service's own key: the signed result digest fails
    const forged = structuredClone(data);
    ((forged.steps[0] as ReceiptData['steps'][number]).result.claims as Record<string, string>).family_name =
      'Someone Else';
    const v2 = await verifyReceiptPdf(await render(forged), published);
    expect(v2.find((v) => v.check.startsWith('Step 1'))).toMatchObject({ ok: false });
    expect(v2.find((v) => v.check.startsWith('Step 1'))?.detail).toContain('result_digest');

    // a record edited together with its digest: the signature fails
    const resigned = structuredClone(data);
    const rec = resigned.steps[0]?.audit_record as unknown as Record<string, unknown>;
    rec.signed_at = '2030-01-01T00:00:00.000Z';
    const { service_signature: _s, ...content } = rec;
    (resigned.steps[0] as { audit_digest: string }).audit_digest = createHash('sha256')
      .update(canonicalJson(content))
      .digest('hex');
    const v3 = await verifyReceiptPdf(await render(resigned), published);
    expect(v3.find((v) => v.check.startsWith('Step 1'))?.detail).toContain('signature does not match');

    // a receipt without a seal (made before ADR 0027, or stripped) is not verified
    const { seal: _seal, ...unsealed } = data;
    const v4 = await sealVerdict(await renderReceiptPdf({ ...unsealed, version: 1 }));
    expect(v4).toMatchObject({ ok: false, detail: expect.stringContaining('names no seal') });
  });

  it('a forgery under a fresh key with the same kid passes only the self-consistency check', async () => {
    const fresh = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const forged = structuredClone(receiptOf(claims, { partial: false, example: false }));
    const step = forged.steps[0] as ReceiptData['steps'][number];
    step.result = { claims: { given_name: 'Max', family_name: 'Mustermann' } };
    const rec = step.audit_record as unknown as Record<string, unknown>;
    rec.result_digest = `sha-256:${canonicalDigest(step.result).toString('base64url')}`;
    const { service_signature: _s, ...content } = rec;
    step.audit_digest = createHash('sha256').update(canonicalJson(content)).digest('hex');
    rec.service_signature = {
      kid: KID,
      value: sign('sha256', Buffer.from(canonicalJson(content)), {
        key: fresh.privateKey,
        dsaEncoding: 'der',
      }).toString('base64url'),
    };
    forged.keys = { keys: [jwkOf(fresh.publicKey)] };
    const pdf = await render(forged, fresh.privateKey);

    const against = await verifyReceiptPdf(pdf, published);
    expect(against.find((v) => v.check.startsWith('Step 1'))?.detail).toContain('signature does not match');
    expect(against.find((v) => v.check === 'seal over the whole file')?.ok).toBe(false);
    const self = await verifyReceiptPdf(pdf, { mode: 'self-consistent' });
    expect(self.filter((v) => !v.ok)).toEqual([]);
    expect(self.find((v) => v.check.startsWith('Step 1'))?.detail).toContain('self-consistent only');
  });
});
