// The OCR engine: layout → region crops → vision encoder → one batched decode per page → Markdown.
// No DOM: the same object runs in the Web Worker, in Node tests and in the CLI. Assets come
// through a fetcher (fetch() in the browser, fs in Node); onnxruntime comes in as a module
// (onnxruntime-web in the browser, onnxruntime-web or -node in Node).
import { decodeAR } from '../decoding/ar';
import { decodeSelfSpec } from '../decoding/selfspec';
import { decodeDiffusion } from '../decoding/diffusion';
import type { DecodeResult, RoundTrace } from '../decoding/trace';
import { assemblePage } from '../markdown/assemble';
import { taskOf, type RegionClass } from '../markdown/types';
import { crop, type Image } from '../recognizer/image';
import { MAX_PAGE_PIXELS } from '../pdf/fit';
import { regionCropBox } from '../layout/crops';
import { buildPrefix, createDecoder, loadModel, type DecoderBackend, type PrefixInput } from '../recognizer/model';
import { Tokenizer } from '../recognizer/tokenizer';
import { VisionEncoder, type OrtModuleLike } from '../recognizer/vision';
import { taskEncoderScale } from './task-encoders';
import { figureName, type Box, type DecodeSettings, type FigureImage, type LoadProgress, type PageEvent, type PageResult, type RegionResult, type RoundView, type TokenView } from './types';

/**
 * A sharper source of page pixels than the page image: a PDF page re-rendered by pdf.js. A task
 * encoder of input scale s > 1 (vision.ts) reads its regions from `render(box, s)` when the caller
 * gives one, and from the page image, resized up, when not (images, which have no more pixels).
 */
export interface PageDetail {
  /**
   * The page rectangle `box` (integer page-image pixels, [x0, y0, x1, y1)) rendered at `scale`
   * times the page image's resolution: an image of (x1-x0)·scale × (y1-y0)·scale pixels.
   */
  render(box: Box, scale: number): Promise<Image>;
}

export { taskEncoderScale };

/** What the engine needs from the layout stage (implemented by src/layout). */
export interface LayoutRegion {
  cls: RegionClass;
  box: Box;
  score: number;
  order: number;
}
export interface LayoutModel {
  detect(page: Image): Promise<LayoutRegion[]>;
  readonly name: string;
  /** frees what the model holds (onnxruntime sessions); optional for models that hold nothing */
  release?(): Promise<void>;
}

export interface AssetFetcher {
  /** Bytes of a file under the models root, e.g. "gocr-tiny/model.safetensors". */
  fetch(path: string, onProgress?: (loaded: number, total: number) => void): Promise<Uint8Array>;
}

/** public/models/default.json: which models the app and CLI use. */
export interface ModelIndex {
  recognizer: string;
  /** The vision encoder of every task without its own entry in `visionTasks`. */
  vision: string;
  /**
   * Task-specific vision encoders (paths under the models root), e.g. the formula encoder that
   * training/train_vision.py fine-tuned through the frozen decoder of `recognizer`.
   */
  visionTasks?: Partial<Record<RegionTask, string>>;
  layout: string;
}

type RegionTask = 'text' | 'table' | 'formula';
const REGION_TASKS: readonly RegionTask[] = ['text', 'table', 'formula'];

export interface EngineOptions {
  ort: OrtModuleLike;
  ortSessionOptions?: unknown;
  prefer?: 'webgpu' | 'cpu';
  gpu?: GPU;
  device?: GPUDevice;
  deviceDescription?: string;
  /** Builds the layout model (kept pluggable so tests can pass ground-truth regions). */
  makeLayout: (fetcher: AssetFetcher, ort: OrtModuleLike, index: ModelIndex) => Promise<LayoutModel>;
  onProgress?: (p: LoadProgress) => void;
}

export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

const REGION_MARGIN = 4;

export class OcrEngine {
  private constructor(
    readonly index: ModelIndex,
    readonly tokenizer: Tokenizer,
    readonly decoder: DecoderBackend,
    readonly vision: VisionEncoder,
    readonly layout: LayoutModel,
    readonly manifest: Record<string, unknown>,
    readonly visionTasks: Partial<Record<RegionTask, VisionEncoder>> = {},
  ) {}

  /** The vision encoder that reads regions of `task`. */
  encoderFor(task: RegionTask): VisionEncoder {
    return this.visionTasks[task] ?? this.vision;
  }

