/**
 * Class fixes from page context and ink, after suppression at the operating point. At 640 × 512
 * the detector sees a text line as ~8 px of grey, so it confuses the text-like classes that differ
 * by where they sit or how their lines are indented rather than by how they look:
 *
 * - **Captions** sit next to their table or figure. Each detected table/figure claims the adjacent
 *   text-like region (vertical gap ≤ 2.7 % of the page height, overlapping horizontally) with the
 *   strongest caption evidence (the best raw caption score at IoU ≥ 0.6 with it), when that
 *   evidence is ≥ 0.3 and ≥ 0.8 × the region's own score. A region called a caption that no
 *   table/figure claims gets its best other text-like class (text when none).
 * - **List items** have a hanging indent (the marker line starts left of the lines after it);
 *   paragraphs are flush or indent their first line. A multi-line text/list_item region is
 *   relabelled from the first-ink x of its lines (one-line regions keep the detector's class).
 * - **Merged list items**: a list_item region with several hanging starts is split before each.
 *
 * Measured on the synthetic val pages (`npm run layout:eval`, docs/LAYOUT.md).
 */
import type { Image } from '../recognizer/image.ts';
import { iou } from './postprocess.ts';
import { luma } from './refine.ts';
import type { Box, Detection, RegionClass } from './types.ts';

const TEXTY: ReadonlySet<RegionClass> = new Set(['text', 'caption', 'list_item', 'section_heading', 'footnote']);

export interface ContextOptions {
  /** caption search gap as a fraction of the page height */
  captionGap?: number;
  /** minimum raw caption score for a region to be claimed as a caption (default 0.3) */
  captionEvidence?: number;
  /** …and at least this fraction of the region's own score (default 0.8: the detector nearly
   *  called it a caption; a paragraph that merely sits above an uncaptioned table stays text) */
  captionRatio?: number;
  /** claim captions at all (false: only the demotion of unclaimed captions) */
  promote?: boolean;
}

/** One text line found by horizontal projection: rows [y0, y1) and the x of its first ink column. */
export interface InkLine {
  y0: number;
  y1: number;
  x: number;
}

/**
 * Lines of ink inside a box (rows with a pixel darker than `inkBelow`, runs closer than 2 px
 * merged, runs shorter than 4 px dropped); the box is widened by `pad` px on both sides so a
 * box cut a little short still sees where its lines start.
 */
export function inkLines(img: Image, box: Box, pad = 4, inkBelow = 140): InkLine[] {
  const x0 = Math.max(0, Math.floor(box[0] - pad));
  const x1 = Math.min(img.width, Math.ceil(box[2] + pad));
  const y0 = Math.max(0, Math.floor(box[1]));
  const y1 = Math.min(img.height, Math.ceil(box[3]));
  const lines: InkLine[] = [];
  let cur: InkLine | null = null;
  let gap = 0;
  for (let y = y0; y < y1; y++) {
    let first = -1;
    for (let x = x0; x < x1; x++) {
      if (luma(img, x, y) < inkBelow) {
        first = x;
        break;
      }
    }
    if (first < 0) {
      gap++;
      continue;
    }
    if (cur && gap <= 1) {
      cur.y1 = y + 1;
      cur.x = Math.min(cur.x, first);
    } else {
      cur = { y0: y, y1: y + 1, x: first };
      lines.push(cur);
    }
    gap = 0;
  }
  return lines.filter((l) => l.y1 - l.y0 >= 4);
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];

export type IndentKind = 'hanging' | 'indent' | 'flush' | 'one';

/** How the first line starts relative to the others (± 0.4 line heights counts as flush). */
export function indentKind(lines: InkLine[]): IndentKind {
  if (lines.length < 2) return 'one';
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const d = lines[0].x - median(lines.slice(1).map((l) => l.x));
  return d < -0.4 * lh ? 'hanging' : d > 0.4 * lh ? 'indent' : 'flush';
}

