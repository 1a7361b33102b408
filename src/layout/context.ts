/**
 * Class fixes from page context and ink, after suppression at the operating point. At 640 × 512
 * the detector sees a text line as ~8 px of grey, so it confuses the text-like classes that differ
 * by where they sit or how their lines are indented rather than by how they look:
 *
 * - **Captions** sit next to their table or figure. Each detected table/figure claims the adjacent
 *   text-like region (vertical gap ≤ 2.7 % of the page height, overlapping horizontally) with the
 *   strongest caption evidence (the best raw caption score at IoU ≥ 0.6 with it), when that
 *   evidence is ≥ 0.3 and ≥ 0.8 × the region's own score — or ≥ 0.35 for a region that hugs the
 *   table/figure (≤ 0.6 of its ink-line height away; body text sits further off). A region called
 *   a caption that no table/figure claims gets its best other text-like class (text when none).
 * - **Headings are bold**: a one- or two-line region whose stroke width is ≥ 1.25× that of the
 *   page's paragraphs is a section heading; a "heading" at ≤ 1.15× takes its best text evidence.
 * - **Split blocks**: a paragraph or list item the detector cut in two is re-joined when the lines
 *   of the union read as one block (same pitch at the tops or the baselines, no indent, no short
 *   line before the cut unless the next word would not have fitted; `oneBlock`); a heading or title
 *   boxed line by line is one box again (`mergeHeadingParts`).
 * - **Headings swallowed by their paragraph**: a text box whose first line has strokes ≥ 1.3× as
 *   wide as the lines below is split into that heading and the paragraph (`splitHeading`).
 * - **Blank rows** past the first/last line of ink are trimmed off text and list item boxes.
 * - **List items** have a hanging indent (the marker line starts left of the lines after it);
 *   paragraphs are flush or indent their first line. A multi-line text/list_item region is
 *   relabelled from the first-ink x of its lines (a list item box that cut its marker off takes it
 *   back first). A one-line region is placed against the blocks of its column: at a list's marker
 *   column it is an item, at the paragraphs' body x (or well past it) text. A marker the box cut
 *   off (a small blob of ink just left of the line, `markerBefore`) counts as the line's start; a
 *   "list item" with no marker that its column places as text is text, whatever the detector said.
 * - **Paragraph skips**: lines more than one line height apart never read as one block.
 * - **Merged list items**: a list_item region with several hanging starts is split before each;
 *   **merged paragraphs** (a short line, then an indented one; or a line indented like the box's
 *   indented first line) likewise (`splitParagraphs`), and
 *   a flush "list item" along the detector's own one-item boxes inside it (`splitFlushItems`).
 *
 * Measured on the synthetic val pages (`npm run layout:eval`, docs/LAYOUT.md).
 */
import type { Image } from '../recognizer/image.ts';
import { inside, iou } from './postprocess.ts';
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
  /** a region within this many of its ink-line heights of the table/figure is claimed on caption
   *  evidence ≥ `tightEvidence` alone, whatever its own score (default 0.6; 0 disables) */
  tightGap?: number;
  /** default 0.35 */
  tightEvidence?: number;
  /** a claim on the score ratio alone needs the region within this many of its ink-line heights
   *  of the table/figure (default 1; 0 = any distance within `captionGap`) */
  ratioGap?: number;
  /** re-join paragraphs / list items cut in two (mergeSplitBlocks) and headings boxed line by line (mergeHeadingParts); default true */
  merge?: boolean;
  /** split off a bold heading the detector took into the paragraph below it (splitHeading; default true) */
  heading?: boolean;
  /** trim blank rows off text / list item boxes (trimBlankRows; default true) */
  trim?: boolean;
  /** one- or two-line regions: bold → section heading, regular → not (strokeWidth; default true) */
  weight?: boolean;
  /** one-line text vs list item from the column's blocks (oneLineClass; default true) */
  oneLine?: boolean;
  /** the detector's veto: a caption demotion, a flush block or one-line relabel happens only
   *  when the raw score of the new class on the box is ≥ this fraction of the score the detector
   *  gave its own class (default 0 = no veto; the detector's config.json sets it as
   *  `context_veto`). The rules were written for an unsure detector; a sharper one that is sure
   *  of a class (list item 0.74 vs text 0.30) is mostly right. */
  veto?: number;
}

/** One text line found by horizontal projection: rows [y0, y1) and the x of its first ink column. */
export interface InkLine {
  y0: number;
  y1: number;
  x: number;
  /** one past the last ink column */
  xEnd: number;
  /**
   * The baseline: one past the last row of the line whose ink is ≥ 40 % of its fullest row's. Descenders and
   * sub/superscripts are sparse rows, so two lines of one block sit one pitch apart here whatever
   * their letters or inline math.
   */
  base: number;
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
  const count = new Int32Array(Math.max(0, y1 - y0));
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
    let last = first;
    for (let x = x1 - 1; x > first; x--) {
      if (luma(img, x, y) < inkBelow) {
        last = x;
        break;
      }
    }
    let n = 0;
    for (let x = first; x <= last; x++) if (luma(img, x, y) < inkBelow) n++;
    count[y - y0] = n;
    if (cur && gap <= 1) {
      cur.y1 = y + 1;
      cur.x = Math.min(cur.x, first);
      cur.xEnd = Math.max(cur.xEnd, last + 1);
    } else {
      cur = { y0: y, y1: y + 1, x: first, xEnd: last + 1, base: y + 1 };
      lines.push(cur);
    }
    gap = 0;
  }
  const split = lines.flatMap((l) => {
    const parts = splitFused(Array.from(count.subarray(l.y0 - y0, l.y1 - y0)));
    if (parts.length === 1) return [l];
    return parts.map(([a, b]) => {
      // the ink's horizontal extent within the part's own rows
      const p: InkLine = { y0: l.y0 + a, y1: l.y0 + b, x: x1, xEnd: x0, base: l.y0 + b };
      for (let y = p.y0; y < p.y1; y++) {
        for (let x = x0; x < x1; x++) if (luma(img, x, y) < inkBelow) { p.x = Math.min(p.x, x); break; }
        for (let x = x1 - 1; x >= p.x; x--) if (luma(img, x, y) < inkBelow) { p.xEnd = Math.max(p.xEnd, x + 1); break; }
      }
      return p;
    });
  });
  for (const l of split) {
    let most = 0;
    for (let y = l.y0; y < l.y1; y++) most = Math.max(most, count[y - y0]);
    for (let y = l.y0; y < l.y1; y++) if (count[y - y0] >= 0.4 * most) l.base = y + 1;
  }
  return split.filter((l) => l.y1 - l.y0 >= 4);
}

