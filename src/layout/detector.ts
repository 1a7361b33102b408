/**
 * Layout detector on onnxruntime (web in the browser/worker, -node or -web in Node): the caller
 * passes the ort module, so this file imports no runtime and touches no DOM.
 *
 *   const det = await LayoutDetector.create(ort, modelBytes, configJson, {executionProviders: ['wasm']});
 *   const regions = await det.detect(pageImage);        // Region[] in reading order, page pixels
 *   const crops = cropRegions(pageImage, regions);      // for the recognizer
 *
 * The ONNX model takes `image` (N, 1, input_h, input_w) and returns `scores` (N, cells, C) and
 * `boxes` (N, cells, 4) in input pixels (decode is inside the graph); see docs/LAYOUT.md.
 */
import type { Image } from '../recognizer/image.ts';
import type { OrtModuleLike, OrtSessionLike } from '../recognizer/vision.ts';
import { BLOCK_CLASSES, decodeDetections, inside, iou, mergeFragments, suppressAcrossClasses } from './postprocess.ts';
import { relabelByContext, type ContextOptions } from './context.ts';
import { grayPlane, preprocessPage, type Letterbox } from './preprocess.ts';
import { DEFAULT_REFINE_CLASSES, refineDetections } from './refine.ts';
import { readingOrder } from './reading-order.ts';
import { RegionClassifier } from './reclass.ts';
import { validateConfig, type Detection, type LayoutConfig, type Region, type RegionClass } from './types.ts';

export interface DetectOptions {
  /** defaults to config.score_threshold */
  scoreThreshold?: number;
  nmsIou?: number;
  maxDetections?: number;
  /** defaults to config.cross_class_iou (0.7 when absent); 1 disables */
  crossClassIou?: number;
  /** ink snapping of small one-line classes (refine.ts); defaults to config.refine_classes */
  refineClasses?: RegionClass[];
  /** class fixes from page context and ink (context.ts); default on */
  context?: boolean;
  /** the second look at text-like classes (reclass.ts) when the model has one; default on */
  reclass?: boolean;
}

/**
 * Regions the detector saw but could not name: a raw detection below its class threshold (but ≥
 * `lo`) that is the strongest of the boxes of all classes on the same spot (IoU ≥ 0.6), whose
 * classes together are sure there is something (1 − ∏(1 − score) ≥ `combined`: a one-line region
 * scored heading 0.48, text 0.45, list item 0.43, caption 0.41) and that no detection above
 * threshold overlaps. Text-like classes only (tables, formulas and figures are not named by ink).
 * Context (context.ts) then decides the class from ink and neighbours.
 */
export function splitEvidence(raw: readonly Detection[], above: readonly Detection[], lo: number, combined: number): Detection[] {
  const out: Detection[] = [];
  const taken = [...above];
  for (const d of [...raw].sort((a, b) => b.score - a.score)) {
    if (d.score < lo || above.includes(d) || BLOCK_CLASSES.includes(d.cls)) continue;
    const group = raw.filter((r) => iou(r.box, d.box) >= 0.6);
    if (group.some((r) => r.score > d.score)) continue;
    if (1 - group.reduce((p, r) => p * (1 - r.score), 1) < combined) continue;
    if (taken.some((k) => iou(k.box, d.box) > 0.3 || inside(d.box, k.box) > 0.5 || inside(k.box, d.box) > 0.5)) continue;
    out.push(d);
    taken.push(d);
  }
  return out;
}

/** raw detections are decoded from this score so context.ts sees weaker classes of a region */
export const EVIDENCE_THRESHOLD = 0.05;

/**
 * The operating point: detections ≥ `threshold` (or their class's entry in `classThresholds`),
 * suppression across classes, fragments of one table/formula/figure united (`mergeFragments`) and
 * suppression again, then (unless `context` is false) the context/ink class fixes, which use all
 * of `raw` as class evidence.
 */
export function operatingPoint(page: Image, raw: readonly Detection[], threshold: number, crossClassIou: number, context: boolean | ContextOptions = true, classThresholds: LayoutConfig['class_thresholds'] = {}, split?: LayoutConfig['split_evidence']): Detection[] {
  const sure = raw.filter((d) => d.score >= (classThresholds[d.cls] ?? threshold));
  const above = split?.length === 2 ? [...sure, ...splitEvidence(raw, sure, split[0], split[1])] : sure;
  // fragments of one table/formula/figure united, then suppression again (what lay inside the
  // fragments' union, e.g. a "formula" found in a table cell, goes with it)
  const kept = suppressAcrossClasses(mergeFragments(suppressAcrossClasses(above, crossClassIou)), crossClassIou);
  return context ? relabelByContext(page, kept, raw, context === true ? {} : context) : kept;
}

/** Context options with the model's `context_veto` filled in where the caller set none. */
export function withVeto(context: boolean | ContextOptions, veto: number | undefined): boolean | ContextOptions {
  if (context === false) return false;
  const o = context === true ? {} : context;
  return o.veto === undefined && veto !== undefined ? { ...o, veto } : o;
}

