/**
 * Region crops in the pixel space of the rendered page given to detect(): the box grown by a small
 * margin (ink overhangs font-metric boxes by 1–3 px at 150 dpi), rounded outwards, clipped.
 */
import type { Image } from '../recognizer/image.ts';
import type { Box, Region } from './types.ts';

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
    const rect = cropBox(region.box, page.width, page.height, opts.margin ?? 4);
    if (rect[2] <= rect[0] || rect[3] <= rect[1]) continue;
    out.push({ region, rect, image: cropImage(page, rect) });
  }
  return out;
}
