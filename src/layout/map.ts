/**
 * COCO-style mAP for layout evaluation, twin of `average_precision` in training/layout/metrics.py:
 * per class, detections of all pages in descending score order are matched greedily to the unused
 * ground-truth box of highest IoU (≥ threshold); AP = mean of the precision envelope at 101 recall
 * points. mAP@0.5:0.95 averages IoU thresholds 0.50, 0.55, …, 0.95.
 */
import { iou } from './postprocess.ts';
import type { Box, RegionClass } from './types.ts';

export interface Scored {
  cls: RegionClass;
  box: Box;
  score: number;
}
export interface Truth {
  cls: RegionClass;
  box: Box;
}

export function averagePrecision(dets: Scored[][], gts: Truth[][], cls: RegionClass, iouThr: number): { ap: number; n: number } {
  const recs: { score: number; page: number; box: Box }[] = [];
  const g = gts.map((page) => page.filter((t) => t.cls === cls).map((t) => t.box));
  const n = g.reduce((a, p) => a + p.length, 0);
  dets.forEach((page, p) => page.forEach((d) => d.cls === cls && recs.push({ score: d.score, page: p, box: d.box })));
  if (n === 0) return { ap: NaN, n };
  recs.sort((a, b) => b.score - a.score); // stable, like Python's sort
  const used = g.map((p) => new Uint8Array(p.length));
  const tp: number[] = [];
  for (const r of recs) {
    let best = -1;
    let bi = -1;
    g[r.page].forEach((b, j) => {
      const v = used[r.page][j] ? -1 : iou(r.box, b);
      if (v > best) {
        best = v;
        bi = j;
      }
    });
    if (bi >= 0 && best >= iouThr) {
      used[r.page][bi] = 1;
      tp.push(1);
    } else tp.push(0);
  }
  const recall: number[] = [];
  const precision: number[] = [];
  let c = 0;
  tp.forEach((t, i) => {
    c += t;
    recall.push(c / n);
    precision.push(c / (i + 1));
  });
  for (let i = precision.length - 2; i >= 0; i--) precision[i] = Math.max(precision[i], precision[i + 1]);
  let ap = 0;
  for (let k = 0; k <= 100; k++) {
    const r = k / 100;
    let lo = 0;
    let hi = recall.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (recall[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    ap += lo < precision.length ? precision[lo] : 0;
  }
  return { ap: ap / 101, n };
}

export interface MapReport {
  map50: number;
  map: number;
  per_class: Record<string, { ap50: number; ap: number; n: number }>;
}

export function mapReport(dets: Scored[][], gts: Truth[][], classes: readonly RegionClass[]): MapReport {
  const per: MapReport['per_class'] = {};
  const a50: number[] = [];
  const aAll: number[] = [];
  for (const cls of classes) {
    const r50 = averagePrecision(dets, gts, cls, 0.5);
    if (r50.n === 0) continue;
    let s = 0;
    for (let t = 0; t < 10; t++) s += averagePrecision(dets, gts, cls, 0.5 + 0.05 * t).ap;
    per[cls] = { ap50: round4(r50.ap), ap: round4(s / 10), n: r50.n };
    a50.push(r50.ap);
    aAll.push(s / 10);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return { map50: round4(mean(a50)), map: round4(mean(aAll)), per_class: per };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
