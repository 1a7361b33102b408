/**
 * Strip splitter: cut a region crop into horizontal strips (text lines / table rows).
 *
 * 1. Binarize (Otsu on luma, capped so faint backgrounds and shading stay paper).
 * 2. Label 8-connected ink components (run-based union-find) and drop *rules* from the split
 *    mask: long thin horizontal or vertical components and sparse grid frames (table borders).
 *    Rules stay in the pixels that the encoder sees; they only stop steering the split.
 * 3. Horizontal projection profile of the remaining ink → bands of consecutive inked rows.
 * 4. Merge: small bands (i-dots, accents, sub/superscripts, stray marks) go to the nearer
 *    neighbour; bands separated by a tiny gap are joined. Very tall bands made of two touching
 *    lines are split at a deep valley.
 * 5. Each band becomes a box: x = ink extent, y = band rows, padded into blank paper only.
 *
 * task 'formula' always gives ONE strip (the ink bounding box of the crop, padded): a display
 * formula must never be cut between numerator and denominator.
 * A crop without ink gives one strip = the whole crop, so every region has at least one strip.
 */
import { type Box, type Image, toGray } from './image.ts';

export type Task = 'text' | 'table' | 'formula';

export interface StripOptions {
  /** Ink threshold cap: pixels with luma <= min(otsu, maxThreshold) are ink. Default 200. */
  maxThreshold?: number;
  /** A band shorter than this fraction of the typical band height is merged. Default 0.5. */
  smallBandFrac?: number;
  /** Bands with a gap below this fraction of the typical height are joined. Default 0.12. */
  tinyGapFrac?: number;
  /** Vertical padding as a fraction of the strip's ink height (into blank rows only). Default 0.3. */
  padYFrac?: number;
  /** Horizontal padding as a fraction of the strip's ink height. Default 0.25. */
  padXFrac?: number;
  /** Keep rules in the split mask (for debugging). Default false. */
  keepRules?: boolean;
}

const DEFAULTS: Required<StripOptions> = {
  maxThreshold: 200,
  smallBandFrac: 0.5,
  tinyGapFrac: 0.12,
  padYFrac: 0.3,
  padXFrac: 0.25,
  keepRules: false,
};

/** Otsu threshold of a 256-bin histogram (returns t: class 0 = v <= t). */
export function otsuThreshold(hist: ArrayLike<number>): number {
  let total = 0;
  let sum = 0;
  for (let v = 0; v < 256; v++) { total += hist[v]; sum += v * hist[v]; }
  let w0 = 0;
  let sum0 = 0;
  let best = -1;
  let bestT = 127;
  for (let t = 0; t < 255; t++) {
    w0 += hist[t];
    if (w0 === 0) continue;
    const w1 = total - w0;
    if (w1 === 0) break;
    sum0 += t * hist[t];
    const m0 = sum0 / w0;
    const m1 = (sum - sum0) / w1;
    const between = w0 * w1 * (m0 - m1) * (m0 - m1);
    if (between > best) { best = between; bestT = t; }
  }
  return bestT;
}

/** Binary ink mask (1 = ink) of an image. */
export function binarize(img: Image, maxThreshold = DEFAULTS.maxThreshold): Uint8Array {
  const g = toGray(img);
  const hist = new Float64Array(256);
  for (let i = 0; i < g.data.length; i++) hist[g.data[i]]++;
  // Otsu needs two classes; with a nearly blank crop it would split paper noise, so require
  // real contrast (some pixels darker than the cap).
  let t = Math.min(otsuThreshold(hist), maxThreshold);
  let dark = 0;
  for (let v = 0; v <= t; v++) dark += hist[v];
  if (dark === 0) t = -1;
  const m = new Uint8Array(g.data.length);
  for (let i = 0; i < m.length; i++) m[i] = g.data[i] <= t ? 1 : 0;
  return m;
}

export interface Component {
  x0: number; y0: number; x1: number; y1: number; // [x0,x1) x [y0,y1)
  area: number;
}

interface Labeled {
  /** Component id per ink run. */
  runs: { y: number; x0: number; x1: number; id: number }[];
  comps: Component[];
}

