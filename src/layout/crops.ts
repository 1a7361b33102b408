/**
 * Region crops in the pixel space of the rendered page given to detect(): the box (text-like ones
 * first widened to the ink of their lines, `growToInk`) grown by a small margin (ink overhangs
 * font-metric boxes by 1–3 px at 150 dpi), rounded outwards, clipped.
 */
import type { Image } from '../recognizer/image.ts';
import { inkLines, median } from './context.ts';
import { snapToInkX } from './refine.ts';
import type { Box, Region, RegionClass } from './types.ts';

/** Classes read as lines of text, whose crops may grow sideways to the ink of their lines. */
const LINE_CLASSES: ReadonlySet<RegionClass> = new Set(['title', 'section_heading', 'text', 'list_item', 'caption', 'footnote', 'page_header', 'page_footer', 'page_number']);

/**
 * A text-like box widened (never narrowed) to the ink of its lines that it touches: ink columns in
 * the rows 10–90 % of the box, searched 1.5 line heights beside it, runs merged across gaps
 * ≤ 0.6 line heights (word spaces; a column gutter is wider). A box that stops a letter short of
 * the line's end would otherwise cut that letter off the recognizer's crop ("Repor" for "Report").
 * Other classes, and boxes without ink lines, come back unchanged.
 */
export function growToInk(page: Image, box: Box, cls: RegionClass): Box {
  if (!LINE_CLASSES.has(cls)) return box;
  const lines = inkLines(page, box);
  if (!lines.length) return box;
  const lh = median(lines.map((l) => l.y1 - l.y0));
  // the search window reaches 1.5 lh past the box, so a line that runs on is followed step by step
  let out: Box = box;
  for (let k = 0; k < 64; k++) {
    const s = snapToInkX(page, out, 0.1, 1.5 * lh, 0.6 * lh, 140);
    const next: Box = [Math.min(out[0], s[0]), box[1], Math.max(out[2], s[2]), box[3]];
    if (next[0] === out[0] && next[2] === out[2]) break;
    out = next;
  }
  return out;
}

/** The crop rectangle the recognizer reads for a region: `growToInk`, then `cropBox`. */
export function regionCropBox(page: Image, box: Box, cls: RegionClass, margin = 4): Box {
  return cropBox(growToInk(page, box, cls), page.width, page.height, margin);
}

export interface CropOptions {
  /** margin in page pixels on every side (default 4) */
  margin?: number;
}

/** Integer crop rectangle [x0, y0, x1, y1) for a box: margin added, rounded out, clipped. */
export function cropBox(box: Box, pageW: number, pageH: number, margin = 4): Box {
  const x0 = Math.max(0, Math.floor(box[0] - margin));
  const y0 = Math.max(0, Math.floor(box[1] - margin));
  const x1 = Math.min(pageW, Math.ceil(box[2] + margin));
  const y1 = Math.min(pageH, Math.ceil(box[3] + margin));
  return [x0, y0, Math.max(x0, x1), Math.max(y0, y1)];
}

/** Copy of the pixels inside an integer rectangle (same channel layout as the page). */
export function cropImage(page: Image, r: Box): Image {
  const [x0, y0, x1, y1] = r;
  const cw = x1 - x0;
  const ch = y1 - y0;
  const c = page.channels;
  const data = new Uint8Array(cw * ch * c);
  for (let y = 0; y < ch; y++) {
    const src = ((y0 + y) * page.width + x0) * c;
    data.set(page.data.subarray(src, src + cw * c), y * cw * c);
  }
  return { width: cw, height: ch, channels: c, data };
}

export interface RegionCrop<R extends Region = Region> {
  region: R;
  /** the integer rectangle that was cut, in page pixels */
  rect: Box;
  image: Image;
}

/** One crop per region, in the given order; empty rectangles are skipped. */
export function cropRegions<R extends Region>(page: Image, regions: R[], opts: CropOptions = {}): RegionCrop<R>[] {
  const out: RegionCrop<R>[] = [];
  for (const region of regions) {
    const rect = regionCropBox(page, region.box, region.cls, opts.margin ?? 4);
    if (rect[2] <= rect[0] || rect[3] <= rect[1]) continue;
    out.push({ region, rect, image: cropImage(page, rect) });
  }
  return out;
}
