/**
 * Ink snapping of the left/right edges of small one-line regions (page numbers, running headers
 * and footers). At stride 8 on a ~0.38× page the detector over- or under-shoots a 25 px wide
 * page number by a few pixels, which costs a lot of IoU. Ground-truth boxes follow the text
 * advance, which is the ink extent ± 1 px horizontally (not vertically: the box is the font's
 * content area, taller than the ink), so only x0/x1 are moved: to the union of the ink runs,
 * searched in the middle rows of the box and a little beyond its sides, that touch the box.
 */
import type { Image } from '../recognizer/image.ts';
import type { Box, Detection, RegionClass } from './types.ts';

export const DEFAULT_REFINE_CLASSES: RegionClass[] = ['page_number', 'page_header', 'page_footer'];

export function luma(img: Image, x: number, y: number): number {
  const p = (y * img.width + x) * img.channels;
  const d = img.data;
  return img.channels === 1 ? d[p] : 0.299 * d[p] + 0.587 * d[p + 1] + 0.114 * d[p + 2];
}

/**
 * The shared core: ink columns in the rows [by0 + band·h, by1 − band·h), searched `margin` px
 * beside the box, merged across gaps ≤ `gap` px; the merged runs touching the box give x0/x1.
 * The box comes back unchanged when it is degenerate or no run touches it.
 */
export function snapToInkX(img: Image, box: Box, band: number, margin: number, gap: number, inkBelow: number): Box {
  const [bx0, by0, bx1, by1] = box;
  const h = by1 - by0;
  if (h <= 2 || bx1 - bx0 <= 2) return box;
  const y0 = Math.max(0, Math.floor(by0 + band * h));
  const y1 = Math.min(img.height, Math.ceil(by1 - band * h));
  const sx0 = Math.max(0, Math.floor(bx0 - margin));
  const sx1 = Math.min(img.width, Math.ceil(bx1 + margin));
  if (y1 <= y0 || sx1 <= sx0) return box;
  const runs: [number, number][] = [];
  for (let x = sx0; x < sx1; x++) {
    let ink = false;
    for (let y = y0; y < y1 && !ink; y++) ink = luma(img, x, y) < inkBelow;
    if (!ink) continue;
    const last = runs[runs.length - 1];
    if (last && x - last[1] <= gap) last[1] = x + 1;
    else runs.push([x, x + 1]);
  }
  const touching = runs.filter(([a, b]) => b > bx0 && a < bx1);
  if (!touching.length) return box;
  return [Math.min(...touching.map((r) => r[0])), by0, Math.max(...touching.map((r) => r[1])), by1];
}

/**
 * New [x0, x1] for a one-line box, or the box unchanged when no ink is found: middle rows
 * 20–80 %, searched 0.3 h beside the box, runs merged across gaps ≤ 0.6 h (letter and word spaces).
 */
export function snapX(img: Image, box: Box, inkBelow = 140): Box {
  const h = box[3] - box[1];
  return snapToInkX(img, box, 0.2, 0.3 * h, 0.6 * h, inkBelow);
}

/**
 * x0/x1 of a block (table, formula) to the ink it covers: ink columns are searched in the rows
 * 10–90 % of the box and up to 15 % of its width beside it, merged across gaps ≤ 1.2 % of the page
 * width (the space between formula symbols or table columns, narrower than a column gutter); the
 * merged runs that touch the box give the new sides. A box that overhangs blank paper shrinks, one
 * that cut the first column or the numerator's start grows.
 */
export function snapBlockX(img: Image, box: Box, inkBelow = 140): Box {
  return snapToInkX(img, box, 0.1, 0.15 * (box[2] - box[0]), 0.012 * img.width, inkBelow);
}

const BLOCK_CLASSES: ReadonlySet<RegionClass> = new Set(['table', 'formula']);

/** Applies snapX (one-line classes) or snapBlockX (table, formula) to the given classes; others untouched. */
export function refineDetections<T extends Detection>(img: Image, dets: T[], classes: readonly RegionClass[] = DEFAULT_REFINE_CLASSES): T[] {
  if (!classes.length) return dets;
  const set = new Set(classes);
  return dets.map((d) => (set.has(d.cls) ? { ...d, box: BLOCK_CLASSES.has(d.cls) ? snapBlockX(img, d.box) : snapX(img, d.box) } : d));
}
