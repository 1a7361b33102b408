// Opening documents in the page thread: PDFs through pdf.js (which parses in its own worker),
// PNG/JPEG through createImageBitmap. Every page comes out as an ImageBitmap at a chosen scale,
// ready to be transferred to the OCR worker.
import * as pdfjs from 'pdfjs-dist';
import pdfWorkerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { DocError, sniffKind } from './errors';
import { fitDpi, fitScale } from './fit';

pdfjs.GlobalWorkerOptions.workerSrc = pdfWorkerUrl;

export const MAX_FILE_BYTES = 200 * 1024 * 1024;

export interface OpenDocument {
  name: string;
  kind: 'pdf' | 'image';
  numPages: number;
  /**
   * Renders page `index` (0-based). `longSide`: the longer side in px (thumbnails, page view);
   * `dpi`: a print resolution (what the OCR engine reads; images are taken at their own pixels,
   * shrunk only past the caps of ./fit). Ask for a PDF page at `ocrDpi(index, dpi)`.
   */
  render(index: number, size: { longSide: number } | { dpi: number }): Promise<ImageBitmap>;
  /**
   * PDFs only: the rectangle `box` ([x0, y0, x1, y1) in pixels of a `dpi` rendering) of page
   * `index` rendered at `dpi` — a sharper crop for the engine's PageDetail.
   */
  renderRect?(index: number, dpi: number, box: readonly [number, number, number, number]): Promise<ImageBitmap>;
  /** The resolution ≤ `dpi` at which page `index` fits the pixel caps of ./fit (images: `dpi`). */
  ocrDpi(index: number, dpi: number): Promise<number>;
  /** Page size in PDF points (images: pixels). */
  pageSize(index: number): Promise<{ width: number; height: number }>;
  close(): Promise<void>;
}

function vendorUrl(path: string): string {
  return new URL(`vendor/pdfjs/${path}`, document.baseURI).href;
}

export async function openDocument(file: { name: string; bytes: ArrayBuffer }): Promise<OpenDocument> {
  if (file.bytes.byteLength > MAX_FILE_BYTES) throw new DocError('too-large');
  const kind = sniffKind(new Uint8Array(file.bytes));
  if (kind === 'png' || kind === 'jpeg') return openImage(file.name, file.bytes, kind);
  if (kind !== 'pdf') throw new DocError('not-pdf');
  return openPdf(file.name, file.bytes);
}

async function openPdf(name: string, bytes: ArrayBuffer): Promise<OpenDocument> {
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes.slice(0)),
    standardFontDataUrl: vendorUrl('standard_fonts/'),
    cMapUrl: vendorUrl('cmaps/'),
    cMapPacked: true,
    wasmUrl: vendorUrl('wasm/'),
    isEvalSupported: false,
    enableXfa: false,
    stopAtErrors: false,
  });
  // pdf.js asks for a password through this callback; we never prompt, we report.
  task.onPassword = () => {
    void task.destroy();
  };
  let doc: pdfjs.PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (e) {
    const n = (e as { name?: string }).name ?? '';
    if (n === 'PasswordException' || /password/i.test(String(e))) throw new DocError('encrypted');
    if (n === 'InvalidPDFException' || n === 'FormatError' || n === 'UnknownErrorException') throw new DocError('corrupt', (e as Error).message);
    if (/destroy|worker was destroyed/i.test(String(e))) throw new DocError('encrypted');
    throw new DocError('corrupt', (e as Error).message ?? String(e));
  }
  if (doc.numPages < 1) {
    await doc.destroy();
    throw new DocError('empty');
  }
  return {
    name,
    kind: 'pdf',
    numPages: doc.numPages,
    async pageSize(index) {
      const page = await doc.getPage(index + 1);
      const vp = page.getViewport({ scale: 1 });
      return { width: vp.width, height: vp.height };
    },
    async ocrDpi(index, dpi) {
      const page = await doc.getPage(index + 1);
      const vp = page.getViewport({ scale: 1 });
      return fitDpi(vp.width, vp.height, dpi);
    },
    async render(index, size) {
      try {
        const page = await doc.getPage(index + 1);
        const base = page.getViewport({ scale: 1 });
        const scale = 'dpi' in size ? size.dpi / 72 : size.longSide / Math.max(base.width, base.height);
        const vp = page.getViewport({ scale });
        return await paint(page, vp, [0, 0, Math.round(vp.width), Math.round(vp.height)]);
      } catch (e) {
        throw new DocError('render-failed', `page ${index + 1}: ${(e as Error).message}`);
      }
    },
    async renderRect(index, dpi, box) {
      const [x0, y0, x1, y1] = box;
      if (!(Number.isInteger(x0) && Number.isInteger(y0) && Number.isInteger(x1) && Number.isInteger(y1) && x1 > x0 && y1 > y0)) {
        throw new DocError('render-failed', `page ${index + 1}: bad rectangle [${box.join(', ')}]`);
      }
      try {
        const page = await doc.getPage(index + 1);
        return await paint(page, page.getViewport({ scale: dpi / 72 }), [x0, y0, x1, y1]);
      } catch (e) {
        throw new DocError('render-failed', `page ${index + 1}: ${(e as Error).message}`);
      }
    },
    async close() {
      await doc.destroy();
    },
  };
}

/**
 * The rectangle `r` ([x0, y0, x1, y1) in viewport pixels) of a page drawn on white. The shift is
 * applied in device space, so the rectangle's corner lands on the canvas origin.
 */
async function paint(page: pdfjs.PDFPageProxy, vp: pdfjs.PageViewport, r: readonly [number, number, number, number]): Promise<ImageBitmap> {
  const [x0, y0, x1, y1] = r;
  const canvas = new OffscreenCanvas(x1 - x0, y1 - y0);
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2d context');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const transform = x0 || y0 ? [1, 0, 0, 1, -x0, -y0] : undefined;
  await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport: vp, transform }).promise;
  return canvas.transferToImageBitmap();
}

async function openImage(name: string, bytes: ArrayBuffer, kind: 'png' | 'jpeg'): Promise<OpenDocument> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes], { type: kind === 'png' ? 'image/png' : 'image/jpeg' }));
  } catch (e) {
    throw new DocError('unsupported-image', (e as Error).message);
  }
  return {
    name,
    kind: 'image',
    numPages: 1,
    async pageSize() {
      return { width: bitmap.width, height: bitmap.height };
    },
    async ocrDpi(_index, dpi) {
      return dpi;
    },
    async render(_index, size) {
      const scale = 'dpi' in size ? fitScale(bitmap.width, bitmap.height) : Math.min(1, size.longSide / Math.max(bitmap.width, bitmap.height));
      return createImageBitmap(bitmap, { resizeWidth: Math.round(bitmap.width * scale), resizeHeight: Math.round(bitmap.height * scale), resizeQuality: 'high' });
    },
    async close() {
      bitmap.close();
    },
  };
}
