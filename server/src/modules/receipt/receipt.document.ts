// Owns the receipt as a file: the machine form (receipt.json) and the readable PDF that carries it as an
// embedded, associated file (pdf-lib `attach`, AFRelationship Data). Pure: data in, bytes out, no database.
// The PDF is a readable record of what the service already signed (the audit records); it adds no signature
// of its own. Text is set in DejaVu Sans (embedded, subset) because pdf-lib's standard fonts are WinAnsi only
// and cannot encode names such as "Łukasz", "Şule", "Ирина" or "Ελένη".
import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import { AFRelationship, PDFDocument, type PDFFont, type PDFPage, rgb } from 'pdf-lib';
import type { AuditRecordView } from '../audit/audit.service';
import type { JwkSet } from '../audit/verify';
import type { Primitive } from '../workflow/primitives/step';

import { RECEIPT_JSON_NAME } from './receipt.file';
import { addSealPlaceholder, applySeal, type ReceiptSealInfo } from './receipt.seal';
import { claimValue } from './receipt.values';
import {
  claimLabel,
  DEFAULT_PRESENTATION,
  localTime,
  RECEIPT_WORDS,
  type ReceiptLang,
  type ReceiptPresentation,
} from './receipt.words';

export { extractReceiptJson } from './receipt.file';
export { RECEIPT_JSON_NAME };
export const RECEIPT_JSON_TYPE = 'application/vnd.service.receipt+json';

export const RECEIPT_STATEMENT =
  'This receipt is a readable record of steps the service already verified and signed. It is not a new ' +
  'signature. Each step is backed by an audit record whose service_signature anyone can verify offline ' +
  "against the service's published key set; the service's seal over this file shows the page was not edited.";

export interface ReceiptStep {
  stage: number;
  primitive: string;
  completed_at: string;
  /** The result exactly as the business received it (its canonical SHA-256 is the record's result_digest). */
  result: Record<string, unknown>;
  /** attestation: the terms the signer approved (their SHA-256 is in the result). */
  terms?: string;
  audit_id: string;
  /** Hex SHA-256 of the canonical record content (without service_signature): the signed digest. */
  audit_digest: string;
  /** The full audit record with its detached service_signature, as GET /v1/audits/{id} returns it. */
  audit_record: AuditRecordView;
}

/**
 * True when the step's workflow condition failed the session (its signed audit record says `outcome: fail`,
 * e.g. a minor's age check): verified, but not a completed step (issue 29). Read from the record itself, so a
 * receipt saved earlier counts the same way.
 */
export const conditionFailed = (step: Pick<ReceiptStep, 'audit_record'>): boolean =>
  step.audit_record.condition?.outcome === 'fail';

/** The steps a receipt counts as completed ("N of M steps"): never one a workflow condition failed. */
export const completedStepCount = (data: Pick<ReceiptData, 'steps'>): number =>
  data.steps.filter((step) => !conditionFailed(step)).length;

/** receipt.json: everything needed to verify every step offline, without the service. */
export interface ReceiptData {
  type: 'service.receipt';
  /** 1: no seal (before ADR 0027); 2: sealed with the audit key; 3: sealed with the receipt-seal key (ADR 0047). */
  version: 1 | 2 | 3;
  generated_at: string;
  /** partial: the session did not complete every step; example: a sandbox session (test data). */
  partial: boolean;
  example: boolean;
  statement: string;
  session: {
    id: string;
    status: string;
    environment: 'sandbox' | 'production';
    created_at: string;
    ended_at: string | null;
    total_steps: number;
  };
  business: { name: string };
  workflow: { id: string; name: string; revision: number };
  steps: ReceiptStep[];
  /**
   * Copies of the public keys (JWK) of every kid used (steps and seal). A verifier trusts them only when
   * asked for a self-consistency check: a verdict rests on the service's published key set (jwks_url).
   */
  keys: JwkSet;
  jwks_url: string;
  /**
   * The service's verification page (version 3): where a person checks this file in the browser. Like
   * jwks_url, only what the file claims: a verifier trusts the service the reader names, never this address.
   */
  verify_url?: string;
  /** The seal over the whole file (ADR 0027); absent on receipts made before it. */
  seal?: ReceiptSealInfo;
  /** The page's language and time zone (the signer's, from the hosted page); absent: English, UTC. */
  presentation?: ReceiptPresentation;
}

