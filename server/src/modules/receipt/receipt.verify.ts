// Owns offline verification of a receipt (the verify-receipt command and tests): extract receipt.json from
// the PDF, recompute each step's result digest and audit digest, check the hash chain and each
// service_signature (with the key embedded in the receipt, or a live key set), and check that the PDF is
// exactly the rendering of that JSON, so an edited page fails as well as an edited attachment.
import { createHash } from 'node:crypto';
import { canonicalDigest, canonicalJson } from '../audit/canonical-json';
import { auditRecordProblem, type JwkSet } from '../audit/verify';
import { extractReceiptJson, type ReceiptData, renderReceiptPdf } from './receipt.document';

export interface ReceiptVerdict {
  check: string;
  ok: boolean;
  detail?: string;
}

export async function verifyReceiptPdf(pdf: Uint8Array, liveJwks?: JwkSet): Promise<ReceiptVerdict[]> {
  const out: ReceiptVerdict[] = [];
  let json: Buffer | null = null;
  try {
    json = await extractReceiptJson(pdf);
  } catch (e) {
    return [{ check: 'pdf', ok: false, detail: `not a readable PDF (${(e as Error).message})` }];
  }
  if (!json) return [{ check: 'attachment', ok: false, detail: 'no receipt.json attached' }];
  let data: ReceiptData;
  try {
    data = JSON.parse(json.toString('utf8')) as ReceiptData;
  } catch {
    return [{ check: 'attachment', ok: false, detail: 'receipt.json is not valid JSON' }];
  }
  out.push({ check: 'attachment', ok: true, detail: 'receipt.json found' });
  out.push(...verifyReceiptData(data, liveJwks));
  try {
    const again = Buffer.from(await renderReceiptPdf(data));
    const same = again.equals(Buffer.from(pdf));
    out.push({
      check: 'pdf matches receipt.json',
      ok: same,
      ...(same ? {} : { detail: 'the PDF is not the rendering of its receipt.json (edited page or file)' }),
    });
  } catch (e) {
    out.push({ check: 'pdf matches receipt.json', ok: false, detail: (e as Error).message });
  }
  return out;
}

/** Verdicts for the JSON alone: one per step, plus the chain. */
export function verifyReceiptData(data: ReceiptData, liveJwks?: JwkSet): ReceiptVerdict[] {
  const out: ReceiptVerdict[] = [];
  if (data?.type !== 'service.receipt' || !Array.isArray(data.steps) || data.steps.length === 0)
    return [{ check: 'receipt', ok: false, detail: 'not a receipt with steps' }];
  const keys = liveJwks ?? data.keys;
  let previous: string | null = null;
  for (const step of data.steps) {
    const name = `step ${step.stage} (${step.primitive})`;
    const problems: string[] = [];
    const rec = step.audit_record as unknown as Record<string, unknown> | undefined;
    if (!rec || typeof rec !== 'object') {
      out.push({ check: name, ok: false, detail: 'no audit record' });
      continue;
    }
    const { service_signature: _sig, ...content } = rec;
    try {
      const digest = createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex');
      if (digest !== step.audit_digest) problems.push('audit digest does not match the record');
      const resultDigest = `sha-256:${canonicalDigest(step.result).toString('base64url')}`;
      if (resultDigest !== rec.result_digest) problems.push('result does not match the signed result_digest');
      if (rec.audit_id !== step.audit_id || rec.stage !== step.stage || rec.primitive !== step.primitive)
        problems.push('step does not match its audit record');
      if (rec.session_id !== data.session.id) problems.push('audit record of another session');
      if ((rec.previous_audit_hash ?? null) !== previous) problems.push('hash chain broken');
      previous = digest;
    } catch {
      problems.push('record cannot be canonicalized');
    }
    const sigProblem = auditRecordProblem(rec, keys);
    if (sigProblem) problems.push(sigProblem);
    out.push({
      check: name,
      ok: problems.length === 0,
      detail: problems.length
        ? problems.join('; ')
        : `signature verified (${liveJwks ? 'live' : 'embedded'} key)`,
    });
  }
  return out;
}