/** 8-connected components via horizontal runs + union-find. */
export function labelComponents(mask: Uint8Array, width: number, height: number): Labeled {
  const runs: { y: number; x0: number; x1: number; id: number }[] = [];
  const parent: number[] = [];
  const find = (a: number): number => {
    while (parent[a] !== a) { parent[a] = parent[parent[a]]; a = parent[a]; }
    return a;
  };
  let prevStart = 0;
  let prevEnd = 0;
  for (let y = 0; y < height; y++) {
    const rowStart = runs.length;
    const base = y * width;
    let x = 0;
    while (x < width) {
      if (!mask[base + x]) { x++; continue; }
      const s = x;
      while (x < width && mask[base + x]) x++;
      const id = parent.length;
      parent.push(id);
      runs.push({ y, x0: s, x1: x, id });
    }
    // Union with overlapping runs of the previous row (8-connectivity: touch diagonally).
    let j = prevStart;
    for (let i = rowStart; i < runs.length; i++) {
      const r = runs[i];
      while (j < prevEnd && runs[j].x1 < r.x0) j++;
      for (let k = j; k < prevEnd && runs[k].x0 <= r.x1; k++) {
        const a = find(r.id);
        const b = find(runs[k].id);
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
    prevStart = rowStart;
    prevEnd = runs.length;
  }
  const rootToComp = new Map<number, number>();
  const comps: Component[] = [];
  for (const r of runs) {
    const root = find(r.id);
    let c = rootToComp.get(root);
    if (c === undefined) {
      c = comps.length;
      rootToComp.set(root, c);
      comps.push({ x0: r.x0, y0: r.y, x1: r.x1, y1: r.y + 1, area: 0 });
    }
    const cp = comps[c];
    if (r.x0 < cp.x0) cp.x0 = r.x0;
    if (r.x1 > cp.x1) cp.x1 = r.x1;
    if (r.y + 1 > cp.y1) cp.y1 = r.y + 1;
    cp.area += r.x1 - r.x0;
    r.id = c;
  }
  return { runs, comps };
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

/**
 * Is component c a rule (line / frame) given the typical glyph height medH?
 * - horizontal rule: thin (<= max(3, 0.35 medH)) and long (>= 3 medH);
 * - vertical rule: narrow and tall (>= 3 medH);
 * - frame/grid: big in both directions and sparse (ink covers < 15 % of its box).
 */
export function isRule(c: Component, medH: number): boolean {
  const w = c.x1 - c.x0;
  const h = c.y1 - c.y0;
  const thin = Math.max(3, 0.35 * medH);
  const long = Math.max(8, 3 * medH);
  if (h <= thin && w >= long) return true;
  if (w <= thin && h >= long) return true;
  if (w >= long && h >= long && c.area < 0.15 * w * h) return true;
  return false;
}

interface Band { y0: number; y1: number } // [y0, y1)

/** Split a region crop into strip boxes [x0,y0,x1,y1) in crop coordinates, top to bottom. */
export function splitStrips(img: Image, task: Task, options: StripOptions = {}): Box[] {
  const o = { ...DEFAULTS, ...options };
  const W = img.width;
  const H = img.height;
  if (W === 0 || H === 0) return [];
  const full: Box = [0, 0, W, H];
  const mask = binarize(img, o.maxThreshold);
  const { runs, comps } = labelComponents(mask, W, H);
  if (comps.length === 0) return [full];

  // Typical glyph height: median over components that are not specks.
  const heights = comps.filter((c) => c.area >= 4 && c.y1 - c.y0 >= 3).map((c) => c.y1 - c.y0);
  const medH = Math.max(1, median(heights.length > 0 ? heights : comps.map((c) => c.y1 - c.y0)));
  const rule = comps.map((c) => !o.keepRules && isRule(c, medH));

  // Row profiles: text ink (rules excluded) and all ink, plus per-row x extent of text ink.
  const prof = new Int32Array(H);
  const anyInk = new Uint8Array(H);
  const rowX0 = new Int32Array(H).fill(W);
  const rowX1 = new Int32Array(H).fill(0);
  for (const r of runs) {
    anyInk[r.y] = 1;
    if (rule[r.id]) continue;
    prof[r.y] += r.x1 - r.x0;
    if (r.x0 < rowX0[r.y]) rowX0[r.y] = r.x0;
    if (r.x1 > rowX1[r.y]) rowX1[r.y] = r.x1;
  }

  let bands: Band[] = [];
  for (let y = 0; y < H; y++) {
    if (prof[y] === 0) continue;
    const s = y;
    while (y < H && prof[y] > 0) y++;
    bands.push({ y0: s, y1: y });
  }
  if (bands.length === 0) {
    // Only rules: keep the whole crop as one strip.
    return [full];
  }

  if (task === 'formula') {
    bands = [{ y0: bands[0].y0, y1: bands[bands.length - 1].y1 }];
  } else {
    bands = mergeBands(bands, prof, comps, rule, medH, o);
  }

  const boxes: Box[] = [];
  for (let i = 0; i < bands.length; i++) {
    const b = bands[i];
    let x0 = W;
    let x1 = 0;
    for (let y = b.y0; y < b.y1; y++) {
      if (rowX0[y] < x0) x0 = rowX0[y];
      if (rowX1[y] > x1) x1 = rowX1[y];
    }
    const h = b.y1 - b.y0;
    // Pad vertically into blank paper only (stop at any ink: rules or neighbours) and never
    // past the middle of the gap to a neighbouring band.
    const limUp = i > 0 ? Math.ceil((bands[i - 1].y1 + b.y0) / 2) : 0;
    const limDown = i + 1 < bands.length ? Math.floor((b.y1 + bands[i + 1].y0) / 2) : H;
    const pad = Math.max(1, Math.round(o.padYFrac * h));
    let y0 = b.y0;
    while (y0 > limUp && b.y0 - y0 < pad && !anyInk[y0 - 1]) y0--;
    let y1 = b.y1;
    while (y1 < limDown && y1 - b.y1 < pad && !anyInk[y1]) y1++;
    const px = Math.max(1, Math.round(o.padXFrac * h));
    boxes.push([Math.max(0, x0 - px), y0, Math.min(W, x1 + px), y1]);
  }
  return boxes;
}

/**
 * Typical height of one text line's ink band: median of the bands that look like single lines
 * (between 0.8 and 3 glyph heights); 2 glyph heights when none does.
 */
function lineHeight(bands: Band[], medH: number): number {
  const hs = bands.map((b) => b.y1 - b.y0).filter((h) => h >= 0.8 * medH && h <= 3 * medH);
  return hs.length > 0 ? median(hs) : 2 * medH;
}

/** Merge small bands and tiny gaps, then split bands that hold several touching lines. */
function mergeBands(input: Band[], prof: Int32Array, comps: Component[], rule: boolean[],
  medH: number, o: Required<StripOptions>): Band[] {
  const bands = input.map((b) => ({ ...b }));
  for (let changed = true; changed && bands.length > 1;) {
    changed = false;
    const Ht = lineHeight(bands, medH);
    // Tiny gaps first.
    for (let i = 0; i + 1 < bands.length; i++) {
      const gap = bands[i + 1].y0 - bands[i].y1;
      if (gap <= Math.max(1, o.tinyGapFrac * Ht)) {
        bands[i] = { y0: bands[i].y0, y1: bands[i + 1].y1 };
        bands.splice(i + 1, 1);
        changed = true;
        i--;
      }
    }
    // Smallest band below the size threshold goes to its nearer neighbour.
    let si = -1;
    for (let i = 0; i < bands.length; i++) {
      const h = bands[i].y1 - bands[i].y0;
      if (h < o.smallBandFrac * Ht && (si < 0 || h < bands[si].y1 - bands[si].y0)) si = i;
    }
    if (si >= 0 && bands.length > 1) {
      const up = si > 0 ? bands[si].y0 - bands[si - 1].y1 : Infinity;
      const down = si + 1 < bands.length ? bands[si + 1].y0 - bands[si].y1 : Infinity;
      const j = up <= down ? si - 1 : si + 1;
      const a = Math.min(si, j);
      bands[a] = { y0: bands[a].y0, y1: bands[a + 1].y1 };
      bands.splice(a + 1, 1);
      changed = true;
    }
  }
  // Touching lines (tight line height, accents/descenders bridging the gap): split by baselines.
  const out: Band[] = [];
  const Ht = lineHeight(bands, medH);
  for (const b of bands) {
    if (b.y1 - b.y0 > 2.2 * medH) out.push(...splitByBaselines(b, prof, comps, rule, medH, Ht));
    else out.push(b);
  }
  return out;
}

/**
 * Split a band at the rows between distinct text baselines. Baselines are clusters of the bottoms
 * of glyph-sized components (dots, accents, commas and sub/superscripts are too small to count);
 * descenders sit < 1.2 glyph heights below their baseline, so clusters closer than that are one
 * line. The cut is the least-inked row between a baseline and the next line's x-height top; both
 * pieces must be at least 0.6 line heights (Ht) tall.
 */
function splitByBaselines(b: Band, prof: Int32Array, comps: Component[], rule: boolean[], medH: number,
  Ht: number): Band[] {
  const glyphs: { y: number; h: number }[] = [];
  for (let i = 0; i < comps.length; i++) {
    const c = comps[i];
    if (rule[i] || c.y0 < b.y0 || c.y1 > b.y1) continue;
    const h = c.y1 - c.y0;
    if (h < 0.6 * medH || h > 2.5 * medH) continue;
    glyphs.push({ y: c.y1, h });
  }
  if (glyphs.length < 4) return [b];
  glyphs.sort((p, q) => p.y - q.y);
  // Greedy 1-D clustering, then join clusters closer than 1.2 medH (keeping the bigger).
  let clusters: { y: number; n: number; hs: number[] }[] = [];
  let start = 0;
  for (let i = 1; i <= glyphs.length; i++) {
    if (i === glyphs.length || glyphs[i].y - glyphs[i - 1].y > 0.5 * medH) {
      const part = glyphs.slice(start, i);
      clusters.push({ y: part[part.length >> 1].y, n: part.length, hs: part.map((g) => g.h) });
      start = i;
    }
  }
  for (let merged = true; merged;) {
    merged = false;
    for (let i = 0; i + 1 < clusters.length; i++) {
      if (clusters[i + 1].y - clusters[i].y < 1.2 * medH) {
        const a = clusters[i];
        const c = clusters[i + 1];
        clusters.splice(i, 2, { y: a.n >= c.n ? a.y : c.y, n: a.n + c.n, hs: [...a.hs, ...c.hs] });
        merged = true;
        break;
      }
    }
  }
  // A line has several full-size glyphs on its baseline; a few raised/lowered small marks
  // (superscripts, daggers, subscripts) do not make a line. A short line of full-size glyphs does.
  const maxN = Math.max(...clusters.map((c) => c.n));
  clusters = clusters.filter((c) => c.n >= 3 && (c.n >= 0.2 * maxN || median(c.hs) >= 0.85 * medH));
  if (clusters.length < 2) return [b];
  const out: Band[] = [];
  let y0 = b.y0;
  for (let k = 0; k + 1 < clusters.length; k++) {
    const lo = clusters[k].y;
    const hi = Math.floor(clusters[k + 1].y - 0.8 * medH);
    if (hi <= lo) continue;
    let best = lo;
    let bestV = Infinity;
    const mid = (lo + hi) / 2;
    for (let y = lo; y <= hi; y++) {
      const v = prof[y];
      if (v < bestV || (v === bestV && Math.abs(y - mid) < Math.abs(best - mid))) { best = y; bestV = v; }
    }
    // Both pieces must be line-sized: an inline fraction's denominator or a hanging subscript
    // under a line is part of that line.
    const minPiece = Math.max(0.8 * medH, 0.6 * Ht);
    if (best - y0 < minPiece || b.y1 - best < minPiece) continue;
    out.push({ y0, y1: best });
    y0 = best;
  }
  out.push({ y0, y1: b.y1 });
  return out;
}
