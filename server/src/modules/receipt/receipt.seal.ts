// Owns the receipt's seal (ADR 0027): the service's ECDSA P-256 signature (the audit key, published in
// /.well-known/service-audit-jwks.json) over the whole PDF file, so that an edited page, an edited attachment
// or anything appended is detected without re-rendering the receipt. The signature sits in the PDF's document
// information dictionary as `/ReceiptSeal <hex>`, a fixed-width hex string (144 digits: a DER signature of at
// most 72 bytes, padded with zeros). What is signed is SHA-256 of the file with those 144 digits set to "0"
// (same length, same offsets), so nothing but the seal itself is outside the signed bytes.
// Pure: bytes in, bytes out; no renderer, no database. Shared by the service (sealing) and the verifier.
import { createHash } from 'node:crypto';
import type { PDFDict, PDFDocument } from 'pdf-lib';
import { PDFHexString, PDFName } from 'pdf-lib';

export const SEAL_ENTRY = 'ReceiptSeal';
export const SEAL_HEX_DIGITS = 144;
const ZEROS = '0'.repeat(SEAL_HEX_DIGITS);
const MARK = Buffer.from(`/${SEAL_ENTRY} <`, 'latin1');

/** What receipt.json says about the seal (covered by the seal itself). */
export interface ReceiptSealInfo {
  alg: 'ES256';
  /** The key version that made the seal: one of the service's published audit keys. */
  kid: string;
  covers: string;
}

export const SEAL_COVERS =
  'SHA-256 of this PDF file with the 144 hex digits of /ReceiptSeal in its document information ' +
  'dictionary replaced by "0"; ECDSA P-256 (DER, zero-padded to 72 bytes)';

/** Adds the zeroed placeholder before the document is saved. */
export function addSealPlaceholder(doc: PDFDocument): void {
  // getInfoDict is private in pdf-lib's types but is what setTitle & co. write to (and creates it lazily)
  (doc as unknown as { getInfoDict(): PDFDict })
    .getInfoDict()
    .set(PDFName.of(SEAL_ENTRY), PDFHexString.of(ZEROS));
}

/** Offset of the seal's hex digits, or why there is no single seal. */
export function locateSeal(pdf: Uint8Array): { start: number } | { problem: string } {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const found: number[] = [];
  for (let at = bytes.indexOf(MARK); at >= 0; at = bytes.indexOf(MARK, at + 1)) {
    const start = at + MARK.length;
    const hex = bytes.subarray(start, start + SEAL_HEX_DIGITS + 1).toString('latin1');
    if (new RegExp(`^[0-9a-f]{${SEAL_HEX_DIGITS}}>$`).test(hex)) found.push(start);
  }
  if (found.length === 0) return { problem: 'the PDF carries no seal of the service' };
  if (found.length > 1) return { problem: 'the PDF carries more than one seal' };
  return { start: found[0] as number };
}

/** The file with the seal's digits set to "0": the bytes the seal signs. */
export function zeroedForSeal(pdf: Uint8Array, start: number): Buffer {
  const copy = Buffer.from(pdf);
  copy.fill(0x30, start, start + SEAL_HEX_DIGITS);
  return copy;
}

/** SHA-256 of the sealed bytes (the digest the KMS signs). */
export const sealDigest = (zeroed: Uint8Array): Buffer => createHash('sha256').update(zeroed).digest();

/** The DER signature inside the seal's hex digits, or null when they are not one padded DER signature. */
export function sealSignature(pdf: Uint8Array, start: number): Buffer | null {
  const hex = Buffer.from(pdf.subarray(start, start + SEAL_HEX_DIGITS)).toString('latin1');
  const raw = Buffer.from(hex, 'hex');
  if (raw[0] !== 0x30) return null;
  const len = 2 + (raw[1] ?? 0xff);
  if (len > raw.length || raw.subarray(len).some((b) => b !== 0)) return null;
  return raw.subarray(0, len);
}

/**
 * Writes the signature into the placeholder of a saved PDF. `sign` gets the zeroed file (the signer hashes
 * it, and checks that it signs a PDF: the same key signs audit records, whose signed bytes are JSON).
 */
export async function applySeal(
  pdf: Uint8Array,
  sign: (zeroedPdf: Uint8Array) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const where = locateSeal(pdf);
  if ('problem' in where) throw new Error(where.problem);
  const zeroed = zeroedForSeal(pdf, where.start);
  if (zeroed.subarray(where.start, where.start + SEAL_HEX_DIGITS).toString('latin1') !== ZEROS)
    throw new Error('the seal placeholder is not empty');
  const der = Buffer.from(await sign(zeroed));
  if (der.length > SEAL_HEX_DIGITS / 2) throw new Error('the seal signature is too long');
  zeroed.write(der.toString('hex'), where.start, 'latin1');
  return zeroed;
}