  static async load(fetcher: AssetFetcher, opts: EngineOptions): Promise<OcrEngine> {
    const text = async (p: string) => new TextDecoder().decode(await fetcher.fetch(p));
    const index = JSON.parse(await text('default.json')) as ModelIndex;
    const progress = (file: string) => (loaded: number, total: number) => opts.onProgress?.({ file, loaded, total });
    const rec = index.recognizer;
    const [weights, configText, vocabText, manifestText, visionBytes] = await Promise.all([
      fetcher.fetch(`${rec}/model.safetensors`, progress(`${rec}/model.safetensors`)),
      text(`${rec}/config.json`),
      text(`${rec}/vocab.json`),
      text(`${rec}/manifest.json`).catch(() => '{}'),
      fetcher.fetch(index.vision, progress(index.vision)),
    ]);
    const { weights: w, config } = loadModel(weights, configText);
    const tokenizer = new Tokenizer(JSON.parse(vocabText));
    if (tokenizer.vocabSize !== config.vocab_size) {
      throw new Error(`vocab.json has ${tokenizer.vocabSize} tokens but config.json says ${config.vocab_size}; re-run training/export.py`);
    }
    const tasks = Object.entries(index.visionTasks ?? {});
    for (const [task, path] of tasks) {
      if (!REGION_TASKS.includes(task as RegionTask)) {
        throw new Error(`default.json: visionTasks has unknown task "${task}" (text, table, formula)`);
      }
      if (typeof path !== 'string' || !path) throw new Error(`default.json: visionTasks.${task} must be a file path`);
    }
    const taskFiles = tasks as [RegionTask, string][]; // checked above
    const manifest = JSON.parse(manifestText) as Record<string, unknown>;
    const decoder = await createDecoder(w, config, { prefer: opts.prefer, gpu: opts.gpu, device: opts.device, deviceDescription: opts.deviceDescription });
    // what is created so far is released if a later part fails to load
    const made: VisionEncoder[] = [];
    try {
      const vision = await VisionEncoder.create(opts.ort, visionBytes, opts.ortSessionOptions);
      made.push(vision);
      const visionTasks: Partial<Record<RegionTask, VisionEncoder>> = {};
      for (const [task, path] of taskFiles) {
        const scale = taskEncoderScale(manifest, rec, path);
        const enc = await VisionEncoder.create(opts.ort, await fetcher.fetch(path, progress(path)), opts.ortSessionOptions, { scale });
        made.push(enc);
        visionTasks[task] = enc;
      }
      const layout = await opts.makeLayout(fetcher, opts.ort, index);
      return new OcrEngine(index, tokenizer, decoder, vision, layout, manifest, visionTasks);
    } catch (e) {
      decoder.dispose();
      await Promise.all(made.map((m) => m.release().catch(() => undefined)));
      throw e;
    }
  }

  get backend(): string {
    return this.decoder.kind;
  }

  /** Why the decoder runs on the CPU although WebGPU was preferred, if it does. */
  get backendNote(): string | undefined {
    return this.decoder.fallbackReason;
  }

  private roundView(r: RoundTrace): RoundView {
    const t = (id: number) => this.tokenizer.tokenText(id);
    return {
      round: r.round,
      position: r.position,
      accepted: r.accepted,
      drafted: r.drafted.map((id) => (id < 0 ? '' : t(id))),
      committed: r.committed.map(t),
      a0: r.a0 === null ? null : t(r.a0),
      rejected: r.rejected ? { index: r.rejected.index, draft: t(r.rejected.draft), replacement: t(r.rejected.replacement) } : null,
    };
  }

  /** Decodes prefixes with the chosen method. */
  async decode(prefixes: PrefixInput[], s: DecodeSettings, onRound?: (seq: number, r: RoundTrace) => void): Promise<DecodeResult[]> {
    const base = { maxNewTokens: s.maxNewTokens, onRound };
    if (s.method === 'ar') return decodeAR(this.decoder, prefixes, base);
    if (s.method === 'diffusion') return decodeDiffusion(this.decoder, prefixes, { ...base, blockSize: s.blockSize, threshold: s.threshold });
    return decodeSelfSpec(this.decoder, prefixes, { ...base, blockSize: s.blockSize });
  }

  /** Encodes a region crop into one decoder prefix (all its strips). */
  async regionPrefix(region: Image, task: 'text' | 'table' | 'formula'): Promise<{ prefix: PrefixInput; strips: number }> {
    const f = await this.encoderFor(task).encodeRegion(region, task);
    const c = this.decoder.config;
    return { prefix: buildPrefix(f.features, f.stripRows, [c.task_ids[task]], c), strips: f.stripRows.length };
  }

