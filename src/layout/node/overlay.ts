/**
 * Draws layout predictions over the pages of a real PDF:
 *
 *   npm run layout:overlay -- file.pdf --out dir/ [--pages 1-4] [--dpi 150] [--width 640]
 *        [--model public/models/layout] [--threshold 0.35] [--runtime node|wasm]
 *
 * Pages are rendered by pdf.js (the app's renderer; in Node its legacy build draws on
 * @napi-rs/canvas) at --dpi, then run through the same TS code as the app (preprocess → ONNX →
 * NMS → reading order). Each box is
 * drawn in its class colour with "<order> <CLASS>"; furniture (skipInMarkdown) is drawn dashed-grey.
 * Writes <out>/<pdf name>-p<N>.png and <out>/<pdf name>.json (regions per page).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fromImageData, type Image } from '../../recognizer/image.ts';
import { CLASS_CODES, CLASS_COLORS, label, shrink, strokeRect, toRgbCopy } from './draw.ts';
import { loadDetector, parseFlags, writePngRgb } from './io.ts';

interface NodeCanvas {
  canvas: { width: number; height: number };
  context: { getImageData(x: number, y: number, w: number, h: number): { width: number; height: number; data: Uint8ClampedArray } };
}

/** Renders pages first..last of a PDF with pdf.js at `dpi`; yields [page number, RGBA image]. */
export async function* renderPdfPages(bytes: Uint8Array, first: number, last: number, dpi: number): AsyncGenerator<[number, Image]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: bytes, standardFontDataUrl: 'node_modules/pdfjs-dist/standard_fonts/', cMapUrl: 'node_modules/pdfjs-dist/cmaps/', cMapPacked: true, isEvalSupported: false }).promise;
  try {
    const factory = (doc as unknown as { canvasFactory: { create(w: number, h: number): NodeCanvas } }).canvasFactory;
    for (let n = Math.max(1, first); n <= Math.min(last, doc.numPages); n++) {
      const page = await doc.getPage(n);
      const vp = page.getViewport({ scale: dpi / 72 });
      const cc = factory.create(Math.floor(vp.width), Math.floor(vp.height));
      await page.render({ canvasContext: cc.context, viewport: vp, canvas: cc.canvas } as unknown as Parameters<typeof page.render>[0]).promise;
      yield [n, fromImageData(cc.context.getImageData(0, 0, cc.canvas.width, cc.canvas.height))];
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
}

async function main() {
  const { flags, rest } = parseFlags(process.argv.slice(2));
  const pdf = rest[0];
  if (!pdf) throw new Error('usage: npm run layout:overlay -- file.pdf --out dir/ [--pages 1-4] [--dpi 150]');
  const out = flags.out ?? 'layout-overlays';
  const dpi = Number(flags.dpi ?? 150);
  const width = Number(flags.width ?? 640);
  const [first, last] = (flags.pages ?? '1-4').split('-').map(Number);
  mkdirSync(out, { recursive: true });
  const det = await loadDetector(flags.model ?? 'public/models/layout', (flags.runtime ?? 'node') as 'node' | 'wasm');
  const stem = basename(pdf).replace(/\.pdf$/i, '');
  const report: unknown[] = [];
  for await (const [pageNo, page] of renderPdfPages(new Uint8Array(readFileSync(pdf)), first, last ?? first, dpi)) {
    const t0 = performance.now();
    const regions = await det.detect(page, flags.threshold ? { scoreThreshold: Number(flags.threshold) } : {});
    const ms = performance.now() - t0;
    const f2 = width / page.width;
    const img = shrink(toRgbCopy(page), width);
    for (const r of regions) {
      const b = r.box.map((v) => v * f2) as [number, number, number, number];
      const col = r.skipInMarkdown ? ([150, 150, 150] as [number, number, number]) : CLASS_COLORS[r.cls];
      strokeRect(img, b, col, 2);
      label(img, b[0], Math.max(0, b[1] - 14), `${r.order} ${CLASS_CODES[r.cls]}`, col, 2);
    }
    const name = `${stem}-p${pageNo}.png`;
    writePngRgb(join(out, name), img);
    report.push({ page: pageNo, width: page.width, height: page.height, ms: Math.round(ms), regions });
    console.log(`${name}: ${regions.length} regions, ${ms.toFixed(0)} ms`);
  }
  writeFileSync(join(out, `${stem}.json`), JSON.stringify({ pdf: basename(pdf), dpi, renderer: 'pdf.js', pages: report }, null, 1));
  await det.release();
}

if (process.argv[1]?.endsWith('overlay.ts')) main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
