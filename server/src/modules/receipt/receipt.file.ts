// Owns reading a receipt file: the embedded receipt.json of a receipt PDF, found through the catalog's
// EmbeddedFiles name tree (what pdfdetach lists). Used by the verifier; imports no renderer or font.
import { inflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';

export const RECEIPT_JSON_NAME = 'receipt.json';

/** The bytes of the embedded receipt.json of a receipt PDF, or null when there is none. */
export async function extractReceiptJson(pdf: Uint8Array): Promise<Buffer | null> {
  // A damaged file is refused, not repaired (pdf-lib would otherwise guess, and warn on the console).
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, throwOnInvalidObject: true });
  const names = doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  const embedded = names?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict);
  const list = embedded?.lookup(PDFName.of('Names'));
  if (!list || !('size' in list)) return null;
  const arr = list as unknown as { size(): number; lookup(i: number): unknown };
  for (let i = 0; i + 1 < arr.size(); i += 2) {
    const name = arr.lookup(i) as { decodeText?: () => string };
    if (name?.decodeText?.() !== RECEIPT_JSON_NAME) continue;
    const spec = arr.lookup(i + 1) as PDFDict;
    const ef = spec.lookupMaybe(PDFName.of('EF'), PDFDict);
    const stream = ef?.lookup(PDFName.of('F'));
    if (!(stream instanceof PDFRawStream)) return null;
    const filter = stream.dict.get(PDFName.of('Filter'));
    const raw = Buffer.from(stream.getContents());
    if (!filter) return raw;
    if (String(filter) === '/FlateDecode') {
      return inflateSync(raw);
    }
    return null;
  }
  return null;
}