/** The origin of the service that made the receipt (what the file says; shown to the person to check). */
export function serviceOrigin(data: Pick<ReceiptData, 'jwks_url' | 'verify_url'>): string {
  try {
    return new URL(String(data.verify_url ?? data.jwks_url)).origin;
  } catch {
    return String(data.verify_url ?? data.jwks_url ?? '');
  }
}

/** Makes the seal of a rendered receipt: gets the file with its seal zeroed, returns a DER signature. */
export type ReceiptSealer = (zeroedPdf: Uint8Array) => Promise<Uint8Array>;

let fontBytes: Uint8Array | undefined;
/** DejaVu Sans from the npm package `dejavu-fonts-ttf` (Bitstream Vera licence), read once. */
export function receiptFontBytes(): Uint8Array {
  if (!fontBytes) {
    const require = createRequire(import.meta.url);
    fontBytes = fs.readFileSync(require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));
  }
  return fontBytes;
}

/**
 * OpenType features off: the receipt sets Latin, Greek and Cyrillic text that needs no shaping, and fontkit's
 * per-line GSUB/GPOS pass was most of the render time (bench-receipt.ts). Kerning off changes spacing only.
 */
const NO_SHAPING = {
  kern: false,
  liga: false,
  clig: false,
  calt: false,
  ccmp: false,
  locl: false,
  mark: false,
  mkmk: false,
  rlig: false,
};

const PAGE = { width: 595.28, height: 841.89, margin: 48 }; // A4 in points
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.38, 0.4, 0.45);
const ALERT = rgb(0.62, 0.18, 0.05);

/** Lays out lines top to bottom, wrapping long text and adding pages as needed. */
class Writer {
  private page!: PDFPage;
  private y = 0;
  constructor(
    private readonly doc: PDFDocument,
    private readonly font: PDFFont,
  ) {
    this.newPage();
  }
  /** Starts a new page (the technical part starts on its own). */
  newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - PAGE.margin;
  }
  /** Advance widths per character at size 1, cached: fontkit layout per call is slow for long tokens. */
  private readonly advance = new Map<string, number>();
  private width(text: string, size: number): number {
    let w = 0;
    for (const ch of text) {
      let a = this.advance.get(ch);
      if (a === undefined) {
        a = this.font.widthOfTextAtSize(ch, 1);
        this.advance.set(ch, a);
      }
      w += a;
    }
    return w * size;
  }
  private wrap(text: string, size: number, width: number): string[] {
    const out: string[] = [];
    for (const para of text.split('\n')) {
      let line = '';
      for (const word of para.split(/(\s+)/)) {
        const next = line + word;
        if (this.width(next, size) <= width) {
          line = next;
          continue;
        }
        if (line.trim()) out.push(line.trimEnd());
        line = word.trimStart();
        // a single token wider than the line (a hash, a JWT): break it by characters
        while (this.width(line, size) > width) {
          let i = 0;
          let w = 0;
          for (const ch of line) {
            w += this.width(ch, size);
            if (w > width) break;
            i += ch.length;
          }
          out.push(line.slice(0, Math.max(i, 1)));
          line = line.slice(Math.max(i, 1));
        }
      }
      out.push(line.trimEnd());
    }
    return out;
  }
  text(text: string, opts: { size?: number; color?: ReturnType<typeof rgb>; indent?: number } = {}): void {
    const size = opts.size ?? 10;
    const indent = opts.indent ?? 0;
    const lh = size * 1.35;
    for (const line of this.wrap(text, size, PAGE.width - 2 * PAGE.margin - indent)) {
      if (this.y - lh < PAGE.margin) this.newPage();
      this.y -= lh;
      this.page.drawText(line, {
        x: PAGE.margin + indent,
        y: this.y,
        size,
        font: this.font,
        color: opts.color ?? INK,
      });
    }
  }
  gap(points = 8): void {
    this.y -= points;
  }
  rule(): void {
    if (this.y - 10 < PAGE.margin) this.newPage();
    this.y -= 6;
    this.page.drawLine({
      start: { x: PAGE.margin, y: this.y },
      end: { x: PAGE.width - PAGE.margin, y: this.y },
      thickness: 0.5,
      color: MUTED,
    });
    this.y -= 4;
  }
}

