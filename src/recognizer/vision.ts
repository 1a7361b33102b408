/**
 * Vision encoder: the frozen PP-OCRv4 recognizer backbone (`ppocr-v4-rec-backbone.onnx`, cut at
 * the input of its last MatMul) run on each strip of a region crop.
 *
 * The ONNX runtime is passed in (onnxruntime-web in the browser/worker or in Node,
 * onnxruntime-node in tools), so this file imports no runtime and touches no DOM.
 *
 * Per strip: convert to RGB, resize to height 48 keeping the aspect ratio (width clamped to
 * [16, 1280]), pad the width with white to a multiple of 8, normalize (v/255-0.5)/0.5, run, and
 * take the T x 120 output (T = W/8 for the padded width W).
 *
 * An encoder with input scale s (a task encoder trained on sharper strips; its manifest entry says
 * `input_scale`) gets the same strip at s times the size: content width and padded width W are
 * computed at height 48 as above, then the strip is resized to (s·cw) x (s·48) and padded to
 * (s·W) x (s·48), so it still gives W/8 rows, one per 8 columns of the 48-px strip.
 */
import { type Box, type Image, crop, padTo, resizeBilinear, toNCHW, toRGB } from './image.ts';
import { type StripOptions, type Task, splitStrips } from './strips.ts';

export const VISION_DIM = 120;
export const STRIP_HEIGHT = 48;
export const MIN_STRIP_WIDTH = 16;
// 960 squeezed full-width text lines below ~1 frame per character: PP-OCR CER on synthetic
// text crops was 11.2 % at 960, 5.0 % at 1024, 1.0 % at 1120, 0.49 % at 1280 (= uncapped).
export const MAX_STRIP_WIDTH = 1280;
export const WIDTH_MULTIPLE = 8;

/** The subset of an onnxruntime tensor we use. */
export interface OrtTensorLike {
  readonly dims: readonly number[];
  readonly data: unknown;
}

/** The subset of an onnxruntime InferenceSession we use. */
export interface OrtSessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  release?(): Promise<void>;
}

/** The subset of the `onnxruntime-web` / `onnxruntime-node` module we use. */
export interface OrtModuleLike {
  Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => OrtTensorLike;
  InferenceSession: {
    // Bytes or a path/URL; options are passed through untouched (executionProviders, threads…).
    create(model: any, options?: any): Promise<OrtSessionLike>;
  };
}

/** A strip resized and padded for the backbone. */
export interface PreparedStrip {
  /** 1 x 3 x height x width float32, RGB, (v/255-0.5)/0.5. */
  data: Float32Array;
  /** Padded input width: scale x a multiple of 8. */
  width: number;
  /** Input height: scale x 48. */
  height: number;
  /** Width of the resized content before padding (input pixels). */
  contentWidth: number;
}

/** Resized width for a strip of size w x h: aspect kept at height 48, clamped to [16, 1280]. */
export function targetWidth(w: number, h: number, maxWidth = MAX_STRIP_WIDTH): number {
  const raw = Math.round((w * STRIP_HEIGHT) / Math.max(1, h));
  return Math.min(maxWidth, Math.max(MIN_STRIP_WIDTH, raw));
}

/** Padded input width for content width cw. */
export function paddedWidth(cw: number): number {
  return Math.ceil(cw / WIDTH_MULTIPLE) * WIDTH_MULTIPLE;
}

/** Number of feature rows the backbone gives for an input of padded width W. */
export function framesForWidth(paddedW: number): number {
  return Math.floor(paddedW / WIDTH_MULTIPLE);
}

/** Resize + pad + normalize one strip image (any channel count) for an encoder of input scale `scale`. */
export function prepareStrip(strip: Image, maxWidth = MAX_STRIP_WIDTH, scale = 1): PreparedStrip {
  if (strip.width <= 0 || strip.height <= 0) throw new Error('prepareStrip: empty strip');
  if (!Number.isInteger(scale) || scale < 1) throw new Error(`prepareStrip: input scale must be a positive integer, got ${scale}`);
  const rgb = toRGB(strip);
  const cw = targetWidth(rgb.width, rgb.height, maxWidth);
  const W = paddedWidth(cw);
  const h = STRIP_HEIGHT * scale;
  const resized = resizeBilinear(rgb, cw * scale, h);
  const padded = padTo(resized, W * scale, h, 255);
  return { data: toNCHW(padded, 0.5, 0.5), width: W * scale, height: h, contentWidth: cw * scale };
}

