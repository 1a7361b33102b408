/**
 * A second look at each text-like region's class (the twin of training/layout/reclass.py).
 *
 * The detector sees the whole page at ~0.6×, where a page number ("221 of 232") and a footer
 * ("Revision 9"), or a footnote and a paragraph, are strokes of the same shape. `reclass.onnx`
 * sees the region's top-left corner at a fixed physical scale (0.75 px per px of a 150-dpi page
 * 1275 px wide): digits, bullets, "Figure 3:", font size. It relabels a region only among the
 * text-like classes, and only when it is sure (`min_prob`); it makes a caption only beside a table
 * or figure that has no other caption (`captionPlace`).
 *
 *   window  (N, 2, 72, 288): ink (255 − gray)/255 and the box mask, bilinear, outside = white
 *   geom    (N, 6): x0/W, y0/H, x1/W, y1/H, box height/u/100, box width/u/1000  (u = W/1275)
 *   logits  (N, C) over the detector's classes
 */
import type { Image } from '../recognizer/image.ts';
import type { OrtModuleLike, OrtSessionLike } from '../recognizer/vision.ts';
import { BOLD, captionPlace, lineWeights } from './context.ts';
import { grayPlane } from './preprocess.ts';
import type { Box, Detection, RegionClass } from './types.ts';

export const REF_W = 1275;
export const ZOOM = 0.75;
export const WIN_H = 72;
export const WIN_W = 288;
export const PAD_X = 24;
export const PAD_Y = 8;

/** Window and geometry features of one box on a gray plane (h × w, 0..255); float64 math as numpy. */
export function reclassWindow(gray: Float32Array, h: number, w: number, box: Box, out?: Float32Array, outGeom?: Float32Array): { window: Float32Array; geom: Float32Array } {
  const win = out ?? new Float32Array(2 * WIN_H * WIN_W);
  const geom = outGeom ?? new Float32Array(6);
  const [x0, y0, x1, y1] = box;
  const u = w / REF_W;
  const step = u / ZOOM;
  const ox = x0 - PAD_X * u;
  const oy = y0 - PAD_Y * u;
  const at = (yy: number, xx: number) => (yy >= 0 && yy < h && xx >= 0 && xx < w ? gray[yy * w + xx] : 255);
  const plane = WIN_H * WIN_W;
  for (let i = 0; i < WIN_H; i++) {
    const py = oy + (i + 0.5) * step;
    const sy = py - 0.5;
    const iy = Math.floor(sy);
    const fy = sy - iy;
    const inY = py >= y0 && py < y1;
    for (let j = 0; j < WIN_W; j++) {
      const px = ox + (j + 0.5) * step;
      const sx = px - 0.5;
      const ix = Math.floor(sx);
      const fx = sx - ix;
      const top = at(iy, ix) * (1 - fx) + at(iy, ix + 1) * fx;
      const bot = at(iy + 1, ix) * (1 - fx) + at(iy + 1, ix + 1) * fx;
      const g = top * (1 - fy) + bot * fy;
      win[i * WIN_W + j] = (255 - g) / 255;
      win[plane + i * WIN_W + j] = inY && px >= x0 && px < x1 ? 1 : 0;
    }
  }
  geom.set([x0 / w, y0 / h, x1 / w, y1 / h, (y1 - y0) / u / 100, (x1 - x0) / u / 1000]);
  return { window: win, geom };
}

export interface ReclassConfig {
  /** file next to config.json */
  model: string;
  /** classes it may relabel among (a region of another class is left alone) */
  classes: RegionClass[];
  /** relabel only when the classifier gives the new class at least this probability */
  min_prob: number;
}

export class RegionClassifier {
  private constructor(
    readonly ort: OrtModuleLike,
    readonly session: OrtSessionLike,
    readonly classes: readonly RegionClass[],
    readonly config: ReclassConfig,
  ) {}

  static async create(ort: OrtModuleLike, model: Uint8Array | string, classes: readonly RegionClass[], config: ReclassConfig, sessionOptions?: unknown): Promise<RegionClassifier> {
    const session = await ort.InferenceSession.create(model, sessionOptions);
    const missing = [...['window', 'geom'].filter((n) => !session.inputNames.includes(n)).map((n) => `input "${n}"`),
      ...(session.outputNames.includes('logits') ? [] : ['output "logits"'])];
    if (missing.length) {
      await session.release?.();
      throw new Error(`${config.model} has no ${missing.join(', ')} (inputs: ${session.inputNames.join(', ')}); re-export it with training/layout/reclass.py`);
    }
    return new RegionClassifier(ort, session, classes, config);
  }

  /** Class probabilities (n × C, softmax) of boxes on a page; `gray` is the page's gray plane when the caller has it. */
  async probabilities(page: Image, boxes: readonly Box[], gray?: Float32Array): Promise<Float32Array[]> {
    return (await this.logits(page, boxes, gray)).map(softmax);
  }

