/**
 * Detector heads → regions: score threshold, top-k, rescale to page pixels, clip to the page,
 * class-wise greedy NMS. Twin of `postprocess()` in training/layout/metrics.py (same order of
 * operations and tie-breaks, so both sides return the same list for the same head outputs).
 */
import type { Box, Detection, RegionClass } from './types.ts';

export function area(b: Box): number {
  return Math.max(0, b[2] - b[0]) * Math.max(0, b[3] - b[1]);
}

/** Share of `a`'s area inside `b`. */
export function inside(a: Box, b: Box): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 ? (w * h) / Math.max(1e-9, (a[2] - a[0]) * (a[3] - a[1])) : 0;
}

export function iou(a: Box, b: Box): number {
  const iw = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const ih = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

/** Clip a box to [0, width] × [0, height]. */
export function clipBox(b: Box, width: number, height: number): Box {
  const cx = (v: number) => Math.min(width, Math.max(0, v));
  const cy = (v: number) => Math.min(height, Math.max(0, v));
  return [cx(b[0]), cy(b[1]), cx(b[2]), cy(b[3])];
}

/**
 * Greedy NMS. Returns kept indices in descending score order (ties: lower index first); a box is
 * suppressed when its IoU with an already kept box is > iouThr.
 */
export function nms(boxes: Box[], scores: number[], iouThr: number): number[] {
  const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
  const dead = new Uint8Array(scores.length);
  const keep: number[] = [];
  for (let oi = 0; oi < order.length; oi++) {
    const i = order[oi];
    if (dead[i]) continue;
    keep.push(i);
    for (let oj = oi + 1; oj < order.length; oj++) {
      const j = order[oj];
      if (!dead[j] && iou(boxes[i], boxes[j]) > iouThr) dead[j] = 1;
    }
  }
  return keep;
}

export interface DecodeOptions {
  scoreThreshold: number;
  nmsIou: number;
  maxDetections: number;
  /** candidates kept before NMS (all classes together) */
  preNmsTop?: number;
}

/**
 * scores (cells × C, row-major) and boxes (cells × 4, x0 y0 x1 y1 in input pixels) → detections in
 * page pixels, sorted by descending score.
 */
export function decodeDetections(
  scores: Float32Array,
  boxes: Float32Array,
  classes: readonly RegionClass[],
  scale: number,
  pageW: number,
  pageH: number,
  o: DecodeOptions,
): Detection[] {
  const C = classes.length;
  const cells = scores.length / C;
  if (boxes.length !== cells * 4) throw new Error(`decodeDetections: ${boxes.length / 4} boxes for ${cells} cells`);
  const cand: number[] = []; // flat index cell*C + c
  for (let i = 0; i < scores.length; i++) if (scores[i] > o.scoreThreshold) cand.push(i);
  cand.sort((a, b) => scores[b] - scores[a] || a - b);
  const top = cand.slice(0, o.preNmsTop ?? 10000);
  const out: Detection[] = [];
  for (let c = 0; c < C; c++) {
    const bs: Box[] = [];
    const ss: number[] = [];
    for (const k of top) {
      if (k % C !== c) continue;
      const cell = (k - c) / C;
      const b = clipBox(
        [boxes[cell * 4] / scale, boxes[cell * 4 + 1] / scale, boxes[cell * 4 + 2] / scale, boxes[cell * 4 + 3] / scale],
        pageW,
        pageH,
      );
      if (b[2] - b[0] > 0 && b[3] - b[1] > 0) {
        bs.push(b);
        ss.push(scores[k]);
      }
    }
    for (const i of nms(bs, ss, o.nmsIou)) out.push({ cls: classes[c], box: bs[i], score: ss[i] });
  }
  // stable sort: equal scores keep class order, as in Python
  out.sort((a, b) => b.score - a.score);
  return out.slice(0, o.maxDetections);
}

const LINE_CLASSES: ReadonlySet<RegionClass> = new Set(['title', 'section_heading', 'text', 'list_item', 'caption', 'footnote']);

/**
 * Suppression across classes for the operating point: the same region found as two classes (text
 * and list_item, say), or a fragment of a region (three lines of a six-line paragraph), would be
 * read twice. Detections are taken by descending score; one is dropped when it overlaps a kept
 * detection of any class by IoU > iouThr, or lies inside one for more than `containThr` of its own
 * area, or (same class only) covers more than `containThr` of a kept one's area, or (text-like
 * classes) sits on the same rows (vertical IoU ≥ 0.6) across ≥ `containThr` of the narrower width,
 * or (a text-like box against a table/formula/figure) holds ≥ 90 % of the block and is ≥ 60 % block,
 * or (text-like classes) has ≥ `straddleThr` of its area covered by kept text-like boxes together:
 * a weak box straddling the boundary of two stronger ones (the last lines of one paragraph and the
 * first of the next) that no single box covers enough to suppress.
 * Not used for mAP.
 */
export function suppressAcrossClasses<T extends Detection>(dets: T[], iouThr: number, containThr = 0.75, straddleThr = STRADDLE): T[] {
  const sorted = [...dets].sort((a, b) => b.score - a.score);
  const keep: T[] = [];
  for (const d of sorted) {
    const a = area(d.box);
    const dup = keep.some((k) => {
      if (iou(k.box, d.box) > iouThr) return true;
      const iw = Math.min(k.box[2], d.box[2]) - Math.max(k.box[0], d.box[0]);
      const ih = Math.min(k.box[3], d.box[3]) - Math.max(k.box[1], d.box[1]);
      if (!(iw > 0 && ih > 0 && a > 0)) return false;
      if ((iw * ih) / a > containThr) return true;
      // a weaker box of the same class that covers most of a kept one is the same region found
      // twice with a looser extent (a one-line paragraph plus the blank below it)
      const ka = area(k.box);
      if (k.cls === d.cls && ka > 0 && (iw * ih) / ka > containThr) return true;
      // a weaker text-like box around a display formula (or table, figure): the block's own line
      // with a looser extent, not a paragraph that merely holds inline math (that is far larger)
      if (BLOCK_CLASSES.includes(k.cls) && LINE_CLASSES.has(d.cls) && ka > 0 && (iw * ih) / ka >= 0.9 && (iw * ih) / a >= 0.6) return true;
      // two text-like boxes over the same rows, one spanning ≥ 75 % of the other's width: one line
      // (a heading found both as title and as section heading, with different extents)
      if (!LINE_CLASSES.has(k.cls) || !LINE_CLASSES.has(d.cls)) return false;
      const uh = Math.max(k.box[3], d.box[3]) - Math.min(k.box[1], d.box[1]);
      const minW = Math.min(k.box[2] - k.box[0], d.box[2] - d.box[0]);
      return ih / uh >= 0.6 && iw >= containThr * minW;
    });
    const straddles = () => LINE_CLASSES.has(d.cls) && a > 0 && coveredArea(d.box, keep.filter((k) => LINE_CLASSES.has(k.cls)).map((k) => k.box)) >= straddleThr * a;
    if (!dup && !straddles()) keep.push(d);
  }
  return keep;
}

/** `straddleThr` default: on val a weak paragraph box across the boundary of two strong ones is
 *  72–74 % covered by them, a correct one-line item beside a two-item box 62 %. */
const STRADDLE = 0.7;

/** Area of `b` covered by the union of `others` (exact: a sweep over the boxes' row breakpoints). */
export function coveredArea(b: Box, others: readonly Box[]): number {
  const clipped = others
    .map((o): Box => [Math.max(b[0], o[0]), Math.max(b[1], o[1]), Math.min(b[2], o[2]), Math.min(b[3], o[3])])
    .filter((o) => o[2] > o[0] && o[3] > o[1]);
  const ys = [...new Set(clipped.flatMap((o) => [o[1], o[3]]))].sort((p, q) => p - q);
  let total = 0;
  for (let k = 0; k + 1 < ys.length; k++) {
    const y0 = ys[k];
    const y1 = ys[k + 1];
    const spans = clipped.filter((o) => o[1] <= y0 && o[3] >= y1).map((o) => [o[0], o[2]]).sort((p, q) => p[0] - q[0]);
    let len = 0;
    let end = -Infinity;
    for (const [x0, x1] of spans) {
      if (x1 <= end) continue;
      len += x1 - Math.max(x0, end);
      end = x1;
    }
    total += len * (y1 - y0);
  }
  return total;
}

/** Classes whose overlapping same-class boxes are fragments of one region (`mergeFragments`). */
export const BLOCK_CLASSES: readonly RegionClass[] = ['table', 'formula', 'figure'];

/**
 * Unites boxes of the same block class (a table, display formula or figure) that overlap by
 * ≥ `minOverlap` of the smaller box: the detector sometimes covers one tall table or formula with
 * two or three shifted boxes whose IoU stays under the NMS threshold. Two such regions never
 * overlap on a page, so the union is the region. The union keeps the best score.
 */
export function mergeFragments<T extends Detection>(dets: readonly T[], classes: readonly RegionClass[] = BLOCK_CLASSES, minOverlap = 0.3): T[] {
  const out = dets.map((d) => ({ ...d }));
  for (let changed = true; changed; ) {
    changed = false;
    search: for (let i = 0; i < out.length; i++) {
      if (!classes.includes(out[i].cls)) continue;
      for (let j = i + 1; j < out.length; j++) {
        const a = out[i].box;
        const b = out[j].box;
        if (out[j].cls !== out[i].cls) continue;
        const iw = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
        const ih = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
        if (!(iw > 0 && ih > 0) || (iw * ih) / Math.max(1e-9, Math.min(area(a), area(b))) < minOverlap) continue;
        const best = out[i].score >= out[j].score ? out[i] : out[j];
        out[i] = { ...best, box: [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])] as Box };
        out.splice(j, 1);
        changed = true;
        break search;
      }
    }
  }
  return out;
}
