/**
 * Reading order of a page's regions (geometry + class only, no text).
 *
 * Order: page headers (row by row, left to right) → body → footnotes → page footers / numbers.
 * Body: one gutter is searched near the middle of the body; regions crossing it are "spanning"
 * (titles, abstracts, wide tables, figures or formulas between columns). Spanning regions cut the
 * page into horizontal bands; in a band where left and right regions sit side by side the left
 * column is read before the right one, otherwise the band is read top to bottom (one column).
 * Captions are then moved next to their table/figure: just before it when the caption is above,
 * just after it otherwise. Furniture (headers, footers, page numbers) keeps its place in the
 * order but is flagged `skipInMarkdown`.
 */
import { FURNITURE_CLASSES, type Box, type Region, type RegionClass } from './types.ts';

export interface OrderInput {
  cls: RegionClass;
  box: Box;
  score?: number;
}

type Ordered<T> = T & { order: number; skipInMarkdown: boolean };

const h = (b: Box) => b[3] - b[1];
const w = (b: Box) => b[2] - b[0];
const cy = (b: Box) => (b[1] + b[3]) / 2;

function vOverlap(a: Box, b: Box): number {
  return Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
}

/** Top-to-bottom rows; regions overlapping a row's first region by half their height share it. */
export function sortRows<T extends { box: Box }>(items: T[]): T[] {
  const sorted = [...items].sort((a, b) => cy(a.box) - cy(b.box) || a.box[0] - b.box[0]);
  const out: T[] = [];
  let row: T[] = [];
  const flush = () => {
    row.sort((a, b) => a.box[0] - b.box[0]);
    out.push(...row);
    row = [];
  };
  for (const it of sorted) {
    if (row.length && vOverlap(row[0].box, it.box) < 0.5 * Math.min(h(row[0].box), h(it.box))) flush();
    row.push(it);
  }
  flush();
  return out;
}

/** x of the best column gutter in the middle half of [x0, x1], weighted by crossing height. */
function findGutter(items: { box: Box }[]): number | null {
  if (items.length < 2) return null;
  const x0 = Math.min(...items.map((r) => r.box[0]));
  const x1 = Math.max(...items.map((r) => r.box[2]));
  const span = x1 - x0;
  if (span <= 0) return null;
  let best = Infinity;
  let runs: [number, number][] = [];
  const lo = Math.floor(x0 + 0.25 * span);
  const hi = Math.ceil(x0 + 0.75 * span);
  const step = Math.max(1, span / 400);
  for (let x = lo; x <= hi; x += step) {
    let cost = 0;
    for (const r of items) if (r.box[0] < x && r.box[2] > x) cost += h(r.box);
    if (cost < best - 1e-9) {
      best = cost;
      runs = [[x, x]];
    } else if (Math.abs(cost - best) <= 1e-9) {
      const last = runs[runs.length - 1];
      if (last && x - last[1] <= step + 1e-9) last[1] = x;
      else runs.push([x, x]);
    }
  }
  if (!runs.length) return null;
  // widest run of minimal cost; its middle is the gutter
  runs.sort((a, b) => b[1] - b[0] - (a[1] - a[0]) || Math.abs((a[0] + a[1]) / 2 - (x0 + x1) / 2) - Math.abs((b[0] + b[1]) / 2 - (x0 + x1) / 2));
  return (runs[0][0] + runs[0][1]) / 2;
}

function sideBySide(left: { box: Box }[], right: { box: Box }[]): boolean {
  for (const a of left) for (const b of right) if (vOverlap(a.box, b.box) > 0) return true;
  return false;
}

/** Body regions in reading order (columns within bands between spanning regions). */
export function orderBody<T extends { box: Box }>(items: T[]): T[] {
  const g = findGutter(items);
  if (g === null) return sortRows(items);
  const left: T[] = [];
  const right: T[] = [];
  const spanning: T[] = [];
  const leftW = g - Math.min(...items.map((r) => r.box[0]));
  const rightW = Math.max(...items.map((r) => r.box[2])) - g;
  for (const r of items) {
    if (r.box[2] <= g) left.push(r);
    else if (r.box[0] >= g) right.push(r);
    else {
      // crossing the gutter: spanning if it reaches well into both columns or is centred on the
      // gutter; a heading or table that merely overhangs it stays in the column holding most of it
      const a = g - r.box[0];
      const b = r.box[2] - g;
      if ((a >= 0.25 * leftW && b >= 0.25 * rightW) || Math.min(a, b) >= 0.5 * Math.max(a, b)) spanning.push(r);
      else (a >= b ? left : right).push(r);
    }
  }
  if (!left.length || !right.length) return sortRows(items);
  spanning.sort((a, b) => cy(a.box) - cy(b.box));
  const bands: { left: T[]; right: T[] }[] = spanning.map(() => ({ left: [], right: [] }));
  bands.push({ left: [], right: [] });
  const bandOf = (r: T) => spanning.filter((s) => cy(s.box) < cy(r.box)).length;
  for (const r of left) bands[bandOf(r)].left.push(r);
  for (const r of right) bands[bandOf(r)].right.push(r);
  const out: T[] = [];
  bands.forEach((b, i) => {
    if (sideBySide(b.left, b.right)) out.push(...sortRows(b.left), ...sortRows(b.right));
    else out.push(...sortRows([...b.left, ...b.right]));
    if (i < spanning.length) out.push(spanning[i]);
  });
  return out;
}