  /** Raw logits (n × C) of boxes on a page. */
  async logits(page: Image, boxes: readonly Box[], gray?: Float32Array): Promise<Float32Array[]> {
    if (boxes.length === 0) return [];
    const g = gray ?? grayPlane(page);
    const n = boxes.length;
    const per = 2 * WIN_H * WIN_W;
    const win = new Float32Array(n * per);
    const geom = new Float32Array(n * 6);
    boxes.forEach((b, k) => reclassWindow(g, page.height, page.width, b, win.subarray(k * per, (k + 1) * per), geom.subarray(k * 6, (k + 1) * 6)));
    const out = await this.session.run({
      window: new this.ort.Tensor('float32', win, [n, 2, WIN_H, WIN_W]),
      geom: new this.ort.Tensor('float32', geom, [n, 6]),
    });
    const logits = out.logits.data as Float32Array;
    const C = this.classes.length;
    if (logits.length !== n * C) throw new Error(`${this.config.model}: ${logits.length / n} logits per region, the detector has ${C} classes`);
    return boxes.map((_, k) => logits.slice(k * C, (k + 1) * C));
  }

  /** Regions relabelled where the classifier is sure of another text-like class (others unchanged). */
  async relabel<T extends Detection>(page: Image, regions: readonly T[], gray?: Float32Array): Promise<T[]> {
    const allowed = new Set(this.config.classes);
    const idx = regions.map((r, i) => (allowed.has(r.cls) ? i : -1)).filter((i) => i >= 0);
    const probs = await this.probabilities(page, idx.map((i) => regions[i].box), gray);
    const out = [...regions];
    idx.forEach((i, k) => {
      const cls = relabelFrom(probs[k], this.classes, allowed, regions[i].cls, this.config.min_prob);
      if (cls !== regions[i].cls) out[i] = { ...regions[i], cls };
    });
    // a new caption needs a table or figure beside it with no other caption (after this look)
    idx.forEach((i) => {
      if (out[i].cls === 'caption' && regions[i].cls !== 'caption' && !captionPlace(out, i, page.height)) out[i] = regions[i];
    });
    // a bold line stays a heading whatever the classifier says (a numbered heading looks like a
    // list item to it); the converse does not hold: headings set larger but regular exist
    if (idx.some((i) => regions[i].cls === 'section_heading' && out[i].cls !== 'section_heading')) {
      const ws = lineWeights(page, regions);
      idx.forEach((i) => {
        if (regions[i].cls === 'section_heading' && ws[i] >= BOLD) out[i] = regions[i];
      });
    }
    const pn = this.classes.indexOf('page_number');
    return pn < 0 ? out : onePageNumber(out, page.height, (i) => probs[idx.indexOf(i)]?.[pn] ?? 0);
  }

  async release(): Promise<void> {
    await this.session.release?.();
  }
}

/**
 * A page has one page number (every synthetic page, and nearly every real one): of several regions
 * called page_number, the one with the highest `p(i)` keeps the name and the others are running
 * heads (upper half of the page) or feet (lower half) — a short header like "CMN" or a footer like
 * "The CEC" beside the number looks like one to the detector.
 */
export function onePageNumber<T extends Detection>(regions: readonly T[], pageHeight: number, p: (i: number) => number): T[] {
  const nums = regions.map((r, i) => (r.cls === 'page_number' ? i : -1)).filter((i) => i >= 0);
  if (nums.length < 2) return [...regions];
  const keep = nums.reduce((a, b) => (p(b) > p(a) ? b : a));
  return regions.map((r, i) => (r.cls !== 'page_number' || i === keep ? r : { ...r, cls: (r.box[1] + r.box[3]) / 2 < pageHeight / 2 ? 'page_header' : 'page_footer' }));
}

export function softmax(x: ArrayLike<number>): Float32Array {
  let m = -Infinity;
  for (let i = 0; i < x.length; i++) m = Math.max(m, x[i]);
  const out = new Float32Array(x.length);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += out[i] = Math.exp(x[i] - m);
  for (let i = 0; i < x.length; i++) out[i] /= s;
  return out;
}

/** The allowed class the classifier is surest of, when that is another class with p ≥ minProb. */
export function relabelFrom(p: ArrayLike<number>, classes: readonly RegionClass[], allowed: ReadonlySet<RegionClass>, current: RegionClass, minProb: number): RegionClass {
  let best = -1;
  for (let c = 0; c < classes.length; c++) if (allowed.has(classes[c]) && (best < 0 || p[c] > p[best])) best = c;
  return best >= 0 && classes[best] !== current && p[best] >= minProb ? classes[best] : current;
}