const short = (s: string, n = 48): string => (s.length > n ? `${s.slice(0, n)}…` : s);
type Words = (typeof RECEIPT_WORDS)[ReceiptLang];

/** The readable lines of one step's result for the person, per primitive: names and values, in their language. */
const RESULT_LINES: Record<
  Primitive,
  (r: Record<string, unknown>, step: ReceiptStep, w: Words, lang: ReceiptLang) => string[]
> = {
  identify: (r, _step, w, lang) => {
    const claims = (r.claims ?? {}) as Record<string, unknown>;
    return Object.entries(claims).map(([k, v]) => `${claimLabel(k, w)}${w.colon}${claimValue(k, v, lang)}`);
  },
  age_verify: (r, _step, w) => [w.over(String(r.threshold), r.over === true)],
  sign: (r, _step, w) => {
    // the document by its label; its fingerprint to match the saved file (type and size stay in receipt.json)
    const docs = (r.documents ?? []) as { label: string; sha256: string }[];
    return docs.flatMap((d) => [`${w.document}${w.colon}${d.label}`, `  SHA-256${w.colon}${d.sha256}`]);
  },
  attestation: (r, step, w) => [
    ...(step.terms !== undefined ? [`${w.terms}${w.colon}${step.terms}`] : []),
    `${w.terms} SHA-256${w.colon}${String(r.terms_sha256)}`,
  ],
};

/** The readable lines of one step's result (a primitive this build does not know: its JSON). */
function resultLines(step: ReceiptStep, w: Words, lang: ReceiptLang): string[] {
  const lines = (RESULT_LINES as Partial<Record<string, (typeof RESULT_LINES)[Primitive]>>)[step.primitive];
  return lines ? lines(step.result, step, w, lang) : [JSON.stringify(step.result)];
}

/** Who did the step (ADR 0026 holder_binding), in words; null for results completed before it existed. */
function presentedBy(b: unknown, w: Words): string | null {
  const { by, bound_to_stage: to } = (b ?? {}) as Record<string, unknown>;
  const kinds = ['first', 'holder_key', 'claims', 'opted_out'] as const;
  const kind = kinds.find((k) => k === by);
  return kind ? w.presentedBy(kind, typeof to === 'number' ? to + 1 : 1) : null;
}

/** The technical lines of one step (last pages): holder key and signature, then the audit record's facts. */
function technicalLines(step: ReceiptStep, w: Words): string[] {
  const r = step.result;
  const key = (r.holder_key ?? {}) as { thumbprint?: string };
  return [
    ...(r.holder_key ? [`${w.holderKey}: ${key.thumbprint ?? '-'}`] : []),
    ...(r.holder_signature !== undefined
      ? [`${w.holderSignature}: ${short(String(r.holder_signature))} (${w.fullValueIn} ${RECEIPT_JSON_NAME})`]
      : []),
    `${w.auditId}: ${step.audit_id}`,
    `${w.auditDigest}: ${step.audit_digest}`,
    `${w.signingKey}: ${step.audit_record.service_signature.kid}`,
    `service_signature: ${step.audit_record.service_signature.value}`,
  ];
}

/**
 * Builds the receipt PDF with receipt.json attached, and seals it when `data.seal` names a key (then `seal`
 * signs with that key). Deterministic for the same data (no random ids).
 */
