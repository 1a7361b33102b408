/**
 * Draws layout predictions over the pages of a real PDF:
 *
 *   npm run layout:overlay -- file.pdf --out dir/ [--pages 1-4] [--dpi 150] [--width 640]
 *        [--model public/models/layout] [--threshold 0.35] [--runtime node|wasm]
 *
 * Pages are rasterised with poppler's `pdftoppm` (not pdf.js: this is a Node tool), then run
 * through the same TS code as the app (preprocess → ONNX → NMS → reading order). Each box is
 * drawn in its class colour with "<order> <CLASS>"; furniture (skipInMarkdown) is drawn dashed-grey.
 * Writes <out>/<pdf name>-p<N>.png and <out>/<pdf name>.json (regions per page).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CLASS_CODES, CLASS_COLORS, label, shrink, strokeRect, toRgbCopy } from './draw.ts';
import { loadDetector, parseFlags, readPngRgb, writePngRgb } from './io.ts';

async function main() {
  const { flags, rest } = parseFlags(process.argv.slice(2));
  const pdf = rest[0];
  if (!pdf) throw new Error('usage: npm run layout:overlay -- file.pdf --out dir/ [--pages 1-4] [--dpi 150]');
  const out = flags.out ?? 'layout-overlays';
  const dpi = Number(flags.dpi ?? 150);
  const width = Number(flags.width ?? 640);
  const [first, last] = (flags.pages ?? '1-4').split('-').map(Number);
  mkdirSync(out, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'layout-overlay-'));
  try {
    execFileSync('pdftoppm', ['-r', String(dpi), '-f', String(first), '-l', String(last ?? first), '-png', pdf, join(tmp, 'page')]);
    const det = await loadDetector(flags.model ?? 'public/models/layout', (flags.runtime ?? 'node') as 'node' | 'wasm');
    const stem = basename(pdf).replace(/\.pdf$/i, '');
    const report: unknown[] = [];
    for (const f of readdirSync(tmp).filter((x) => x.endsWith('.png')).sort()) {
      const pageNo = Number(/(\d+)\.png$/.exec(f)![1]);
      const page = readPngRgb(join(tmp, f));
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
    writeFileSync(join(out, `${stem}.json`), JSON.stringify({ pdf: basename(pdf), dpi, renderer: 'pdftoppm', pages: report }, null, 1));
    await det.release();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
