/**
 * npm run synth:overlay -- --in DIR --out FILE.png [--pages 6] [--cols 3] [--width 600] [--ids p0000001,p0000002]
 * Draws region boxes (class colours) and line boxes on page images and tiles them into a contact sheet.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from './args.ts';
import { decodePng, encodePng, type Image } from './png.ts';
import type { PageRecord } from './generate.ts';

export const CLASS_COLORS: Record<string, [number, number, number]> = {
  title: [220, 20, 60],
  section_heading: [255, 140, 0],
  text: [30, 144, 255],
  list_item: [0, 170, 170],
  table: [34, 139, 34],
  formula: [148, 0, 211],
  figure: [139, 69, 19],
  caption: [199, 21, 133],
  page_header: [105, 105, 105],
  page_footer: [105, 105, 105],
  page_number: [0, 0, 0],
  footnote: [85, 107, 47],
};

function toRgb(img: Image): Image {
  if (img.channels === 3) return { ...img, data: img.data.slice() };
  const n = img.width * img.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) out[i * 3 + c] = img.channels === 1 ? img.data[i] : img.data[i * img.channels + c];
  }
  return { width: img.width, height: img.height, channels: 3, data: out };
}

function rect(img: Image, b: number[], col: [number, number, number], th: number, alpha = 1) {
  const [x0, y0, x1, y1] = b.map(Math.round);
  const put = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
    const o = (y * img.width + x) * 3;
    for (let c = 0; c < 3; c++) img.data[o + c] = Math.round(img.data[o + c] * (1 - alpha) + col[c] * alpha);
  };
  for (let t = 0; t < th; t++) {
    for (let x = x0; x <= x1; x++) {
      put(x, y0 + t);
      put(x, y1 - t);
    }
    for (let y = y0; y <= y1; y++) {
      put(x0 + t, y);
      put(x1 - t, y);
    }
  }
}

function fillTint(img: Image, b: number[], col: [number, number, number], alpha: number) {
  const [x0, y0, x1, y1] = b.map(Math.round);
  for (let y = Math.max(0, y0); y < Math.min(img.height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) {
      const o = (y * img.width + x) * 3;
      for (let c = 0; c < 3; c++) img.data[o + c] = Math.round(img.data[o + c] * (1 - alpha) + col[c] * alpha);
    }
}

/** box-filter downscale by an integer-free factor (area average) */
export function downscale(img: Image, w: number): Image {
  const s = img.width / w;
  const h = Math.round(img.height / s);
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const sy0 = Math.floor(y * s), sy1 = Math.max(sy0 + 1, Math.floor((y + 1) * s));
    for (let x = 0; x < w; x++) {
      const sx0 = Math.floor(x * s), sx1 = Math.max(sx0 + 1, Math.floor((x + 1) * s));
      let r = 0, g = 0, b = 0, n = 0;
      for (let yy = sy0; yy < Math.min(sy1, img.height); yy++)
        for (let xx = sx0; xx < Math.min(sx1, img.width); xx++) {
          const o = (yy * img.width + xx) * 3;
          r += img.data[o];
          g += img.data[o + 1];
          b += img.data[o + 2];
          n++;
        }
      const o = (y * w + x) * 3;
      out[o] = r / n;
      out[o + 1] = g / n;
      out[o + 2] = b / n;
    }
  }
  return { width: w, height: h, channels: 3, data: out };
}

export function overlayPage(rec: PageRecord, png: Uint8Array): Image {
  const img = toRgb(decodePng(png));
  for (const r of rec.regions) {
    const col = CLASS_COLORS[r.cls] ?? [255, 0, 0];
    fillTint(img, r.box, col, 0.08);
    for (const l of r.lines) rect(img, l.box, col, 1, 0.45);
    rect(img, r.box, col, 3, 1);
  }
  return img;
}

export function contactSheet(tiles: Image[], cols: number, pad = 8): Image {
  const rows = Math.ceil(tiles.length / cols);
  const tw = Math.max(...tiles.map((t) => t.width));
  const th = Math.max(...tiles.map((t) => t.height));
  const W = cols * tw + (cols + 1) * pad, H = rows * th + (rows + 1) * pad;
  const data = new Uint8Array(W * H * 3).fill(200);
  tiles.forEach((t, i) => {
    const ox = pad + (i % cols) * (tw + pad), oy = pad + Math.floor(i / cols) * (th + pad);
    for (let y = 0; y < t.height; y++) data.set(t.data.subarray(y * t.width * 3, (y + 1) * t.width * 3), ((oy + y) * W + ox) * 3);
  });
  return { width: W, height: H, channels: 3, data };
}

export function listPages(dir: string): string[] {
  return readdirSync(dir).filter((f) => /^p\d+\.json$/.test(f)).sort();
}

async function main() {
  const a = parseArgs(process.argv.slice(2), { in: 'string', out: 'string', pages: 'number', cols: 'number', width: 'number', ids: 'string', style: 'string' });
  if (!a.in || !a.out) throw new Error('usage: npm run synth:overlay -- --in DIR --out FILE.png [--pages 6] [--cols 3] [--width 600] [--ids a,b] [--style paper]');
  const dir = a.in as string;
  let files = listPages(dir);
  if (a.ids) {
    const ids = new Set((a.ids as string).split(','));
    files = files.filter((f) => ids.has(f.replace(/\.json$/, '')));
  }
  const recs = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as PageRecord).filter((r) => !a.style || r.layout.style === a.style);
  const n = Math.min(recs.length, (a.pages as number | undefined) ?? 6);
  if (n === 0) throw new Error(`no pages found in ${dir}`);
  const w = (a.width as number | undefined) ?? 600;
  const tiles = recs.slice(0, n).map((r) => downscale(overlayPage(r, readFileSync(join(dir, r.image))), w));
  const sheet = tiles.length === 1 ? tiles[0] : contactSheet(tiles, (a.cols as number | undefined) ?? Math.min(3, n));
  writeFileSync(a.out as string, encodePng(sheet, 9));
  console.log(`${a.out}: ${n} pages, ${sheet.width}x${sheet.height}`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