/** Vertical gap between two boxes that overlap horizontally by ≥ 30 % of the narrower; else ∞. */
function verticalGap(a: Box, b: Box): number {
  const ov = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  if (ov <= 0.3 * Math.min(a[2] - a[0], b[2] - b[0])) return Infinity;
  return Math.max(b[1] - a[3], a[1] - b[3]);
}

/** Splits a list_item box before every line that starts at the marker column (hanging starts). */
export function splitListItem<T extends Detection>(d: T, lines: InkLine[]): T[] {
  if (lines.length < 3) return [d];
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const minX = Math.min(...lines.map((l) => l.x));
  const starts = lines.flatMap((l, i) => (l.x <= minX + 0.3 * lh ? [i] : []));
  // every item must have a continuation line indented past its marker, or this is not a list
  if (starts.length < 2 || starts[0] !== 0 || !lines.some((l) => l.x > minX + 0.4 * lh)) return [d];
  return starts.map((s, k) => {
    const last = lines[(k + 1 < starts.length ? starts[k + 1] : lines.length) - 1];
    const y0 = k === 0 ? d.box[1] : Math.max(d.box[1], lines[s].y0 - 2);
    const y1 = k + 1 < starts.length ? Math.min(d.box[3], last.y1 + 2) : d.box[3];
    return { ...d, box: [d.box[0], y0, d.box[2], y1] as Box };
  });
}

/**
 * `kept`: detections after suppression at the operating point; `raw`: all detections from a low
 * threshold (the class evidence). Returns new detections (inputs untouched).
 */
export function relabelByContext<T extends Detection>(page: Image, kept: T[], raw: readonly Detection[], o: ContextOptions = {}): T[] {
  const gapPx = (o.captionGap ?? 0.027) * page.height;
  const evidence = o.captionEvidence ?? 0.3;
  const ratio = o.captionRatio ?? 0.8;
  const promote = o.promote ?? true;
  const out = kept.map((d) => ({ ...d }));
  const alt = out.map((d) => {
    const m = new Map<RegionClass, number>([[d.cls, d.score]]);
    for (const r of raw) if (iou(r.box, d.box) >= 0.6) m.set(r.cls, Math.max(m.get(r.cls) ?? 0, r.score));
    return m;
  });
  // captions: claimed by their table/figure, strongest tables/figures first
  const claimed = new Set<number>();
  const owners = out.map((d, i) => i).filter((i) => out[i].cls === 'table' || out[i].cls === 'figure').sort((a, b) => out[b].score - out[a].score);
  for (const t of owners) {
    let best = -1;
    let bs = -1;
    out.forEach((d, i) => {
      if (!TEXTY.has(d.cls) || claimed.has(i) || verticalGap(d.box, out[t].box) > gapPx) return;
      const s = alt[i].get('caption') ?? 0;
      if (s > bs) {
        bs = s;
        best = i;
      }
    });
    if (best >= 0 && bs >= evidence && (out[best].cls === 'caption' || (promote && bs >= ratio * out[best].score))) {
      claimed.add(best);
      out[best].cls = 'caption';
    }
  }
  out.forEach((d, i) => {
    if (d.cls !== 'caption' || claimed.has(i)) return;
    let bc: RegionClass = 'text';
    let bs = -1;
    for (const [c, s] of alt[i]) if (c !== 'caption' && TEXTY.has(c) && s > bs) [bc, bs] = [c, s];
    d.cls = bc;
  });
  // text vs list item by indentation, then merged list items split
  const res: T[] = [];
  for (const d of out) {
    if (d.cls !== 'text' && d.cls !== 'list_item') {
      res.push(d);
      continue;
    }
    const lines = inkLines(page, d.box);
    const kind = indentKind(lines);
    if (kind === 'hanging') d.cls = 'list_item';
    else if (kind !== 'one') d.cls = 'text';
    res.push(...(d.cls === 'list_item' ? splitListItem(d, lines) : [d]));
  }
  return res;
}