/** Distance between a caption and a table/figure, or Infinity when they do not face each other. */
function captionDistance(cap: Box, obj: Box): number {
  const hov = Math.min(cap[2], obj[2]) - Math.max(cap[0], obj[0]);
  if (hov >= 0.3 * Math.min(w(cap), w(obj))) {
    // stacked: vertical gap
    return Math.max(0, cap[1] - obj[3], obj[1] - cap[3]);
  }
  const vov = vOverlap(cap, obj);
  if (vov >= 0.3 * Math.min(h(cap), h(obj))) {
    // side by side: horizontal gap, slightly penalised
    return 1.5 * Math.max(0, cap[0] - obj[2], obj[0] - cap[2]);
  }
  return Infinity;
}

/** Moves each caption next to its nearest facing table/figure (one caption per object). */
export function attachCaptions<T extends OrderInput>(seq: T[], pageH: number): T[] {
  const caps = seq.filter((r) => r.cls === 'caption');
  const objs = seq.filter((r) => r.cls === 'table' || r.cls === 'figure');
  if (!caps.length || !objs.length) return seq;
  const maxGap = 0.08 * pageH;
  const pairs: { c: T; o: T; d: number }[] = [];
  for (const c of caps) for (const o of objs) {
    const d = captionDistance(c.box, o.box);
    if (d <= maxGap) pairs.push({ c, o, d });
  }
  pairs.sort((a, b) => a.d - b.d);
  const usedC = new Set<T>();
  const usedO = new Set<T>();
  const link = new Map<T, T>();
  for (const p of pairs) {
    if (usedC.has(p.c) || usedO.has(p.o)) continue;
    usedC.add(p.c);
    usedO.add(p.o);
    link.set(p.c, p.o);
  }
  let out = seq.filter((r) => !link.has(r));
  for (const [c, o] of link) {
    const i = out.indexOf(o);
    const before = cy(c.box) < cy(o.box) && !(vOverlap(c.box, o.box) > 0.5 * Math.min(h(c.box), h(o.box)) && c.box[0] >= o.box[2]);
    out = [...out.slice(0, before ? i : i + 1), c, ...out.slice(before ? i : i + 1)];
  }
  return out;
}

/**
 * Assigns `order` (0-based) and `skipInMarkdown` to every region and returns them sorted.
 * `page` is the page size in the boxes' pixel space (defaults to the regions' extent).
 */
export function readingOrder<T extends OrderInput>(regions: T[], page?: { width: number; height: number }): Ordered<T>[] {
  const H = page?.height ?? Math.max(1, ...regions.map((r) => r.box[3]));
  const furn = regions.filter((r) => FURNITURE_CLASSES.has(r.cls));
  const foot = regions.filter((r) => r.cls === 'footnote');
  const body = regions.filter((r) => !FURNITURE_CLASSES.has(r.cls) && r.cls !== 'footnote');
  const bodyTop = body.length ? Math.min(...body.map((r) => r.box[1])) : H / 2;
  const bodyBottom = body.length ? Math.max(...body.map((r) => r.box[3])) : H / 2;
  // furniture above the body's middle is a header; below, a footer
  const mid = body.length ? (bodyTop + bodyBottom) / 2 : H / 2;
  const headers = furn.filter((r) => cy(r.box) < mid);
  const footers = furn.filter((r) => cy(r.box) >= mid);
  const seq = [
    ...sortRows(headers),
    ...attachCaptions(orderBody(body), H),
    ...sortRows(foot),
    ...sortRows(footers),
  ];
  return seq.map((r, order) => ({ ...r, order, skipInMarkdown: FURNITURE_CLASSES.has(r.cls) }));
}

export type { Region };