  /**
   * Encodes a region crop into its decode units: a text region is read one strip (line) at a
   * time — one prefix per strip, decoded side by side in the batch — while tables and formulas are
   * read whole. Short units are what the small model reads well (val text CER 4 % by line vs
   * 37 % by region at the same checkpoint, docs/ARCHITECTURE.md "Recognition unit").
   */
  async regionUnits(region: Image, task: 'text' | 'table' | 'formula'): Promise<{ prefixes: PrefixInput[]; strips: number }> {
    const f = await this.encoderFor(task).encodeRegion(region, task);
    const c = this.decoder.config;
    const tid = [c.task_ids[task]];
    if (task !== 'text' || f.stripRows.length <= 1) return { prefixes: [buildPrefix(f.features, f.stripRows, tid, c)], strips: f.stripRows.length };
    const prefixes: PrefixInput[] = [];
    let off = 0;
    for (const n of f.stripRows) {
      prefixes.push(buildPrefix(f.features.subarray(off * c.vision_dim, (off + n) * c.vision_dim), [n], tid, c));
      off += n;
    }
    return { prefixes, strips: f.stripRows.length };
  }

  /** Text of a region from its units' texts (the line join of the corpus: trimmed, one space). */
  static joinUnits(texts: string[]): string {
    return texts.map((t) => t.trim()).filter((t) => t.length > 0).join(' ');
  }

  /**
   * One region's result from its units' decodes: text joined, tokens and rounds back to back
   * (rounds renumbered so they stay distinct; `unit` says which line), forwards summed.
   */
  mergeUnits(results: DecodeResult[]): Pick<RegionResult, 'text' | 'tokens' | 'rounds' | 'forwards' | 'tpf' | 'stop'> & { ids: number[] } {
    const forwards = { ar: 0, draft: 0, verify: 0, cacheWrite: 0 };
    const tokens: TokenView[] = [];
    const rounds: RoundView[] = [];
    const ids: number[] = [];
    let committed = 0;
    let stop = 'eos';
    results.forEach((res, unit) => {
      const base = rounds.length;
      for (const v of this.tokenViews(res)) tokens.push({ ...v, round: v.round + base, unit });
      for (const r of res.trace.rounds) rounds.push({ ...this.roundView(r), round: r.round + base, unit });
      for (const k of Object.keys(forwards) as (keyof typeof forwards)[]) forwards[k] += res.trace.forwards[k];
      ids.push(...res.tokens, ...(res.stop === 'eos' ? [this.decoder.config.eos_id] : []));
      committed += res.trace.tokenRound.length;
      if (res.stop !== 'eos') stop = res.stop;
    });
    const fw = forwards.ar + forwards.draft + forwards.verify + forwards.cacheWrite;
    const text = results.length === 1 ? this.tokenizer.decode(results[0].tokens) : OcrEngine.joinUnits(results.map((r) => this.tokenizer.decode(r.tokens)));
    return { text, tokens, rounds, forwards, tpf: fw ? committed / fw : 0, stop, ids };
  }

