// Page images in Node: PDFs through pdf.js (legacy build + @napi-rs/canvas), PNG/JPEG through
// @napi-rs/canvas. Same 150 dpi as the app gives the engine.
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { DocError, sniffKind } from '../../src/pdf/errors';
import type { Image } from '../../src/recognizer/image';

export const OCR_DPI = 150;

export async function* pageImages(bytes: Uint8Array, dpi = OCR_DPI): AsyncGenerator<Image> {
  const kind = sniffKind(bytes);
  if (kind === 'png' || kind === 'jpeg') {
    let img;
    try {
      img = await loadImage(Buffer.from(bytes));
    } catch (e) {
      throw new DocError('unsupported-image', (e as Error).message);
    }
    const c = createCanvas(img.width, img.height);
    const ctx = c.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, img.width, img.height);
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, img.width, img.height);
    yield { width: img.width, height: img.height, channels: 4, data: new Uint8Array(d.data.buffer) };
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
      const vp = page.getViewport({ scale: dpi / 72 });
      const w = Math.round(vp.width), h = Math.round(vp.height);
      const c = createCanvas(w, h);
      const ctx = c.getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, w, h);
      await page.render({ canvas: c as never, canvasContext: ctx as never, viewport: vp }).promise;
      const d = ctx.getImageData(0, 0, w, h);
      yield { width: w, height: h, channels: 4, data: new Uint8Array(d.data.buffer) };
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
}