/**
 * Two lines set so tight that a descender touches the ascender below (or only one blank row lies
 * between them) are one ink run. `rows` is a run's dark pixels per row; a row whose ink is ≤ 20 %
 * of the fullest row on either side of it is a cut when both sides look like a line: ≥ 6 rows and
 * ≥ 40 % of the other side's height, with a body (rows ≥ 40 % of that side's fullest row, gaps of
 * one row bridged) ≥ 3 rows thick. The emptiest such row is cut first, then each side again.
 * Descenders, sub- and superscripts are too thin or too sparse for a body of their own, and the
 * stems of a line in capitals keep its middle above 20 %. Returns [start, end) row ranges.
 */
export function splitFused(rows: readonly number[], from = 0, to = rows.length): [number, number][] {
  const h = to - from;
  if (h < 13) return [[from, to]];
  const body = (a: number, b: number) => {
    let most = 0;
    for (let y = a; y < b; y++) most = Math.max(most, rows[y]);
    let run = 0;
    let best = 0;
    let gap = 2;
    for (let y = a; y < b; y++) {
      if (rows[y] >= 0.4 * most) {
        run = gap <= 1 ? run + gap + 1 : 1;
        gap = 0;
        best = Math.max(best, run);
      } else gap++;
    }
    return { most, thick: best };
  };
  let cut = -1;
  let cutRatio = Infinity;
  for (let c = from + 6; c < to - 6; c++) {
    const up = c - from;
    const down = to - c - 1;
    if (up < 0.4 * down || down < 0.4 * up) continue;
    const above = body(from, c);
    const below = body(c + 1, to);
    const ratio = rows[c] / Math.max(1, Math.min(above.most, below.most));
    if (ratio <= 0.2 && above.thick >= 3 && below.thick >= 3 && ratio < cutRatio) {
      cut = c;
      cutRatio = ratio;
    }
  }
  return cut < 0 ? [[from, to]] : [...splitFused(rows, from, cut), ...splitFused(rows, cut + 1, to)];
}

export const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
/** The lower of the two middle values for an even count (of two pitches, the block's own one). */
const lowerMedian = (v: number[]) => [...v].sort((a, b) => a - b)[(v.length - 1) >> 1];

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
  if (hOverlap(a, b) <= 0.3) return Infinity;
  return Math.max(b[1] - a[3], a[1] - b[3]);
}

