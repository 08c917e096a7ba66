// The receipt file alone, read back with poppler (pdftotext, pdfdetach, pdffonts) the way a signer's tools
// read it: names in Latin Extended, Cyrillic and Greek render from the embedded font, the labels are there,
// receipt.json is an embedded file with the same data, and verification fails on any edit.
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from '../audit/canonical-json';
import { type ReceiptData, renderReceiptPdf } from './receipt.document';
import { verifyReceiptPdf } from './receipt.verify';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'receipt-doc-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = {
  ...publicKey.export({ format: 'jwk' }),
  kid: 'projects/t/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1',
  alg: 'ES256',
  use: 'sig',
};

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
    const f = write(
      'partial.pdf',
      await renderReceiptPdf(receiptOf(claims, { partial: true, example: true })),
    );
    const text = run('pdftotext', ['-layout', f, '-']);
    for (const s of ['Ирина Ελένη', 'Łukaszewicz-Şahin', 'Łukasz & Şule', 'Проверка личности', 'Επαλήθευση'])
      expect(text).toContain(s);
    expect(text).toContain('EXAMPLE');
    expect(text).toContain('PARTIAL');
    expect(text).toContain('not a new');
    // a second document in the same process renders every glyph too (no state shared between subsets)
    const other = receiptOf(
      { given_name: 'Επιβεβαιώνω', family_name: 'Onaylıyorum' },
      { partial: false, example: false },
    );
    const g = write('second.pdf', await renderReceiptPdf(other));
    const text2 = run('pdftotext', ['-layout', g, '-']);
    expect(text2).toContain('Επιβεβαιώνω');
    expect(text2).toContain('Onaylıyorum');
    const fonts = run('pdffonts', [f]);
    expect(fonts).toMatch(/DejaVuSans.*CID TrueType.*yes\s+(yes|no)\s+yes/);
  });

  it('carries receipt.json as an embedded file that pdfdetach extracts byte for byte', async () => {
    const data = receiptOf(claims, { partial: false, example: false });
    const f = write('final.pdf', await renderReceiptPdf(data));
    expect(run('pdfdetach', ['-list', f])).toMatch(/1: receipt\.json/);
    run('pdfdetach', ['-save', '1', '-o', path.join(dir, 'out.json'), f]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8'))).toEqual(data);
    const text = run('pdftotext', [f, '-']);
    expect(text).not.toContain('PARTIAL');
    expect(text).not.toContain('EXAMPLE');
  });

  it('verifies a genuine receipt and fails an edited page, an edited JSON and a forged signature', async () => {
    const data = receiptOf(claims, { partial: false, example: false });
    const pdf = await renderReceiptPdf(data);
    expect((await verifyReceiptPdf(pdf)).every((v) => v.ok)).toBe(true);

    // an edited page: the same attachment, an extra line of text
    const doc = await PDFDocument.load(pdf);
    doc.getPage(0).drawText('Amount: 1,000,000 EUR', { x: 50, y: 50, size: 10 });
    const editedPage = await doc.save({ useObjectStreams: false });
    const v1 = await verifyReceiptPdf(editedPage);
    expect(v1.find((v) => v.check === 'pdf matches receipt.json')?.ok).toBe(false);

    // an edited JSON, re-rendered so that the page matches it: the signed result digest no longer does
    const forged = structuredClone(data);
    ((forged.steps[0] as ReceiptData['steps'][number]).result.claims as Record<string, string>).family_name =
      'Someone Else';
    const v2 = await verifyReceiptPdf(await renderReceiptPdf(forged));
    expect(v2.find((v) => v.check.startsWith('step 0'))).toMatchObject({ ok: false });
    expect(v2.find((v) => v.check.startsWith('step 0'))?.detail).toContain('result_digest');

    // a record edited together with its digest: the signature fails
    const resigned = structuredClone(data);
    const rec = resigned.steps[0]?.audit_record as unknown as Record<string, unknown>;
    rec.signed_at = '2030-01-01T00:00:00.000Z';
    const { service_signature: _s, ...content } = rec;
    (resigned.steps[0] as { audit_digest: string }).audit_digest = createHash('sha256')
      .update(canonicalJson(content))
      .digest('hex');
    const v3 = await verifyReceiptPdf(await renderReceiptPdf(resigned));
    expect(v3.find((v) => v.check.startsWith('step 0'))?.detail).toContain('signature does not match');
  });
});
