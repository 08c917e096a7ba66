// Owns the in-browser check of a receipt PDF on the service's /verify page (ADR 0047), with WebCrypto only and
// nothing uploaded. The same verdict rules as server/src/modules/receipt/receipt.verify.ts (the verify-receipt
// command), against the key set of the page's own origin, never keys or addresses written in the file:
//   - the seal: exactly one `/ReceiptSeal <144 hex>` in the file; ECDSA P-256 over SHA-256 of the file with
//     those digits set to "0", by a key of this origin's key set whose purpose is receipt-seal (receipts of
//     version 2: the audit key, as they were sealed before the seal had a key of its own);
//   - each step: its audit digest, result digest, session, hash chain and service_signature (audit keys only).
// receipt.json is read from the file's one EmbeddedFile stream (FlateDecode through DecompressionStream); a
// genuine receipt has exactly one, and the seal covers every byte, so what the seal vouches for is what is read.
// No DOM or framework imports: the unit test runs this module in Node's WebCrypto.
import {
  type AuditJwks,
  canonicalJson,
  derToRawSignature,
  verifyAuditRecord,
} from '../dashboard/audit-verify';

export type { AuditJwks };

export interface CheckLine {
  /** 'file' | 'seal' | 'step' */
  kind: 'file' | 'seal' | 'step';
  /** Step number as on the receipt (1-based), for kind 'step'. */
  step?: number;
  primitive?: string;
  ok: boolean;
  /** Why it failed, or a note for a check whose rule changed (English, technical: shown small). */
  detail?: string;
  /** The seal of a version-2 receipt was made with the audit key (the rule of that release). */
  legacySeal?: boolean;
}

export interface ReceiptClaims {
  business: string;
  origin: string | null;
  generatedAt: string;
  steps: number;
  totalSteps: number;
  partial: boolean;
  example: boolean;
  version: number;
}

export interface ReceiptCheck {
  /** Every check passed against this origin's key set. */
  verified: boolean;
  /** The file is not a receipt at all (no PDF, damaged, no receipt.json). */
  unreadable: boolean;
  lines: CheckLine[];
  claims: ReceiptClaims | null;
}

const SEAL_MARK = '/ReceiptSeal <';
const SEAL_DIGITS = 144;
const latin1 = (b: Uint8Array) => {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000)
    s += String.fromCharCode(...Array.from(b.subarray(i, i + 0x8000)));
  return s;
};
const hex = (b: ArrayBuffer) =>
  Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