export async function renderReceiptPdf(data: ReceiptData, seal?: ReceiptSealer): Promise<Uint8Array> {
  if (data.seal && !seal) throw new Error('receipt data names a seal key but no sealer was given');
  const doc = await PDFDocument.create({ updateMetadata: false });
  // A parsed fontkit font must not be shared between documents: a subset built from a font that already
  // served another document's subset loses glyphs (seen: 'Επιβεβαιώνω' rendered as 'Επ β βα ώνω').
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(receiptFontBytes(), { subset: true, features: NO_SHAPING });
  const at = new Date(data.generated_at);
  doc.setTitle(`Receipt: ${data.business.name}`);
  doc.setSubject('Record of completed verification steps (not a signature)');
  doc.setProducer('credential verification service');
  doc.setCreationDate(at);
  doc.setModificationDate(at);

  const p = data.presentation ?? DEFAULT_PRESENTATION;
  const words = RECEIPT_WORDS[p.lang] ?? RECEIPT_WORDS.en;
  const when = (iso: string | null | undefined) => localTime(iso, p);
  const w = new Writer(doc, font);
  const labels = [data.example ? words.example : null, data.partial ? words.partial : null].filter(Boolean);
  if (labels.length) {
    w.text(labels.join(' · '), { size: 16, color: ALERT });
    if (data.example) w.text(words.exampleNote, { color: ALERT });
    if (data.partial)
      w.text(
        words.partialNote(
          completedStepCount(data),
          data.session.total_steps,
          words.status[data.session.status] ?? data.session.status,
        ),
        { color: ALERT },
      );
    w.gap();
  }
  w.text(words.title, { size: 20 });
  // the business by the name it shows the person; its internal workflow name and revision stay in receipt.json
  w.text(data.business.name, { size: 12 });
  w.gap(4);
  w.text(`${words.started}${words.colon}${when(data.session.created_at)}`);
  if (data.session.ended_at) w.text(`${words.ended}${words.colon}${when(data.session.ended_at)}`);
  w.text(`${words.generated}${words.colon}${when(data.generated_at)}`);
  w.gap();
  w.text(words.statement, { size: 9, color: MUTED });
  const title = (step: ReceiptStep) =>
    `${words.step} ${step.stage + 1}${words.colon}${(words.primitive as Partial<Record<string, string>>)[step.primitive] ?? step.primitive}`;
  for (const step of data.steps) {
    w.rule();
    w.text(title(step), { size: 13 });
    // never a success mark for a step whose workflow condition failed the session (issue 29)
    if (conditionFailed(step)) w.text(words.notCompleted, { color: ALERT });
    else w.text(`${words.completed}${words.colon}${when(step.completed_at)}`, { color: MUTED });
    for (const line of resultLines(step, words, p.lang)) w.text(line, { indent: 8 });
    const who = presentedBy(step.result.holder_binding, words);
    if (who) w.text(who, { indent: 8 });
  }

  // the technical part, on its own page
  w.newPage();
  w.text(words.technical, { size: 14 });
  w.text(words.technicalNote, { size: 9, color: MUTED });
  const status = words.status[data.session.status] ?? data.session.status;
  w.text(`${words.session}: ${data.session.id.slice(0, 12)}… (${status}, ${data.session.environment})`, {
    size: 8,
    color: MUTED,
  });
  for (const step of data.steps) {
    w.rule();
    w.text(title(step), { size: 10 });
    for (const line of technicalLines(step, words)) w.text(line, { size: 8, color: MUTED });
  }
  w.rule();
  w.text(words.howToVerify, { size: 12 });
  w.text(words.howToVerifyText(serviceOrigin(data), RECEIPT_JSON_NAME), { size: 9 });

  if (data.seal) addSealPlaceholder(doc);
  await doc.attach(Buffer.from(JSON.stringify(data, null, 2), 'utf8'), RECEIPT_JSON_NAME, {
    mimeType: 'application/json',
    description: 'The receipt in machine form: audit records, signatures and verifying keys',
    creationDate: at,
    modificationDate: at,
    afRelationship: AFRelationship.Data,
  });
  const bytes = await doc.save({ useObjectStreams: false });
  return data.seal && seal ? applySeal(bytes, seal) : bytes;
}
