// pdf.js for the document viewer, loaded only when a sign step is shown (dynamic import from
// DocumentViewer.tsx), so the signer page's initial JS stays within its budget (ADR 0018, 0029). The worker is
// a file of our own build (Vite emits it under /assets/), never a CDN: the page's CSP allows only 'self'.
import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

export interface RenderedPage {
  canvas: HTMLCanvasElement;
  /** The page's text for assistive technology (the canvas itself is only an image), with its line breaks. */
  text: string;
  /** CSS width of the page at print size (1 pt = 4/3 px: 12 pt text is 16 px), the viewer's "Larger text". */
  printWidth: number;
}

/** CSS pixels per PDF point at print size. */
const PRINT_SCALE = 4 / 3;
/** Device pixels of a canvas's width at most (memory: a page stays near 2.5 megapixels). */
const MAX_CANVAS_WIDTH = 1600;

/**
 * Renders every page of the PDF in `bytes` to a canvas sharp at `cssWidth` and at print size, whichever is
 * wider (a phone's fitted page is ~7 px text; its "Larger text" view is print size, issue 29), one after
 * another, handing each page over as soon as it is drawn.
 */
export async function renderPdf(
  bytes: ArrayBuffer,
  cssWidth: number,
  onPage: (page: RenderedPage, n: number, total: number) => void,
  signal: { cancelled: boolean },
): Promise<number> {
  const task = getDocument({ data: new Uint8Array(bytes), enableXfa: false });
  const doc = await task.promise;
  try {
    // at most 2 device pixels per CSS pixel: sharp on phones, and a page stays near 1 megapixel of memory
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    for (let n = 1; n <= doc.numPages; n++) {
      if (signal.cancelled) break;
      const page = await doc.getPage(n);
      const base = page.getViewport({ scale: 1 });
      const printWidth = Math.round(base.width * PRINT_SCALE);
      const pixels = Math.min(Math.max(cssWidth, printWidth) * ratio, MAX_CANVAS_WIDTH);
      const viewport = page.getViewport({ scale: pixels / base.width });
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width);
      canvas.height = Math.floor(viewport.height);
      await page.render({ canvas, viewport }).promise;
      const content = await page.getTextContent();
      // the document's own line breaks (hasEOL) are kept: a list or an address stays readable
      const text = content.items
        .map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : ''))
        .join('')
        .replace(/[ \t]+/g, ' ')
        .replace(/ *\n */g, '\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
      page.cleanup();
      onPage({ canvas, text, printWidth }, n, doc.numPages);
    }
    return doc.numPages;
  } finally {
    void task.destroy();
  }
}