/** The class with the best raw score among `allowed` in a region's evidence (text when none). */
function bestEvidence(evidence: ReadonlyMap<RegionClass, number>, allowed: (c: RegionClass) => boolean): RegionClass {
  let best: RegionClass = 'text';
  let bs = -1;
  for (const [c, s] of evidence) if (allowed(c) && s > bs) [best, bs] = [c, s];
  return best;
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
 * Splits off a section heading the detector took into the paragraph right below it: the box's
 * first line (or first two, a wrapped heading) drawn with strokes ≥ 1.3× as wide as the lines
 * below (on 400 training pages: 0 of 3,048 ground-truth paragraphs, 486 of 538 one-line headings
 * over the paragraph they open). The heading is fitted to its ink (a heading is as wide as its
 * words, the paragraph as wide as the column); the paragraph keeps the box below it.
 */
export function splitHeading<T extends Detection>(page: Image, d: T, lines: InkLine[]): T[] {
  if (d.cls !== 'text' || lines.length < 2) return [d];
  const heavy = (k: number) => {
    const rest = strokeWidth(page, d.box, lines.slice(k + 1));
    return rest > 0 && strokeWidth(page, d.box, [lines[k]]) >= 1.3 * rest;
  };
  // (a neighbour's line that the box cuts at its top edge is no heading, whatever its strokes)
  const full = (k: number) => lines[k].y1 - lines[k].y0 >= 0.8 * median(lines.slice(k + 1).map((l) => l.y1 - l.y0)) && lines[k].y0 > Math.floor(d.box[1]);
  if (!full(0) || !heavy(0)) return [d];
  const n = lines.length >= 3 && full(1) && heavy(1) ? 2 : 1;
  const head = lines.slice(0, n);
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const bodyLh = median(lines.slice(n).map((l) => l.y1 - l.y0));
  const cut = (head[n - 1].y1 + lines[n].y0) / 2;
  return [
    { ...d, cls: 'section_heading' as RegionClass, box: [Math.min(...head.map((l) => l.x)) - 0.1 * lh, Math.max(d.box[1], head[0].y0 - 0.28 * lh), Math.max(...head.map((l) => l.xEnd)) + 0.1 * lh, Math.min(cut, head[n - 1].y1 + 0.11 * lh)] as Box },
    { ...d, box: [d.box[0], Math.max(cut, lines[n].y0 - 0.28 * bodyLh), d.box[2], d.box[3]] as Box },
  ];
}

/**
 * Splits a text box holding more than one paragraph before every line that starts a new one: a
 * line indented past the body's x (≥ 0.4 line heights) right after a line that stops short of the
 * right edge (≥ 1.5 line heights), the shape of a one-line indented paragraph over the first line
 * of the next; or, when the box opens with an indented line, any line indented like it (± 0.3
 * line heights), even after a full line. The upper part is fitted to its lines' ink (a line the box cut at its top is
 * followed up to its first row), the last part keeps the box's extent below its first line.
 */
export function splitParagraphs<T extends Detection>(page: Image, d: T, lines: InkLine[]): T[] {
  if (lines.length < 3) return [d];
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const body = lowerMedian(lines.map((l) => l.x));
  const right = Math.max(...lines.map((l) => l.xEnd));
  // (a sliver under 0.6 line heights is a neighbour's line cut by the box, not a paragraph start)
  const indented = (l: InkLine) => l.x > body + 0.4 * lh;
  // the box opens with an indented line: paragraphs here are marked by their first-line indent, so
  // a line indented like the first starts one even after a full line
  const sameIndent = (l: InkLine) => indented(lines[0]) && Math.abs(l.x - lines[0].x) <= 0.3 * lh;
  const starts = lines.flatMap((l, k) => (k > 0 && indented(l) && (lines[k - 1].xEnd < right - 1.5 * lh || sameIndent(l)) && l.y1 - l.y0 >= 0.6 * lh ? [k] : []));
  if (!starts.length) return [d];
  const cuts = [0, ...starts, lines.length];
  return cuts.slice(0, -1).map((s0, k) => {
    const ls = lines.slice(s0, cuts[k + 1]);
    const last = ls[ls.length - 1];
    if (k === cuts.length - 2) return { ...d, box: [d.box[0], Math.max(d.box[1], ls[0].y0 - 0.28 * lh), d.box[2], d.box[3]] as Box };
    const x0 = Math.min(...ls.map((l) => l.x));
    const x1 = Math.max(...ls.map((l) => l.xEnd));
    let top = ls[0].y0;
    if (k === 0 && top <= Math.ceil(d.box[1])) {
      const inkRow = (y: number) => {
        for (let x = x0; x < x1; x++) if (luma(page, x, y) < 140) return true;
        return false;
      };
      while (top > 0 && top > ls[0].y0 - lh && inkRow(top - 1)) top--;
    }
    return { ...d, box: [x0 - 2, top - 0.28 * lh, x1 + 2, last.y1 + 0.11 * lh] as Box };
  });
}

/**
 * A list item box whose lines all start at one x (no hanging indent: not one item) split along the
 * detector's own weaker list item boxes inside it, when those cover every line once and are at
 * least two (two one-line items found as one box and as each of the two). Each piece is fitted to
 * the ink of its lines.
 */
export function splitFlushItems<T extends Detection>(d: T, lines: InkLine[], raw: readonly Detection[]): T[] {
  if (lines.length < 2) return [d];
  const parts = raw
    .filter((r) => r.cls === 'list_item' && r.score >= 0.4 && r.box !== d.box && inside(r.box, d.box) >= 0.7)
    .sort((a, b) => b.score - a.score);
  const chosen: Detection[] = [];
  for (const r of parts) {
    if (chosen.some((c) => iou(c.box, r.box) > 0.2)) continue;
    chosen.push(r);
  }
  const holds = (r: Detection, l: InkLine) => (l.y0 + l.y1) / 2 > r.box[1] && (l.y0 + l.y1) / 2 < r.box[3];
  if (chosen.length < 2 || !lines.every((l) => chosen.filter((r) => holds(r, l)).length === 1) || !chosen.every((r) => lines.some((l) => holds(r, l)))) return [d];
  // each piece fitted to the ink of its lines, where ground-truth boxes sit around it
  const lh = median(lines.map((l) => l.y1 - l.y0));
  return chosen.sort((a, b) => a.box[1] - b.box[1]).map((r) => {
    const ls = lines.filter((l) => holds(r, l));
    const box: Box = [Math.min(...ls.map((l) => l.x)) - 2, ls[0].y0 - 0.28 * lh, Math.max(...ls.map((l) => l.xEnd)) + 2, ls[ls.length - 1].y1 + 0.11 * lh];
    return { ...d, box };
  });
}

/** Horizontal overlap of two boxes as a fraction of the narrower one. */
function hOverlap(a: Box, b: Box): number {
  return (Math.min(a[2], b[2]) - Math.max(a[0], b[0])) / Math.max(1, Math.min(a[2] - a[0], b[2] - b[0]));
}

/**
 * Right end of a line's first word: the first blank run of ≥ `minGap` columns (no pixel darker than
 * `inkBelow` in the line's rows) after ink; `line.xEnd` when the line is one word.
 */
export function firstWordEnd(img: Image, line: InkLine, minGap: number, inkBelow = 140, yEnd = line.y1): number {
  let blank = 0;
  for (let x = line.x; x < line.xEnd; x++) {
    let ink = false;
    for (let y = line.y0; y < yEnd && !ink; y++) ink = luma(img, x, y) < inkBelow;
    if (ink) blank = 0;
    else if (++blank >= minGap) return x - blank + 1;
  }
  return line.xEnd;
}

/**
 * Whether `lines` (top to bottom) read as ONE block: no line after the first opens a new one. A
 * new paragraph shows as a line pitch above the block's own (paragraph skip), a line that starts
 * off the body's x (first-line indent, or a marker left of it), or a line after a short one (a
 * paragraph's last line stops short of the right edge). A list item is its marker line followed by
 * continuation lines right of the marker. Needs ≥ 3 lines to know the pitch; two lines are one
 * block only by their shape, at a pitch of ≤ 1.9 line heights (the 99th percentile inside val
 * blocks is 1.84): a marker line over its indented continuation (list), an indented first line
 * running to the right edge over a flush one (paragraph), or two flush lines ≤ 1.6 line heights
 * apart (baseline to baseline) whose first one runs to the column's right edge (`colRight`, from
 * the other blocks beside them; unknown, 0: no), or whose second one opens with a word that would
 * not have fitted after the first.
 * The pitch is measured at the top of the ink and, as a fallback, at the baselines (a line with
 * tall inline math or without ascenders moves its top, not its baseline) and as the blank between
 * lines. Lines fused by inline math (one "line" taller than 2.2 line heights) hide an indent: no.
 * With `page`, a short line inside the block is no paragraph end when the next line's first word
 * would not have fitted in the room it left (a long path or identifier wrapped whole).
 */
export function oneBlock(lines: InkLine[], list: boolean, page?: Image, colRight = 0): boolean {
  // a blank of more than one line height between two lines is a paragraph skip (inside val
  // blocks the widest gap is ≤ 0.81 line heights for 99 %)
  const lh = median(lines.map((l) => l.y1 - l.y0));
  if (lines.slice(1).some((l, k) => l.y0 - lines[k].y1 > lh)) return false;
  // a word break: a blank of ≥ 0.3 line heights (letters in sans faces sit up to 0.2 apart); the
  // rows below the line count too, down to the next line, for underscores under a wrapped identifier
  const wordGap = Math.max(2, Math.round(0.3 * lh));
  const firstWord = (k: number) => {
    const l = lines[k];
    const yEnd = Math.min(l.y1 + Math.round(0.3 * lh), k + 1 < lines.length ? lines[k + 1].y0 : page ? page.height : l.y1);
    return page ? firstWordEnd(page, l, wordGap, 140, yEnd) - l.x : 0;
  };
  if (lines.length === 2) {
    const [a, b] = lines;
    if (b.y0 - a.y0 > 1.9 * lh) return false;
    // the first line of a block that wraps is full: the second line's first word did not fit after it
    const full = () => {
      const room = Math.max(a.xEnd, b.xEnd, colRight) - a.xEnd;
      return room <= 0.5 * lh || (page !== undefined && firstWord(1) + 0.25 * lh > room);
    };
    if (list) return a.x < b.x - 0.4 * lh && (!(colRight > 0) || full());
    if (Math.abs(a.x - b.x) <= 0.4 * lh) {
      // without the column's edge the first line's room is unknown: two one-line paragraphs
      if (!(colRight > 0) || b.base - a.base > 1.6 * lh) return false;
      return full();
    }
    return a.x > b.x + 0.4 * lh && b.xEnd - a.xEnd <= 1.5 * lh;
  }
  if (lines.length < 3) return false;
  if (lines.some((l) => l.y1 - l.y0 > 2.2 * lh)) return false;
  const pitch = lowerMedian(lines.slice(1).map((l, i) => l.y0 - lines[i].y0));
  const basePitch = lowerMedian(lines.slice(1).map((l, i) => l.base - lines[i].base));
  const right = Math.max(...lines.map((l) => l.xEnd));
  const short = Math.max(1.5 * lh, 2 * median(lines.slice(0, -1).map((l) => right - l.xEnd)));
  const rest = lines.slice(1);
  const blank = lowerMedian(rest.map((l, k) => l.y0 - lines[k].y1));
  const body = median(list ? rest.map((l) => l.x) : lines.map((l) => l.x));
  if (list && !(lines[0].x < body - 0.4 * lh)) return false;
  return rest.every((l, k) => {
    const prev = lines[k];
    const pitchOk = l.y0 - prev.y0 <= pitch + Math.max(2, 0.2 * lh) || l.base - prev.base <= basePitch + 0.2 * lh || l.y0 - prev.y1 <= blank + 0.25 * lh;
    const room = right - prev.xEnd;
    const wrapped = () => page !== undefined && firstWord(k + 1) + 0.25 * lh > room;
    return pitchOk && Math.abs(l.x - body) <= 0.4 * lh && (room <= short || wrapped());
  });
}

/**
 * Whether `regions[i]` may be a caption: a table or figure sits within `gapFrac` of the page height
 * above or below it (overlapping it horizontally), and no other caption sits by that table or
 * figure (each has one caption). The rule `relabelByContext` pairs captions by, for a later look
 * that proposes a caption.
 */
export function captionPlace(regions: readonly Detection[], i: number, pageHeight: number, gapFrac = 0.027): boolean {
  const gap = gapFrac * pageHeight;
  return regions.some((t) => (t.cls === 'table' || t.cls === 'figure') && verticalGap(regions[i].box, t.box) <= gap
    && !regions.some((c, j) => j !== i && c.cls === 'caption' && verticalGap(c.box, t.box) <= gap));
}

/**
 * Joins the pieces of one section heading (or title) the detector boxed line by line (a heading
 * wrapped over two lines) or twice (two overlapping boxes): two headings in one column (horizontal
 * overlap ≥ 50 % of the narrower) that overlap vertically or sit closer than 0.15 of the shorter
 * box's height. On 1,500 training pages, consecutive ground-truth headings and titles are ≥ 0.19 of
 * it apart.
 */
export function mergeHeadingParts<T extends Detection>(dets: readonly T[]): T[] {
  const out = [...dets];
  for (let changed = true; changed; ) {
    changed = false;
    const hs = out.filter((d) => d.cls === 'section_heading' || d.cls === 'title');
    search: for (const a of hs) {
      for (const b of hs) {
        if (a === b || a.cls !== b.cls || b.box[1] < a.box[1] || hOverlap(a.box, b.box) < 0.5) continue;
        if (b.box[1] - a.box[3] > 0.15 * Math.min(a.box[3] - a.box[1], b.box[3] - b.box[1])) continue;
        const m = { ...a, box: [Math.min(a.box[0], b.box[0]), a.box[1], Math.max(a.box[2], b.box[2]), Math.max(a.box[3], b.box[3])] as Box, score: Math.max(a.score, b.score) };
        out.splice(out.indexOf(a), 1, m);
        out.splice(out.indexOf(b), 1);
        changed = true;
        break search;
      }
    }
  }
  return out;
}

/**
 * `lines` of a box without the slivers at its top and bottom edge: an ink run that touches the edge
 * and is under 0.6 of the median line height is a neighbouring line the box cuts into.
 */
export function withoutSlivers(lines: InkLine[], box: Box): InkLine[] {
  if (lines.length < 3) return lines;
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const sliver = (l: InkLine) => l.y1 - l.y0 < 0.6 * lh && (l.y0 <= Math.floor(box[1]) || l.y1 >= Math.ceil(box[3]));
  let a = 0;
  let b = lines.length;
  if (sliver(lines[0])) a++;
  if (sliver(lines[b - 1])) b--;
  return b - a >= 2 ? lines.slice(a, b) : lines;
}

/**
 * Re-joins paragraphs and list items (`lists` false: paragraphs only) the detector cut in two, top
 * to bottom within a column: a pair
 * that overlaps horizontally by ≥ 80 % of the narrower box, with no other region between them,
 * merges when the lines of their union read as one block (`oneBlock`; the column's right edge is
 * the furthest right edge of the other text and list boxes in the same column). A list item absorbs its
 * continuation whatever the lower part was called; a paragraph only a lower text part.
 */
export function mergeSplitBlocks<T extends Detection>(page: Image, dets: readonly T[], lists = true): T[] {
  const out = [...dets]; // unmerged detections stay the same objects; a merge makes a new one
  const cy = (b: Box) => (b[1] + b[3]) / 2;
  for (let changed = true; changed; ) {
    changed = false;
    const cand = out.filter((d) => d.cls === 'text' || (lists && d.cls === 'list_item')).sort((p, q) => p.box[1] - q.box[1]);
    search: for (const a of cand) {
      for (const b of cand) {
        if (a === b || b.box[1] < a.box[1] || cy(b.box) <= cy(a.box) || hOverlap(a.box, b.box) < 0.8) continue;
        const between = out.some((d) => d !== a && d !== b && cy(d.box) > cy(a.box) && cy(d.box) < cy(b.box) && hOverlap(d.box, a.box) > 0.3);
        if (between) continue;
        const list = a.cls === 'list_item';
        if (!list && b.cls !== 'text') continue;
        const box: Box = [Math.min(a.box[0], b.box[0]), a.box[1], Math.max(a.box[2], b.box[2]), Math.max(a.box[3], b.box[3])];
        // a list's lines may stop short of the paragraphs' edge (a right indent): its edge is the other items'
        const col = out.filter((d) => d !== a && d !== b && (d.cls === 'list_item' || (!list && d.cls === 'text')) && hOverlap(d.box, box) >= 0.8 && d.box[2] - d.box[0] <= 1.2 * (box[2] - box[0]));
        const colRight = Math.max(0, ...col.map((d) => d.box[2]));
        if (!oneBlock(withoutSlivers(inkLines(page, box), box), list, page, colRight)) continue;
        const m = { ...a, box, score: Math.max(a.score, b.score) };
        out.splice(out.indexOf(a), 1, m);
        out.splice(out.indexOf(b), 1);
        // a third fragment of the same block (the detector's boxes overlapping) goes with it
        for (let k = out.length - 1; k >= 0; k--) {
          const d = out[k];
          if (d !== m && (d.cls === 'text' || d.cls === 'list_item') && inside(d.box, box) >= 0.75) out.splice(k, 1);
        }
        changed = true;
        break search;
      }
    }
  }
  return out;
}

/**
 * Trims blank rows off the top and bottom of a text-like box. A box that reaches ≥ 0.8 ink-line
 * heights past its first/last line of ink is brought to where ground-truth boxes sit around their
 * ink on the synthetic pages (median: 0.28 line heights above the first line, 0.11 below the last).
 * A sliver of ink at the box edge (under 0.6 of the median line height) that lies in a neighbouring
 * region (`others`) is that region's line, cut by this box, and is not counted. Only shrinks.
 */
export function trimBlankRows<T extends Detection>(page: Image, d: T, lines: InkLine[], others: readonly Detection[]): T {
  if (!lines.length) return d;
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const top = Math.max(0, Math.floor(d.box[1]));
  const bottom = Math.min(page.height, Math.ceil(d.box[3]));
  const foreign = (l: InkLine) =>
    l.y1 - l.y0 < 0.6 * lh && (l.y0 <= top || l.y1 >= bottom) &&
    others.some((o) => o !== d && hOverlap(o.box, d.box) > 0.3 && o.box[1] < l.y1 && o.box[3] > l.y0);
  const own = lines.filter((l) => !foreign(l));
  if (!own.length) return d;
  let [, y0, , y1] = d.box;
  if (own[0].y0 - y0 > 0.8 * lh) y0 = own[0].y0 - 0.28 * lh;
  if (y1 - own[own.length - 1].y1 > 0.8 * lh) y1 = own[own.length - 1].y1 + 0.11 * lh;
  return y0 === d.box[1] && y1 === d.box[3] ? d : { ...d, box: [d.box[0], y0, d.box[2], y1] as Box };
}

/**
 * The x of a list marker the box cut off: ink in the first line's rows, left of the box, within
 * reach of the line (gaps ≤ 0.5 line heights from the box edge, at most 1.5 line heights out),
 * that the second line's rows do not have (a neighbouring column or a column rule runs through
 * every line; a marker only through the first). Null when there is none.
 */
export function cutMarkerX(img: Image, box: Box, lines: InkLine[], pad = 4, inkBelow = 140): number | null {
  if (lines.length < 2) return null;
  const lh = median(lines.map((l) => l.y1 - l.y0));
  const start = Math.floor(box[0] - pad) - 1;
  const stop = Math.max(0, Math.floor(start - 1.5 * lh));
  const inkCol = (x: number, l: InkLine) => {
    for (let y = l.y0; y < l.y1; y++) if (luma(img, x, y) < inkBelow) return true;
    return false;
  };
  let marker = -1;
  let gap = 0;
  for (let x = start; x >= stop; x--) {
    if (inkCol(x, lines[0])) {
      marker = x;
      gap = 0;
    } else if (++gap > 0.5 * lh) break;
  }
  if (marker < 0) return null;
  // the second line may have its first letter cut by the box too: that letter (ink joined to the
  // box edge by gaps ≤ 2 px) is its own; any other ink between the marker and it is not a marker's
  let own = start + 1;
  for (let x = start, gap2 = 0; x >= marker && gap2 <= 2; x--) {
    if (inkCol(x, lines[1])) {
      own = x;
      gap2 = 0;
    } else if (own <= start) gap2++;
    else break;
  }
  for (let x = marker; x < own; x++) if (inkCol(x, lines[1])) return null;
  if (own - marker < 0.4 * lh) return null;
  return marker;
}

/**
 * The x of a list marker just left of a one-line region's ink: a small blob of ink in the line's
 * rows (ink columns joined across gaps ≤ 0.3 line heights, ≤ 1.6 line heights wide — "•", "–",
 * "(a)", "iv.") that ends ≤ 1.5 line heights before the line's first ink and has ≥ 0.6 line
 * heights of blank (or the page edge) on its left — the neighbouring column's text runs on with
 * word gaps only. Null when there is none.
 */
export function markerBefore(img: Image, line: InkLine, inkBelow = 140): number | null {
  const lh = line.y1 - line.y0;
  const inkCol = (x: number) => {
    for (let y = line.y0; y < line.y1; y++) if (luma(img, x, y) < inkBelow) return true;
    return false;
  };
  // the line's own first letter (unbroken ink) may run on left of where the box let it be seen
  let start = line.x;
  while (start > 0 && inkCol(start - 1)) start--;
  let x = start - 1;
  const reach = Math.max(0, Math.floor(start - 1.5 * lh));
  while (x >= reach && !inkCol(x)) x--;
  if (x < reach) return null;
  const right = x;
  let left = x;
  for (let gap = 0; x >= 0; x--) {
    if (inkCol(x)) {
      left = x;
      gap = 0;
    } else if (++gap > 0.3 * lh) break;
  }
  if (right - left + 1 > 1.6 * lh) return null;
  for (let k = left - 1; k >= Math.max(0, Math.floor(left - 0.6 * lh)); k--) if (inkCol(k)) return null;
  return left;
}

/**
 * The class of a one-line text / list item region from where its ink starts against the blocks of
 * its column (multi-line text and list items overlapping it horizontally by ≥ 80 %). A list's
 * items all start at the marker column; a one-line paragraph starts at the paragraphs' body x (or
 * is indented / centred well past it), while a marker sits ~0.5 line heights right of that body x.
 * On the synthetic val pages (ground-truth boxes) one-line items are at −0.22…0.15 line heights
 * from the lists' marker x and 0.42…0.83 from the paragraphs' body x; one-line paragraphs at
 * ≤ −0.45 or ≥ 0.59 from the marker x and −0.08…0.05 or ≥ 1.06 from the body x. Keeps the
 * detector's class when the column has no such blocks or the position is in neither band. A
 * marker column of any list in the column wins (one list's marker can be mis-measured).
 */
export function oneLineClass<T extends Detection>(d: T, lines: InkLine[], blocks: readonly { d: Detection; lines: InkLine[]; kind: IndentKind }[]): RegionClass {
  if (lines.length !== 1) return d.cls;
  const lh = lines[0].y1 - lines[0].y0;
  const x = lines[0].x;
  const col = blocks.filter((b) => b.d !== d && b.kind !== 'one' && hOverlap(b.d.box, d.box) >= 0.8);
  const markers = col.filter((b) => b.kind === 'hanging').map((b) => Math.abs(x - b.lines[0].x) / lh);
  if (markers.some((m) => m <= 0.25)) return 'list_item';
  const bodies = col.filter((b) => b.kind !== 'hanging').map((b) => median(b.lines.slice(1).map((l) => l.x)));
  if (bodies.length) {
    const dp = (x - median(bodies)) / lh;
    if (dp >= 0.3 && dp <= 0.95) return 'list_item';
    if (Math.abs(dp) <= 0.15 || dp >= 1) return 'text';
  } else if (markers.length && markers.every((m) => m >= 0.4)) return 'text';
  return d.cls;
}

/**
 * Mean length of the horizontal runs of ink in the rows of `lines` inside the box: the stroke
 * width of the type, which bold type roughly doubles. On the synthetic val pages (ground truth),
 * against the page's multi-line paragraphs, one-line section headings measure 1.3–3.1×, one-line
 * paragraphs, list items and captions 0.8–1.1×.
 */
export function strokeWidth(img: Image, box: Box, lines: InkLine[], inkBelow = 140): number {
  const x0 = Math.max(0, Math.floor(box[0]));
  const x1 = Math.min(img.width, Math.ceil(box[2]));
  let runs = 0;
  let len = 0;
  for (const l of lines) {
    for (let y = l.y0; y < l.y1; y++) {
      let r = 0;
      for (let x = x0; x <= x1; x++) {
        if (x < x1 && luma(img, x, y) < inkBelow) r++;
        else if (r) {
          runs++;
          len += r;
          r = 0;
        }
      }
    }
  }
  return runs ? len / runs : 0;
}

/** Stroke weight, relative to the page's paragraphs, of a bold line (heading) and of a regular one. */
export const BOLD = 1.25;
export const REGULAR = 1.15;

/**
 * Stroke width of each text, list item or section heading of one or two lines relative to the
 * median of the page's paragraphs (text regions of ≥ 3 lines); NaN for other regions, and for all
 * when the page has no such paragraph. On 300 training pages the one-line headings measure ≥ 1.36
 * for 95 %, one-line list items and paragraphs ≤ 1.06.
 */
export function lineWeights(page: Image, regions: readonly Detection[], linesOf: (box: Box) => InkLine[] = (b) => inkLines(page, b)): number[] {
  // without a sliver of a neighbour's line at the box's top or bottom edge
  const own = (box: Box, ls: InkLine[]) => {
    const tall = Math.max(0, ...ls.map((l) => l.y1 - l.y0));
    return ls.filter((l) => !(l.y1 - l.y0 < 0.6 * tall && (l.y0 <= Math.floor(box[1]) || l.y1 >= Math.ceil(box[3]))));
  };
  const lines = regions.map((d) => (d.cls === 'text' || d.cls === 'list_item' || d.cls === 'section_heading' ? own(d.box, linesOf(d.box)) : []));
  const body = regions.flatMap((d, i) => (d.cls === 'text' && lines[i].length >= 3 ? [strokeWidth(page, d.box, lines[i])] : []));
  const ref = body.length ? median(body) : 0;
  return regions.map((d, i) => (ref > 0 && lines[i].length >= 1 && lines[i].length <= 2 ? strokeWidth(page, d.box, lines[i]) / ref : NaN));
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
  const merge = o.merge ?? true;
  const tightGap = o.tightGap ?? 0.6;
  const tightEvidence = o.tightEvidence ?? 0.35;
  const ratioGap = o.ratioGap ?? 1;
  const trim = o.trim ?? true;
  const weight = o.weight ?? true;
  const oneLine = o.oneLine ?? true;
  const veto = o.veto ?? 0;
  const out = kept.map((d) => ({ ...d }));
  // ink lines per box (boxes are replaced, never edited in place, so the array identifies them)
  const lineCache = new Map<Box, InkLine[]>();
  const linesOf = (box: Box) => {
    let l = lineCache.get(box);
    if (!l) lineCache.set(box, (l = inkLines(page, box)));
    return l;
  };
  const alt = out.map((d) => {
    const m = new Map<RegionClass, number>([[d.cls, d.score]]);
    for (const r of raw) if (iou(r.box, d.box) >= 0.6) m.set(r.cls, Math.max(m.get(r.cls) ?? 0, r.score));
    return m;
  });
  // what the detector said about each kept box (merged blocks are new objects: no veto for them)
  const said = new Map<Detection, { cls: RegionClass; score: number; evidence: ReadonlyMap<RegionClass, number> }>(out.map((d, i) => [d, { cls: d.cls, score: d.score, evidence: alt[i] }]));
  const allowed = (d: Detection, cls: RegionClass): boolean => {
    const o0 = said.get(d);
    return !veto || !o0 || cls === o0.cls || (o0.evidence.get(cls) ?? 0) >= veto * o0.score;
  };
  // captions: each table/figure claims at most one adjacent text-like region and each region goes
  // to at most one of them; of the pairings that pass (below), the one with the most claims, then
  // the most caption evidence, wins (a caption between a figure and a table goes to the one that
  // leaves the other its own caption)
  const claimed = new Set<number>();
  const owners = out.map((d, i) => i).filter((i) => out[i].cls === 'table' || out[i].cls === 'figure').sort((a, b) => out[b].score - out[a].score);
  const accepts = (t: number, i: number): boolean => {
    const bs = alt[i].get('caption') ?? 0;
    if (bs < evidence) return false;
    if (out[i].cls === 'caption') return true;
    if (!promote) return false;
    // weaker evidence is enough for a region that hugs the table/figure (≤ `tightGap` ink-line
    // heights away; body text sits further off, like the paragraph above an uncaptioned table)
    // and a promotion on the score ratio alone needs the region within `ratioGap` line heights
    // (on val, captions sit 0–0.75 line heights from their table; the e2e fixture's paragraph above
    // an uncaptioned table sits 1.1 off, scored text 0.68 / caption 0.59 by the 960×768 detector)
    const ls = linesOf(out[i].box);
    if (!ls.length) return bs >= ratio * out[i].score;
    const gap = verticalGap(out[i].box, out[t].box);
    const lh = median(ls.map((l) => l.y1 - l.y0));
    const tight = bs >= tightEvidence && gap <= tightGap * lh;
    const near = !(ratioGap > 0) || gap <= ratioGap * lh;
    return tight || (near && bs >= ratio * out[i].score);
  };
  const options = owners.map((t) => out.flatMap((d, i) => (TEXTY.has(d.cls) && verticalGap(d.box, out[t].box) <= gapPx && accepts(t, i) ? [i] : [])));
  let best: number[] = [];
  let bestKey = [-1, -1];
  const pick: number[] = [];
  const search = (k: number, used: Set<number>, n: number, ev: number) => {
    if (k === owners.length) {
      if (n > bestKey[0] || (n === bestKey[0] && ev > bestKey[1] + 1e-12)) [best, bestKey] = [[...pick], [n, ev]];
      return;
    }
    for (const i of options[k]) {
      if (used.has(i)) continue;
      used.add(i);
      pick.push(i);
      search(k + 1, used, n + 1, ev + (alt[i].get('caption') ?? 0));
      pick.pop();
      used.delete(i);
    }
    pick.push(-1);
    search(k + 1, used, n, ev);
    pick.pop();
  };
  if (options.reduce((p, o) => p * (o.length + 1), 1) <= 1e5) search(0, new Set(), 0, 0);
  else {
    // too many pairings to try: strongest tables/figures first, each its best free region
    const used = new Set<number>();
    best = options.map((o) => {
      const free = o.filter((i) => !used.has(i)).sort((a, b) => (alt[b].get('caption') ?? 0) - (alt[a].get('caption') ?? 0));
      if (free.length) used.add(free[0]);
      return free.length ? free[0] : -1;
    });
  }
  for (const i of best) {
    if (i < 0) continue;
    claimed.add(i);
    out[i].cls = 'caption';
  }
  out.forEach((d, i) => {
    if (d.cls !== 'caption' || claimed.has(i)) return;
    const c = bestEvidence(alt[i], (c) => c !== 'caption' && TEXTY.has(c));
    if (allowed(d, c)) d.cls = c;
  });
  // bold short lines are headings, regular ones are not (stroke width against the page's paragraphs)
  if (weight) {
    const ws = lineWeights(page, out, linesOf);
    out.forEach((d, i) => {
      const r = ws[i];
      if (!(r > 0)) return;
      if (r >= BOLD && d.cls !== 'section_heading') d.cls = 'section_heading';
      else if (r <= REGULAR && d.cls === 'section_heading') d.cls = bestEvidence(alt[i], (c) => c === 'text' || c === 'list_item');
    });
  }
  // paragraphs / list items cut in two re-joined, text vs list item by indentation, merged list items split
  const joined = merge ? mergeSplitBlocks(page, mergeHeadingParts(out)) : out;
  const blocks = o.heading === false ? joined : joined.flatMap((d) => (d.cls === 'text' ? splitHeading(page, d, linesOf(d.box)) : [d]));
  const shaped: { d: T; lines: InkLine[]; kind: IndentKind }[] = [];
  for (const d of blocks) {
    if (d.cls !== 'text' && d.cls !== 'list_item') continue;
    let lines = linesOf(d.box);
    if (trim) {
      const t = trimBlankRows(page, d, lines, blocks);
      if (t !== d) {
        d.box = t.box;
        lines = linesOf(d.box);
      }
    }
    let kind = indentKind(lines);
    if (kind === 'flush' && d.cls === 'list_item') {
      // the detector saw a list item but the box starts right of its marker: take the marker in
      const m = cutMarkerX(page, d.box, lines);
      if (m !== null) {
        const lh = median(lines.map((l) => l.y1 - l.y0));
        d.box = [Math.min(d.box[0], m - 0.4 * lh), d.box[1], d.box[2], d.box[3]];
        lines = linesOf(d.box);
        kind = indentKind(lines);
      }
    }
    // a hanging or first-line indent is plain evidence (exact on val ground truth); flush lines
    // are not (a box that cut off its markers looks flush), so there the detector may veto
    if (kind === 'hanging') d.cls = 'list_item';
    else if (kind === 'indent' || (kind === 'flush' && allowed(d, 'text'))) d.cls = 'text';
    shaped.push({ d, lines, kind });
  }
  if (oneLine) for (const s of shaped) {
    if (s.kind !== 'one' || s.lines.length !== 1) continue;
    // look a little further left for a marker the box cut off (a column gap is ≥ 0.7 line heights)
    const lh = s.lines[0].y1 - s.lines[0].y0;
    const wide = inkLines(page, s.d.box, Math.max(4, 0.6 * lh));
    // a list item starts with its marker: one just left of the line (the box cut it off) is the
    // line's start; a "list item" with no marker that its column places as text is text, whatever
    // the detector said (a quoted paragraph after a list sits at the items' text column)
    let one = wide.length === 1 ? wide : s.lines;
    const mk = markerBefore(page, one[0]);
    if (mk !== null) one = [{ ...one[0], x: mk }];
    const c = oneLineClass(s.d, one, shaped);
    if (allowed(s.d, c) || (c === 'text' && s.d.cls === 'list_item' && mk === null)) s.d.cls = c;
    if (mk !== null && s.d.cls === 'list_item' && mk < s.d.box[0]) s.d.box = [mk - 0.3 * lh, s.d.box[1], s.d.box[2], s.d.box[3]];
  }
  const res: T[] = [];
  const pieces = new Map<T, T>(); // piece of a split item -> the box it came from
  for (const d of blocks) {
    const s = shaped.find((x) => x.d === d);
    const flushItems = s && s.kind === 'flush' && said.get(d)?.cls === 'list_item' ? splitFlushItems({ ...d, cls: 'list_item' as RegionClass }, s.lines, raw) : [d];
    const parts = flushItems.length > 1 ? flushItems : !s ? [d] : d.cls === 'list_item' ? splitListItem(d, s.lines) : d.cls === 'text' ? splitParagraphs(page, d, s.lines) : [d];
    if (parts.length > 1) for (const p of parts) pieces.set(p, d);
    res.push(...parts);
  }
  // a piece of a split item that another region already holds (the detector found that item on
  // its own too) is that item twice
  const kept2 = res.filter((p) => !pieces.has(p) || !res.some((o) => o !== p && pieces.get(o) !== pieces.get(p) && TEXTY.has(o.cls) && inside(p.box, o.box) >= 0.75));
  // a split can free the lower lines of a paragraph whose first line is a box of its own: join again
  return merge && pieces.size ? mergeSplitBlocks(page, kept2, false) : kept2;
}