const b64url = (b: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(b)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const sha256 = (b: Uint8Array<ArrayBuffer>) => crypto.subtle.digest('SHA-256', b);

async function inflate(data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** receipt.json of the file's one EmbeddedFile stream, or why there is none. */
export async function readReceiptJson(
  pdf: Uint8Array<ArrayBuffer>,
): Promise<{ data: Record<string, unknown> } | { problem: string }> {
  const text = latin1(pdf);
  if (!text.startsWith('%PDF-')) return { problem: 'not a PDF file' };
  const found = [...text.matchAll(/\/Type\s*\/EmbeddedFile\b/g)];
  if (found.length !== 1)
    return { problem: found.length ? 'more than one attachment' : 'no receipt.json attached' };
  const at = found[0]?.index ?? 0;
  const dictStart = text.lastIndexOf('obj', at);
  const streamAt = text.indexOf('stream', at);
  if (dictStart < 0 || streamAt < 0)
    return { problem: 'the attachment cannot be read (damaged or cut short)' };
  const dict = text.slice(dictStart, streamAt);
  const length = /\/Length\s+(\d+)\s*(?:\/|>>)/.exec(dict);
  let start = streamAt + 'stream'.length;
  if (text[start] === '\r') start++;
  if (text[start] === '\n') start++;
  const end = length ? start + Number(length[1]) : text.indexOf('endstream', start);
  if (end < start || end > pdf.length || text.indexOf('endstream', end) < 0)
    return { problem: 'the attachment cannot be read (damaged or cut short)' };
  let bytes: Uint8Array = pdf.subarray(start, end);
  try {
    if (/\/Filter\s*\/FlateDecode/.test(dict)) bytes = await inflate(pdf.slice(start, end));
    else if (/\/Filter/.test(dict)) return { problem: 'the attachment is encoded in an unknown way' };
    const data = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    if (data?.type !== 'service.receipt') return { problem: 'the attachment is not a receipt' };
    return { data };
  } catch {
    return { problem: 'the attachment cannot be read (damaged or cut short)' };
  }
}

type Jwk = Record<string, unknown>;
const keysOf = (jwks: AuditJwks): Jwk[] => (Array.isArray(jwks?.keys) ? jwks.keys : []);

async function checkSeal(pdf: Uint8Array<ArrayBuffer>, data: Record<string, unknown>, jwks: AuditJwks) {
  const line = (ok: boolean, detail?: string, legacySeal?: boolean): CheckLine => ({
    kind: 'seal',
    ok,
    ...(detail ? { detail } : {}),
    ...(legacySeal ? { legacySeal } : {}),
  });
  const kid = (data.seal as { kid?: unknown } | undefined)?.kid;
  if (typeof kid !== 'string') return line(false, 'the file names no seal of the service');
  const text = latin1(pdf);
  const starts: number[] = [];
  for (let at = text.indexOf(SEAL_MARK); at >= 0; at = text.indexOf(SEAL_MARK, at + 1)) {
    const s = at + SEAL_MARK.length;
    if (new RegExp(`^[0-9a-f]{${SEAL_DIGITS}}>$`).test(text.slice(s, s + SEAL_DIGITS + 1))) starts.push(s);
  }
  if (starts.length !== 1) return line(false, starts.length ? 'more than one seal' : 'no seal in the file');
  const start = starts[0] as number;
  const raw = new Uint8Array(
    (text.slice(start, start + SEAL_DIGITS).match(/../g) ?? []).map((h) => parseInt(h, 16)),
  );
  const derLen = 2 + (raw[1] ?? 0xff);
  if (raw[0] !== 0x30 || derLen > raw.length || raw.subarray(derLen).some((b) => b !== 0))
    return line(false, 'the seal is not a signature');
  const sig = derToRawSignature(raw.subarray(0, derLen));
  const jwk = keysOf(jwks).find((k) => k.kid === kid);
  if (!sig) return line(false, 'the seal is not a signature');
  if (!jwk) return line(false, `no key with kid ${kid} in this service's key set`);
  const legacy = Number(data.version ?? 2) < 3;
  if (!legacy && jwk.purpose !== 'receipt-seal')
    return line(false, `the key ${kid} is not a receipt-seal key`);
  if (legacy && jwk.purpose === 'receipt-seal')
    return line(false, `the key ${kid} is a receipt-seal key, which no receipt of version 2 was sealed with`);
  const zeroed = pdf.slice();
  zeroed.fill(0x30, start, start + SEAL_DIGITS);
  try {
    const key = await crypto.subtle.importKey(
      'jwk',
      { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string, ext: true },
      { name: 'ECDSA', namedCurve: 'P-256' },
      false,
      ['verify'],
    );
    const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, sig, zeroed);
    return ok
      ? line(true, undefined, legacy)
      : line(false, 'the file was changed after the service sealed it');
  } catch {
    return line(false, 'the key or the seal cannot be used');
  }
}

async function checkSteps(data: Record<string, unknown>, jwks: AuditJwks): Promise<CheckLine[]> {
  const steps = Array.isArray(data.steps) ? (data.steps as Array<Record<string, unknown>>) : [];
  if (steps.length === 0) return [{ kind: 'file', ok: false, detail: 'not a receipt with steps' }];
  const audit = { keys: keysOf(jwks).filter((k) => k.purpose !== 'receipt-seal') };
  const sealKids = new Set(
    keysOf(jwks)
      .filter((k) => k.purpose === 'receipt-seal')
      .map((k) => k.kid),
  );
  const session = (data.session as { id?: unknown } | undefined)?.id;
  const out: CheckLine[] = [];
  let previous: string | null = null;
  for (const step of steps) {
    const problems: string[] = [];
    const rec = step.audit_record as Record<string, unknown> | undefined;
    const n = Number(step.stage) + 1;
    if (!rec || typeof rec !== 'object') {
      out.push({
        kind: 'step',
        step: n,
        primitive: String(step.primitive),
        ok: false,
        detail: 'no audit record',
      });
      continue;
    }
    const { service_signature: sig, ...content } = rec;
    try {
      const enc = new TextEncoder();
      const digest = hex(await sha256(enc.encode(canonicalJson(content))));
      if (digest !== step.audit_digest) problems.push('audit digest does not match the record');
      const result = `sha-256:${b64url(await sha256(enc.encode(canonicalJson(step.result))))}`;
      if (result !== rec.result_digest) problems.push('result does not match the signed result_digest');
      if (rec.audit_id !== step.audit_id || rec.stage !== step.stage || rec.primitive !== step.primitive)
        problems.push('step does not match its audit record');
      if (rec.session_id !== session) problems.push('audit record of another session');
      if ((rec.previous_audit_hash ?? null) !== previous) problems.push('hash chain broken');
      previous = digest;
    } catch {
      problems.push('record cannot be canonicalized');
    }
    const kid = (sig as { kid?: unknown } | undefined)?.kid;
    if (sealKids.has(kid)) problems.push('signed with a receipt-seal key, which never signs audit records');
    else {
      const v = await verifyAuditRecord(rec, audit);
      if (!v.ok) problems.push(v.reason.replace('the public key set', "this service's key set"));
    }
    out.push({
      kind: 'step',
      step: n,
      primitive: String(step.primitive),
      ok: problems.length === 0,
      ...(problems.length ? { detail: problems.join('; ') } : {}),
    });
  }
  return out;
}

function claimsOf(data: Record<string, unknown>): ReceiptClaims {
  let origin: string | null = null;
  for (const u of [data.verify_url, data.jwks_url]) {
    try {
      if (!origin && typeof u === 'string') origin = new URL(u).origin;
    } catch {}
  }
  const steps = Array.isArray(data.steps) ? data.steps.length : 0;
  const session = (data.session ?? {}) as { total_steps?: number };
  return {
    business: String((data.business as { name?: unknown } | undefined)?.name ?? ''),
    origin,
    generatedAt: String(data.generated_at ?? ''),
    steps,
    totalSteps: Number(session.total_steps ?? steps),
    partial: data.partial === true,
    example: data.example === true,
    version: Number(data.version ?? 0),
  };
}

/** Checks a receipt PDF against `jwks`, the key set of the service the reader trusts (this page's origin). */
export async function checkReceipt(pdf: Uint8Array<ArrayBuffer>, jwks: AuditJwks): Promise<ReceiptCheck> {
  const read = await readReceiptJson(pdf);
  if ('problem' in read)
    return {
      verified: false,
      unreadable: true,
      claims: null,
      lines: [{ kind: 'file', ok: false, detail: read.problem }],
    };
  const lines = [...(await checkSteps(read.data, jwks)), await checkSeal(pdf, read.data, jwks)];
  return { verified: lines.every((l) => l.ok), unreadable: false, claims: claimsOf(read.data), lines };
}