  /** OCR of one page image (RGBA or gray), all regions decoded as one batch. */
  async recognizePage(
    page: Image,
    pageIndex: number,
    settings: DecodeSettings,
    hooks: { onEvent?: (e: PageEvent) => void; signal?: { aborted: boolean }; detail?: PageDetail } = {},
  ): Promise<PageResult> {
    const check = () => {
      if (hooks.signal?.aborted) throw new CancelledError();
    };
    const t0 = now();
    const layout = await this.layout.detect(page);
    const t1 = now();
    check();
    const ordered = [...layout].sort((a, b) => a.order - b.order);
    const regions: RegionResult[] = ordered.map((r, id) => ({
      id,
      cls: r.cls,
      box: r.box,
      score: r.score,
      order: r.order,
      task: taskOf(r.cls),
      text: '',
      tokens: [],
      rounds: [],
      forwards: { ar: 0, draft: 0, verify: 0, cacheWrite: 0 },
      tpf: 0,
      strips: 0,
      stop: r.cls === 'figure' ? 'figure' : 'pending',
    }));
    hooks.onEvent?.({ type: 'layout', pageIndex, regions: regions.map(({ id, cls, box, score, order, task }) => ({ id, cls, box, score, order, task })) });

    const toRead = regions.filter((r) => r.task !== null);
    // every region's units (text: one per line) go into one batch; unitOf maps a sequence back
    const prefixes: PrefixInput[] = [];
    const unitOf: { region: number; unit: number }[] = [];
    const unitsOfRegion: number[][] = [];
    for (const [k, r] of toRead.entries()) {
      check();
      const box = regionCropBox(page, r.box, r.cls, REGION_MARGIN);
      const s = this.encoderFor(r.task!).scale;
      // a sharper re-render, unless it would pass the page pixel cap (a huge region of a poster)
      const sharpPixels = (box[2] - box[0]) * (box[3] - box[1]) * s * s;
      const sharp = s > 1 && hooks.detail && sharpPixels <= MAX_PAGE_PIXELS ? await detailCrop(hooks.detail, box, s) : null;
      const u = await this.regionUnits(sharp ?? crop(page, box), r.task!);
      r.strips = u.strips;
      r.detail = sharp ? s : 1;
      unitsOfRegion.push(u.prefixes.map((p, j) => (unitOf.push({ region: k, unit: j }), prefixes.push(p) - 1)));
    }
    const t2 = now();
    const partial = prefixes.map(() => [] as number[]);
    const results = prefixes.length
      ? await this.decode(prefixes, settings, (seq, round) => {
          check();
          partial[seq].push(...round.committed);
          const { region, unit } = unitOf[seq];
          const text = OcrEngine.joinUnits(unitsOfRegion[region].map((q) => this.tokenizer.decode(partial[q])));
          hooks.onEvent?.({ type: 'round', pageIndex, regionId: toRead[region].id, round: { ...this.roundView(round), unit }, text });
        })
      : [];
    const t3 = now();
    toRead.forEach((r, k) => {
      const m = this.mergeUnits(unitsOfRegion[k].map((q) => results[q]));
      r.text = m.text;
      r.tokens = m.tokens;
      r.rounds = m.rounds;
      r.forwards = m.forwards;
      r.tpf = m.tpf;
      r.stop = m.stop;
      hooks.onEvent?.({ type: 'region-done', pageIndex, region: r });
    });
    // figures are not read: their pixels (a crop of the page image) go out beside the Markdown that links them
    const figures: FigureImage[] = regions
      .filter((r) => r.cls === 'figure')
      .map((r) => ({ name: figureName(pageIndex, r.id), regionId: r.id, image: crop(page, r.box) }))
      .filter((f) => f.image.width > 0 && f.image.height > 0);
    const named = new Map(figures.map((f) => [f.regionId, f.name]));
    const markdown = assemblePage(regions.map((r) => ({ cls: r.cls, order: r.order, text: r.text, imageName: named.get(r.id) })));
    const tokens = results.reduce((s, r) => s + r.trace.tokenRound.length, 0);
    const forwards = results.reduce((s, r) => s + r.trace.forwards.ar + r.trace.forwards.draft + r.trace.forwards.verify + r.trace.forwards.cacheWrite, 0);
    const rounds = results.reduce((s, r) => s + r.trace.rounds.length, 0);
    return {
      pageIndex,
      width: page.width,
      height: page.height,
      regions,
      markdown,
      figures,
      method: settings.method,
      backend: this.decoder.kind,
      stats: {
        regions: regions.length,
        tokens,
        rounds,
        forwards,
        tpf: forwards ? tokens / forwards : 0,
        layoutMs: t1 - t0,
        visionMs: t2 - t1,
        decodeMs: t3 - t2,
        totalMs: t3 - t0,
        tokPerS: t3 > t2 ? (tokens * 1000) / (t3 - t2) : 0,
      },
    };
  }

  private tokenViews(res: DecodeResult): TokenView[] {
    const views: TokenView[] = [];
    const rounds = res.trace.rounds;
    for (const r of rounds) {
      r.committed.forEach((id, j) => {
        if (id === this.decoder.config.eos_id) return;
        const verifierToken = res.trace.method === 'selfspec' && j === r.committed.length - 1 && r.committed.length > 1;
        views.push({ text: id === this.tokenizer.unkId ? '\ufffd' : this.tokenizer.tokenText(id), round: r.round, verifierToken });
      });
    }
    return views;
  }

  dispose(): void {
    this.decoder.dispose();
    void this.vision.release();
    for (const enc of Object.values(this.visionTasks)) void enc?.release().catch(() => undefined);
    void this.layout.release?.().catch(() => undefined);
  }
}

/**
 * A crop re-rendered at `scale` (PageDetail), or null when the source fails or returns another
 * size: the region is then read from the page image, so a render problem costs sharpness, not the page.
 */
export async function detailCrop(detail: PageDetail, box: Box, scale: number): Promise<Image | null> {
  const w = (box[2] - box[0]) * scale;
  const h = (box[3] - box[1]) * scale;
  if (w <= 0 || h <= 0) return null;
  try {
    const img = await detail.render(box, scale);
    if (img.width !== w || img.height !== h || img.data.length !== w * h * img.channels) return null;
    return img;
  } catch {
    return null;
  }
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
