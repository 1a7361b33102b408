// Page-level runs (DOM-free): whole pages through the engine (layout → crops → recognition of all
// regions as one batch → Markdown), timed end to end, with body-text CER in reading order.
import type { LayoutModel, LayoutRegion, OcrEngine } from '../../src/engine/engine.ts';
import type { DecodeSettings, PageEvent, PageResult } from '../../src/engine/types.ts';
import type { Image } from '../../src/recognizer/image.ts';
import { REGION_CLASSES, type RegionClass } from '../../src/markdown/types.ts';
import { pageTextEdits, readingOrderText, type OrderedText } from '../../src/eval/page.ts';
import type { PageRecordRun, SpeedMethod } from '../../src/eval/summary.ts';
import { now } from './timed-backend.ts';

/** Ground truth of a synthetic page (the fields of tools/synth PageRecord the bench reads). */
export interface PageTruth {
  id: string;
  width: number;
  height: number;
  regions: { order: number; cls: string; box: [number, number, number, number]; target: string }[];
}

export interface PageSample {
  truth: PageTruth;
  image: Image;
}

/**
 * Stand-in layout when the layout detector is missing: returns the ground-truth regions of the
 * page being read. Reported as `layout: "ground-truth"` so nobody mistakes it for the detector.
 */
export class TruthLayout implements LayoutModel {
  readonly name = 'ground-truth regions (no layout model)';
  current: PageTruth | null = null;
  async detect(): Promise<LayoutRegion[]> {
    const t = this.current;
    if (!t) throw new Error('TruthLayout: no page set');
    return t.regions
      .filter((r) => (REGION_CLASSES as readonly string[]).includes(r.cls))
      .map((r) => ({ cls: r.cls as RegionClass, box: r.box, score: 1, order: r.order }));
  }
}

export function truthText(t: PageTruth): OrderedText[] {
  return t.regions.map((r) => ({ cls: r.cls, order: r.order, text: r.target }));
}

export function resultText(p: PageResult): OrderedText[] {
  return p.regions.map((r) => ({ cls: r.cls, order: r.order, text: r.text }));
}

export interface PageRunOptions {
  settings: Omit<DecodeSettings, 'method'>;
  truthLayout: TruthLayout | null;
  log: (s: string) => void;
  onEvent?: (e: PageEvent) => void;
  shouldStop?: () => boolean;
  /** Called with every page result (e.g. to keep our output for the peer comparison). */
  onResult?: (page: PageSample, method: SpeedMethod, result: PageResult, ms: number) => void;
}

/** Reads every page with AR and with self-spec (order alternating per page). */
export async function runPages(engine: OcrEngine, pages: PageSample[], o: PageRunOptions): Promise<PageRecordRun[]> {
  const runs: PageRecordRun[] = [];
  for (let i = 0; i < pages.length; i++) {
    if (o.shouldStop?.()) {
      o.log(`pages: time budget reached after ${i} of ${pages.length}`);
      break;
    }
    const p = pages[i];
    const order: SpeedMethod[] = i % 2 === 0 ? ['ar', 'selfspec'] : ['selfspec', 'ar'];
    for (const method of order) {
      const r = await readPage(engine, p, i, method, o);
      o.onResult?.(p, method, r.result, r.ms);
      const read = resultText(r.result);
      runs.push({ page: p.truth.id, method, ms: r.ms, tokens: r.result.stats.tokens, forwards: r.result.stats.forwards, edits: pageTextEdits(read, truthText(p.truth)), text: readingOrderText(read) });
      o.log(`page ${i + 1}/${pages.length} ${p.truth.id} ${method}: ${(r.ms / 1000).toFixed(1)} s, ${r.result.stats.regions} regions, TPF ${r.result.stats.tpf.toFixed(2)}`);
    }
  }
  return runs;
}

export async function readPage(engine: OcrEngine, p: PageSample, index: number, method: SpeedMethod, o: PageRunOptions): Promise<{ result: PageResult; ms: number }> {
  if (o.truthLayout) o.truthLayout.current = p.truth;
  const t = now();
  const result = await engine.recognizePage(p.image, index, { ...o.settings, method }, { onEvent: o.onEvent });
  return { result, ms: now() - t };
}
