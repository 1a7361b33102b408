// Scoring OCR output that comes as positioned text units (a peer's lines, or our page's regions)
// against a page's ground-truth regions: every unit goes to the body-text region that contains its
// centre; a region's prediction is its units in reading order (top to bottom; units whose vertical
// centres are within half a line height of each other form one row, read left to right), joined by
// spaces. Units whose centre lies in no body-text region (tables, formulas, furniture, noise) are
// not scored, so a system that also reads page furniture is not charged for it.
import { BODY_TEXT_CLASSES } from './page.ts';
import { corpusCer, textEdits, type EditCount } from './text.ts';

export type Box4 = [number, number, number, number];

export interface TextUnit {
  text: string;
  box: Box4;
}

export interface TruthRegion {
  order: number;
  cls: string;
  box: Box4;
  target: string;
}

export function sortByBox<T>(items: T[], boxOf: (t: T) => Box4): T[] {
  const cy = (x: T) => (boxOf(x)[1] + boxOf(x)[3]) / 2;
  const s = [...items].sort((a, b) => cy(a) - cy(b));
  for (let i = 1; i < s.length; i++) {
    for (let j = i; j > 0; j--) {
      const a = boxOf(s[j - 1]), b = boxOf(s[j]);
      const hh = Math.min(a[3] - a[1], b[3] - b[1]) / 2;
      if (Math.abs(cy(s[j - 1]) - cy(s[j])) < hh && b[0] < a[0]) [s[j - 1], s[j]] = [s[j], s[j - 1]];
      else break;
    }
  }
  return s;
}

function bodyRegions(truth: TruthRegion[]): TruthRegion[] {
  return truth.filter((r) => BODY_TEXT_CLASSES.has(r.cls) && r.target.length > 0);
}

/** Predicted text per body-text region (keyed by the region's reading order). */
export function regionTextFromUnits(truth: TruthRegion[], units: TextUnit[]): Map<number, string> {
  const regions = bodyRegions(truth);
  const assigned = new Map<number, TextUnit[]>(regions.map((r) => [r.order, []]));
  for (const u of units) {
    const cx = (u.box[0] + u.box[2]) / 2, cy = (u.box[1] + u.box[3]) / 2;
    const hit = regions.find((r) => cx >= r.box[0] && cx <= r.box[2] && cy >= r.box[1] && cy <= r.box[3]);
    if (hit) assigned.get(hit.order)!.push(u);
  }
  const out = new Map<number, string>();
  for (const [order, us] of assigned) out.set(order, sortByBox(us, (u) => u.box).map((u) => u.text).join(' '));
  return out;
}

/** Edit counts over the body-text regions of one page (a region nobody read counts as all deletions). */
export function textRegionEdits(truth: TruthRegion[], units: TextUnit[]): EditCount[] {
  const pred = regionTextFromUnits(truth, units);
  return bodyRegions(truth).map((r) => textEdits(pred.get(r.order) ?? '', r.target));
}

export interface UnitPage {
  page: string;
  ms: number;
  lines: TextUnit[];
}

export interface UnitSummary {
  pages: number;
  pages_s: number | null;
  text_cer: number | null;
  text_regions: number;
  /** Text CER over only the pages in `samePages` (e.g. the pages our own page run read). */
  text_cer_same_pages: number | null;
}

export function summarizeUnits(pages: UnitPage[], truths: Map<string, TruthRegion[]>, samePages?: Set<string>): UnitSummary {
  const edits: EditCount[] = [];
  const same: EditCount[] = [];
  let ms = 0;
  for (const p of pages) {
    ms += p.ms;
    const t = truths.get(p.page);
    if (!t) continue;
    const e = textRegionEdits(t, p.lines);
    edits.push(...e);
    if (samePages?.has(p.page)) same.push(...e);
  }
  return {
    pages: pages.length,
    pages_s: ms > 0 && pages.length ? (pages.length * 1000) / ms : null,
    text_cer: edits.length ? corpusCer(edits) : null,
    text_regions: edits.length,
    text_cer_same_pages: same.length ? corpusCer(same) : null,
  };
}
