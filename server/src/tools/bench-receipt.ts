// Benchmark: receipt PDF generation for a four-step session (identify, age_verify, sign, attestation; signed
// audit records, receipt.json attached, DejaVu Sans subset embedded) next to a bare pdf-lib document with the
// same embedded font and one line of text, measured in the same run. Goal: within 3x of the bare document,
// p50 under 50 ms. Run alone: `tsx server/src/tools/bench-receipt.ts` (BENCH_SMOKE=1 for a quick pass).
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import fontkit from '@pdf-lib/fontkit';
import { PDFDocument } from 'pdf-lib';
import { canonicalDigest, canonicalJson } from '../modules/audit/canonical-json';
import {
  type ReceiptData,
  type ReceiptStep,
  receiptFontBytes,
  renderReceiptPdf,
} from '../modules/receipt/receipt.document';
import type { BenchRow } from './bench/types';

/** A realistic four-step receipt whose audit records are signed like the KMS signs them. */
export function fourStepReceipt(): ReceiptData {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid =
    'projects/local/locations/global/keyRings/service-audit/cryptoKeys/audit-signing/cryptoKeyVersions/1';
  const sessionId = 'sess_0123456789abcdefghjkmnpqrs';
  const jwt = `eyJhbGciOiJFUzI1NiJ9.${'x'.repeat(400)}.${'y'.repeat(86)}`;
  const holder = {
    holder_signature: jwt,
    holder_key: { thumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' },
  };
  const results: [string, Record<string, unknown>, string?][] = [
    [
      'identify',
      { claims: { given_name: 'Ирина Ελένη', family_name: 'Łukaszewicz-Şahin', birth_date: '1990-04-01' } },
    ],
    ['age_verify', { over: true, threshold: 18 }],
    [
      'sign',
      {
        documents: [
          { label: 'Mietvertrag.pdf', sha256: 'a'.repeat(64), size: 48213, content_type: 'application/pdf' },
          { label: 'Anhang.txt', sha256: 'b'.repeat(64), size: 2210, content_type: 'text/plain' },
        ],
        ...holder,
      },
    ],
    [
      'attestation',
      { terms_sha256: 'c'.repeat(64), ...holder },
      'I confirm receipt of the device. '.repeat(12),
    ],
  ];
  let previous: string | null = null;
  const steps: ReceiptStep[] = results.map(([primitive, result, terms], stage) => {
    const content = {
      audit_id: `${sessionId}_${stage}`,
      version: 1 as const,
      type: 'step.completed' as const,
      session_id: sessionId,
      business_id: 'biz_1',
      environment: 'production' as const,
      workflow_id: 'wf_1',
      workflow_revision: 3,
      stage,
      primitive,
      result_digest: `sha-256:${canonicalDigest(result).toString('base64url')}`,
      verification: {
        format: 'dc+sd-jwt',
        issuer: 'https://issuer.example',
        checks: ['signature', 'status'],
      },
      previous_audit_hash: previous,
      signed_at: `2026-11-23T05:0${stage}:00.000Z`,
    };
    const digest = createHash('sha256').update(canonicalJson(content)).digest('hex');
    previous = digest;
    const value = sign('sha256', Buffer.from(canonicalJson(content)), {
      key: privateKey,
      dsaEncoding: 'der',
    });
    return {
      stage,
      primitive,
      completed_at: content.signed_at,
      result,
      ...(terms ? { terms } : {}),
      audit_id: content.audit_id,
      audit_digest: digest,
      audit_record: { ...content, service_signature: { kid, value: value.toString('base64url') } },
    };
  });
  return {
    type: 'service.receipt',
    version: 1,
    generated_at: '2026-11-23T05:10:00.000Z',
    partial: false,
    example: false,
    statement: 'A readable record, not a new signature.',
    session: {
      id: sessionId,
      status: 'completed',
      environment: 'production',
      created_at: '2026-11-23T04:58:00.000Z',
      ended_at: '2026-11-23T05:03:00.000Z',
      total_steps: 4,
    },
    business: { name: 'Łukasz & Şule Sp. z o.o.' },
    workflow: { id: 'wf_1', name: 'Договор аренды · Σύμβαση μίσθωσης', revision: 3 },
    steps,
    keys: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] },
    jwks_url: 'https://api.example/.well-known/service-audit-jwks.json',
  };
}

/** The baseline: a bare pdf-lib document with the same embedded (subset) font and one line. */
async function bareDocument(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(receiptFontBytes(), { subset: true });
  doc.addPage().drawText('Receipt Łukasz Ирина Ελένη', { x: 48, y: 700, size: 12, font });
  return doc.save({ useObjectStreams: false });
}

async function p50(fn: () => Promise<unknown>, iterations: number): Promise<number> {
  for (let i = 0; i < Math.min(5, iterations); i++) await fn(); // warm-up (font parse, JIT)
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

export async function bench(opts: { smoke: boolean }): Promise<BenchRow[]> {
  const iterations = opts.smoke ? 5 : 60;
  const data = fourStepReceipt();
  const bare = await p50(bareDocument, iterations);
  const receipt = await p50(() => renderReceiptPdf(data), iterations);
  return [
    {
      name: 'receipt PDF, four-step session (p50)',
      value: Number(receipt.toFixed(2)),
      unit: 'ms',
      baseline: Number(bare.toFixed(2)),
      baselineName: 'bare pdf-lib doc, same embedded font (p50)',
      // a latency: higher is better, so baseline / value
      ratio: Number((bare / receipt).toFixed(3)),
      goal: 'ratio >= 0.33 (within 3x) and p50 < 50 ms',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await bench({ smoke: process.env.BENCH_SMOKE === '1' });
  for (const r of rows)
    console.log(
      `${r.name}: ${r.value} ${r.unit} | ${r.baselineName}: ${r.baseline} ${r.unit} | ratio ${r.ratio} | goal ${r.goal}`,
    );
}