export interface RegionFeatures {
  /** Concatenated rows (sum(stripRows) x 120) in reading order. */
  features: Float32Array;
  /** Feature rows per strip. */
  stripRows: number[];
  /** Strip boxes in crop coordinates, [x0,y0,x1,y1). */
  strips: Box[];
}

export interface VisionEncoderOptions {
  /** Input / output names; default: the session's first input/output. */
  inputName?: string;
  outputName?: string;
  /** Input scale of the model (see the file comment); default 1. */
  scale?: number;
}

export class VisionEncoder {
  readonly inputName: string;
  readonly outputName: string;
  readonly scale: number;

  constructor(
    readonly ort: OrtModuleLike,
    readonly session: OrtSessionLike,
    opts: VisionEncoderOptions = {},
  ) {
    this.inputName = opts.inputName ?? session.inputNames[0];
    this.outputName = opts.outputName ?? session.outputNames[0];
    this.scale = opts.scale ?? 1;
    if (!Number.isInteger(this.scale) || this.scale < 1) throw new Error(`vision: input scale must be a positive integer, got ${this.scale}`);
  }

  /**
   * Create the session from model bytes or a path/URL. `sessionOptions` go to
   * `InferenceSession.create` (e.g. `{executionProviders:['wasm']}` or
   * `{intraOpNumThreads: 2}` for onnxruntime-node).
   */
  static async create(
    ort: OrtModuleLike,
    model: string | Uint8Array,
    sessionOptions?: unknown,
    opts?: VisionEncoderOptions,
  ): Promise<VisionEncoder> {
    const session = await ort.InferenceSession.create(model, sessionOptions);
    return new VisionEncoder(ort, session, opts);
  }

  /** Run the backbone on an already prepared strip; returns T x 120 rows. */
  async runPrepared(p: PreparedStrip): Promise<Float32Array> {
    if (p.height !== STRIP_HEIGHT * this.scale) {
      throw new Error(`vision: strip prepared at height ${p.height}, this encoder takes ${STRIP_HEIGHT * this.scale}`);
    }
    const x = new this.ort.Tensor('float32', p.data, [1, 3, p.height, p.width]);
    const out = await this.session.run({ [this.inputName]: x });
    const y = out[this.outputName];
    const dims = y.dims;
    if (dims.length !== 3 || dims[0] !== 1 || dims[2] !== VISION_DIM || dims[1] !== framesForWidth(p.width / this.scale)) {
      throw new Error(`vision: unexpected output dims [${dims.join(',')}]`);
    }
    const data = y.data as Float32Array;
    // Copy: some runtimes reuse output buffers.
    return new Float32Array(data.subarray(0, dims[1] * VISION_DIM));
  }

  /** Features (T x 120, row-major) of one strip image. */
  async encodeStrip(strip: Image): Promise<Float32Array> {
    return this.runPrepared(prepareStrip(strip, MAX_STRIP_WIDTH, this.scale));
  }

  /**
   * Split a region crop into strips (see strips.ts; 'formula' is always one strip) and encode
   * each; features are concatenated in reading order (top to bottom).
   */
  async encodeRegion(region: Image, task: Task, stripOpts?: StripOptions): Promise<RegionFeatures> {
    const boxes = splitStrips(region, task, stripOpts);
    const parts: Float32Array[] = [];
    const stripRows: number[] = [];
    for (const b of boxes) {
      const f = await this.encodeStrip(crop(region, b));
      parts.push(f);
      stripRows.push(f.length / VISION_DIM);
    }
    const total = parts.reduce((s, p) => s + p.length, 0);
    const features = new Float32Array(total);
    let o = 0;
    for (const p of parts) { features.set(p, o); o += p.length; }
    return { features, stripRows, strips: boxes };
  }

  async release(): Promise<void> {
    await this.session.release?.();
  }
}
