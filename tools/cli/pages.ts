// Page images in Node: PDFs through pdf.js (legacy build + @napi-rs/canvas), PNG/JPEG through
// @napi-rs/canvas. Same 150 dpi as the app gives the engine (lowered, as there, for pages past the
// pixel caps of src/pdf/fit.ts); a PDF page also comes with a PageDetail that re-renders a rectangle
// of it sharper (task encoders of input scale > 1).
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { PageDetail } from '../../src/engine/engine';
import { OCR_DPI } from '../../src/engine/types';
import { DocError, sniffKind } from '../../src/pdf/errors';
import { fitDpi, fitScale } from '../../src/pdf/fit';
import type { Image } from '../../src/recognizer/image';

export { OCR_DPI };

export interface SourcePage {
  image: Image;
  /** PDFs only: valid until the generator moves to the next page. */
  detail?: PageDetail;
  /** The resolution the PDF page was drawn at (below the asked one for huge pages); null for images. */
  dpi: number | null;
  /** Images: the factor they were shrunk by to fit the pixel caps (1: their own pixels); PDFs: 1. */
  shrink: number;
}

interface PdfPageLike {
  getViewport(o: { scale: number }): { width: number; height: number };
  render(o: object): { promise: Promise<unknown> };
}

/** The rectangle `box` (pixels of a `dpi` rendering, [x0, y0, x1, y1)) of a pdf.js page rendered at `dpi` on white (the whole page: [0, 0, w, h]). */
export async function renderRect(page: PdfPageLike, dpi: number, box: readonly [number, number, number, number]): Promise<Image> {
  const [x0, y0, x1, y1] = box;
  const w = x1 - x0, h = y1 - y0;
  if (!(Number.isInteger(x0) && Number.isInteger(y0) && w > 0 && h > 0)) throw new Error(`renderRect: bad rectangle [${box.join(', ')}]`);
  const vp = page.getViewport({ scale: dpi / 72 });
  const c = createCanvas(w, h);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  const transform = x0 || y0 ? [1, 0, 0, 1, -x0, -y0] : undefined;
  await page.render({ canvas: c as never, canvasContext: ctx as never, viewport: vp, transform }).promise;
  const d = ctx.getImageData(0, 0, w, h);
  return { width: w, height: h, channels: 4, data: new Uint8Array(d.data.buffer) };
}

export async function* pageImages(bytes: Uint8Array, dpi = OCR_DPI): AsyncGenerator<SourcePage> {
  const kind = sniffKind(bytes);
  if (kind === 'png' || kind === 'jpeg') {
    let img;
    try {
      img = await loadImage(Buffer.from(bytes));
    } catch (e) {
      throw new DocError('unsupported-image', (e as Error).message);
    }
    const k = fitScale(img.width, img.height);
    const w = Math.round(img.width * k), h = Math.round(img.height * k);
    const c = createCanvas(w, h);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    ctx.drawImage(img, 0, 0, w, h);
    const d = ctx.getImageData(0, 0, w, h);
    yield { image: { width: w, height: h, channels: 4, data: new Uint8Array(d.data.buffer) }, dpi: null, shrink: k };
    return;
  }
  if (kind !== 'pdf') throw new DocError('not-pdf');
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let doc;
  try {
    doc = await pdfjs.getDocument({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 }).promise;
  } catch (e) {
    const n = (e as { name?: string }).name ?? '';
    if (n === 'PasswordException') throw new DocError('encrypted');
    throw new DocError('corrupt', (e as Error).message);
  }
  if (doc.numPages < 1) throw new DocError('empty');
  try {
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const pt = page.getViewport({ scale: 1 });
      const pageDpi = fitDpi(pt.width, pt.height, dpi);
      const vp = page.getViewport({ scale: pageDpi / 72 });
      const image = await renderRect(page, pageDpi, [0, 0, Math.round(vp.width), Math.round(vp.height)]);
      const detail: PageDetail = {
        render: (box, scale) => renderRect(page, pageDpi * scale, [box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale]),
      };
      yield { image, detail, dpi: pageDpi, shrink: 1 };
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
}
