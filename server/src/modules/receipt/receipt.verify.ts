// Owns offline verification of a receipt (the verify-receipt command and tests), ADR 0027. The verdict rests
// on signed data only, never on re-rendering: each step's result digest, audit digest and hash chain, each
// service_signature, and the service's seal over the whole file (so an edited page fails as well as an edited
// attachment). Keys come from a source the person chose: the service's published key set (fetched or saved).
// The copies of the keys inside the file are used only for an explicit self-consistency check, whose verdict
// never claims more than that the file agrees with itself. Imports no renderer, font or database.
import { createHash, createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { canonicalDigest, canonicalJson } from '../audit/canonical-json';
import { auditRecordProblem, type JwkSet } from '../audit/verify';
import type { ReceiptData } from './receipt.document';
import { extractReceiptJson } from './receipt.file';
import { locateSeal, sealSignature, zeroedForSeal } from './receipt.seal';

export interface ReceiptVerdict {
  check: string;
  ok: boolean;
  detail?: string;
}

/**
 * Where the keys come from. `published`: the service's key set as the person obtained it (`source` says from
 * where, for the verdict). `self-consistent`: the copies inside the file (proves only that it agrees with itself).
 */
export type ReceiptTrust = { mode: 'published'; jwks: JwkSet; source: string } | { mode: 'self-consistent' };

/** receipt.json of a PDF, or why it cannot be read. */
export async function readReceipt(pdf: Uint8Array): Promise<{ data: ReceiptData } | { problem: string }> {
  let json: Buffer | null = null;
  try {
    json = await extractReceiptJson(pdf);
  } catch (e) {
    return { problem: `not a complete, readable PDF: damaged or cut short (${(e as Error).message})` };
  }
  if (!json) return { problem: 'no receipt.json attached' };
  try {
    const data = JSON.parse(json.toString('utf8')) as ReceiptData;
    if (data?.type !== 'service.receipt') return { problem: 'receipt.json is not a receipt' };
    return { data };
  } catch {
    return { problem: 'receipt.json is not valid JSON' };
  }
}

export async function verifyReceiptPdf(pdf: Uint8Array, trust: ReceiptTrust): Promise<ReceiptVerdict[]> {
  const read = await readReceipt(pdf);
  if ('problem' in read) return [{ check: 'attachment', ok: false, detail: read.problem }];
  const { data } = read;
  return [
    { check: 'attachment', ok: true, detail: 'receipt.json found' },
    ...verifyReceiptData(data, trust),
    verifySeal(pdf, data, trust),
  ];
}

const keysOf = (data: ReceiptData, trust: ReceiptTrust): JwkSet =>
  trust.mode === 'published' ? trust.jwks : (data.keys ?? { keys: [] });
const keyWord = (trust: ReceiptTrust) =>
  trust.mode === 'published' ? 'the published key' : 'the key inside the file (self-consistent only)';

/** The seal over the whole file: any edit of a page, the attachment or an appended update breaks it. */
export function verifySeal(pdf: Uint8Array, data: ReceiptData, trust: ReceiptTrust): ReceiptVerdict {
  const check = 'seal over the whole file';
  const fail = (detail: string): ReceiptVerdict => ({ check, ok: false, detail });
  const kid = data.seal?.kid;
  if (typeof kid !== 'string')
    return fail('receipt.json names no seal (a receipt made before sealing, or the seal was removed)');
  const where = locateSeal(pdf);
  if ('problem' in where) return fail(where.problem);
  const der = sealSignature(pdf, where.start);
  if (!der) return fail('the seal is not a signature');
  const jwk = (Array.isArray(keysOf(data, trust).keys) ? keysOf(data, trust).keys : []).find(
    (k) => k.kid === kid,
  );
  if (!jwk) return fail(`no key with kid ${kid} in the key set`);
  // One key, one purpose (ADR 0047): since receipt version 3 the seal has a key of its own. Receipts of
  // version 2 were sealed with the audit key; that rule still applies to them, and the verdict says so.
  const legacy = (data.version ?? 2) < 3;
  if (!legacy && jwk.purpose !== 'receipt-seal')
    return fail(`the key ${kid} is not published as a receipt-seal key`);
  if (legacy && jwk.purpose === 'receipt-seal')
    return fail(`the key ${kid} is a receipt-seal key, which no receipt of version 2 was sealed with`);
  let ok = false;
  try {
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } as JsonWebKey,
      format: 'jwk',
    });
    ok = verify('sha256', zeroedForSeal(pdf, where.start), { key, dsaEncoding: 'der' }, der);
  } catch {
    return fail('the key or the seal cannot be parsed');
  }
  return ok
    ? {
        check,
        ok,
        detail:
          `the file is exactly as the service made it (seal verified with ${keyWord(trust)}` +
          (legacy
            ? "; a receipt of version 2: sealed with the service's audit key, as receipts were before the seal had a key of its own)"
            : ')'),
      }
    : fail('the file was changed after the service sealed it (edited page, attachment or appended data)');
}

/** Verdicts for the JSON alone: one per step, plus the chain. */
export function verifyReceiptData(data: ReceiptData, trust: ReceiptTrust): ReceiptVerdict[] {
  const out: ReceiptVerdict[] = [];
  if (data?.type !== 'service.receipt' || !Array.isArray(data.steps) || data.steps.length === 0)
    return [{ check: 'receipt', ok: false, detail: 'not a receipt with steps' }];
  const keys = keysOf(data, trust);
  let previous: string | null = null;
  for (const step of data.steps) {
    // numbered as on the receipt's page (Step 1 is stage 0)
    const name = `Step ${Number(step.stage) + 1} (${step.primitive})`;
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
      if (rec.session_id !== data.session?.id) problems.push('audit record of another session');
      if ((rec.previous_audit_hash ?? null) !== previous) problems.push('hash chain broken');
      previous = digest;
    } catch {
      problems.push('record cannot be canonicalized');
    }
    const kid = (rec.service_signature as { kid?: unknown } | undefined)?.kid;
    const sealKey = (Array.isArray(keys?.keys) ? keys.keys : []).some(
      (k) => k.kid === kid && k.purpose === 'receipt-seal',
    );
    const sigProblem = sealKey
      ? `signed with ${kid}, a receipt-seal key, which never signs audit records`
      : auditRecordProblem(rec, keys);
    if (sigProblem) problems.push(sigProblem);
    out.push({
      check: name,
      ok: problems.length === 0,
      detail: problems.length ? problems.join('; ') : `signature verified with ${keyWord(trust)}`,
    });
  }
  return out;
}