export interface RawDetections {
  detections: Detection[];
  letterbox: Letterbox;
  /** milliseconds: preprocess, model, post-process */
  timing: { pre: number; run: number; post: number };
}

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export class LayoutDetector {
  readonly name = 'layout';
  private input: Float32Array;

  private constructor(
    readonly ort: OrtModuleLike,
    readonly session: OrtSessionLike,
    readonly config: LayoutConfig,
    readonly reclass: RegionClassifier | null,
  ) {
    this.input = new Float32Array(config.input_h * config.input_w);
  }

  /**
   * `model`: ONNX bytes (or a path/URL, passed to InferenceSession.create untouched). `reclassModel`:
   * the bytes of config.reclass.model when the config names one (without them the second look is off).
   */
  static async create(ort: OrtModuleLike, model: Uint8Array | string, config: unknown, sessionOptions?: unknown, reclassModel?: Uint8Array | string): Promise<LayoutDetector> {
    const cfg = validateConfig(typeof config === 'string' ? JSON.parse(config) : config);
    const session = await ort.InferenceSession.create(model, sessionOptions);
    let rc: RegionClassifier | null = null;
    try {
      for (const n of ['scores', 'boxes']) {
        if (!session.outputNames.includes(n)) throw new Error(`layout.onnx has no output "${n}" (outputs: ${session.outputNames.join(', ')}); re-export it`);
      }
      if (cfg.reclass && reclassModel) rc = await RegionClassifier.create(ort, reclassModel, cfg.classes, cfg.reclass, sessionOptions);
    } catch (e) {
      await session.release?.();
      throw e;
    }
    return new LayoutDetector(ort, session, cfg, rc);
  }

  /** Runs the network on a prepared input (1 × input_h × input_w) → raw scores and boxes. */
  async run(input: Float32Array): Promise<{ scores: Float32Array; boxes: Float32Array }> {
    const { input_h: H, input_w: W } = this.config;
    const x = new this.ort.Tensor('float32', input, [1, 1, H, W]);
    const out = await this.session.run({ [this.session.inputNames[0]]: x });
    return { scores: out.scores.data as Float32Array, boxes: out.boxes.data as Float32Array };
  }

  /** Detections in page pixels, by descending score (no reading order). */
  async detectRaw(page: Image, opts: DetectOptions = {}, gray?: Float32Array): Promise<RawDetections> {
    const c = this.config;
    const t0 = now();
    const { data, box } = preprocessPage(page, c.input_h, c.input_w, this.input, gray);
    const t1 = now();
    const { scores, boxes } = await this.run(data);
    const t2 = now();
    const decoded = decodeDetections(scores, boxes, c.classes, box.scale, page.width, page.height, {
      scoreThreshold: opts.scoreThreshold ?? c.score_threshold,
      nmsIou: opts.nmsIou ?? c.nms_iou,
      maxDetections: opts.maxDetections ?? c.max_detections,
    });
    const detections = refineDetections(page, decoded, opts.refineClasses ?? c.refine_classes ?? DEFAULT_REFINE_CLASSES);
    return { detections, letterbox: box, timing: { pre: t1 - t0, run: t2 - t1, post: now() - t2 } };
  }

  /** Regions in reading order (furniture flagged `skipInMarkdown`), boxes in page pixels. */
  async detect(page: Image, opts: DetectOptions = {}): Promise<Region[]> {
    const thr = opts.scoreThreshold ?? this.config.score_threshold;
    // the page's gray plane once, for the detector input and the classifier's windows
    const gray = grayPlane(page);
    const { detections } = await this.detectRaw(page, { ...opts, scoreThreshold: Math.min(thr, EVIDENCE_THRESHOLD) }, gray);
    // an explicit threshold applies to every class; otherwise the config's per-class points
    const perClass = opts.scoreThreshold === undefined ? this.config.class_thresholds : undefined;
    const context = withVeto(opts.context ?? true, this.config.context_veto);
    const kept = operatingPoint(page, detections, thr, opts.crossClassIou ?? this.config.cross_class_iou ?? 0.7, context, perClass, this.config.split_evidence);
    const named = this.reclass && opts.reclass !== false ? await this.reclass.relabel(page, kept, gray) : kept;
    return readingOrder(named, { width: page.width, height: page.height });
  }

  async release(): Promise<void> {
    await this.session.release?.();
    await this.reclass?.release();
  }
}

/**
 * Convenience loader for the engine: reads `<dir>/config.json` and `<dir>/layout.onnx` through any
 * byte fetcher (the engine's AssetFetcher.fetch fits).
 */
export async function loadLayoutDetector(
  fetchBytes: (path: string) => Promise<Uint8Array>,
  ort: OrtModuleLike,
  dir = 'layout',
  sessionOptions?: unknown,
): Promise<LayoutDetector> {
  const cfg = JSON.parse(new TextDecoder().decode(await fetchBytes(`${dir}/config.json`)));
  const model = await fetchBytes(`${dir}/layout.onnx`);
  const rc = cfg?.reclass?.model ? await fetchBytes(`${dir}/${cfg.reclass.model}`) : undefined;
  return LayoutDetector.create(ort, model, cfg, sessionOptions, rc);
}
