// Scoring peers (and our own page output) on the same pages: every predicted text unit (a peer's
// line, or one of our regions) goes to the ground-truth body-text region that contains its centre;
// a region's prediction is its units sorted top-to-bottom / left-to-right, joined by spaces.
// Units whose centre lies in no body-text region (tables, formulas, furniture, noise) are not
// scored here, so peers that read everything are not charged for reading page furniture.
import { BODY_TEXT_CLASSES } from '../../src/eval/page.ts';
import { corpusCer, textEdits, type EditCount } from '../../src/eval/text.ts';
import type { PageTruth } from './pages.ts';
import type { PeerLine } from './ppocr.ts';
import { sortByBox } from './ppocr.ts';

export function regionTextFromUnits(truth: PageTruth, units: PeerLine[]): Map<number, string> {
  const regions = truth.regions.filter((r) => BODY_TEXT_CLASSES.has(r.cls) && r.target.length > 0);
  const assigned = new Map<number, PeerLine[]>(regions.map((r) => [r.order, []]));
  for (const u of units) {
    const cx = (u.box[0] + u.box[2]) / 2, cy = (u.box[1] + u.box[3]) / 2;
    const hit = regions.find((r) => cx >= r.box[0] && cx <= r.box[2] && cy >= r.box[1] && cy <= r.box[3]);
    if (hit) assigned.get(hit.order)!.push(u);
  }
  const out = new Map<number, string>();
  for (const [order, us] of assigned) {
    out.set(order, sortByBox(us, (u) => u.box).map((u) => u.text).join(' '));
  }
  return out;
}

/** Edit counts over the body-text regions of one page. */
export function textRegionEdits(truth: PageTruth, units: PeerLine[]): EditCount[] {
  const pred = regionTextFromUnits(truth, units);
  return truth.regions.filter((r) => BODY_TEXT_CLASSES.has(r.cls) && r.target.length > 0).map((r) => textEdits(pred.get(r.order) ?? '', r.target));
}

export interface PeerPage {
  page: string;
  ms: number;
  lines: PeerLine[];
}

export interface PeerSummary {
  pages: number;
  pages_s: number | null;
  text_cer: number | null;
  text_regions: number;
  /** Text CER over only the pages our own page run read (same pages, same regions). */
  text_cer_same_pages: number | null;
}

export function summarizePeer(pages: PeerPage[], truths: Map<string, PageTruth>, samePages?: Set<string>): PeerSummary {
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
