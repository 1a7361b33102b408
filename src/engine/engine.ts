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
import { cropBox } from '../layout/crops';
import { buildPrefix, createDecoder, loadModel, type DecoderBackend, type PrefixInput } from '../recognizer/model';
import { Tokenizer } from '../recognizer/tokenizer';
import { VisionEncoder, type OrtModuleLike } from '../recognizer/vision';
import type { Box, DecodeSettings, LoadProgress, PageEvent, PageResult, RegionResult, RoundView, TokenView } from './types';

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
}

export interface AssetFetcher {
  /** Bytes of a file under the models root, e.g. "gocr-tiny/model.safetensors". */
  fetch(path: string, onProgress?: (loaded: number, total: number) => void): Promise<Uint8Array>;
}

/** public/models/default.json: which models the app and CLI use. */
export interface ModelIndex {
  recognizer: string;
  vision: string;
  layout: string;
}

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
  ) {}

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
    const decoder = await createDecoder(w, config, { prefer: opts.prefer, gpu: opts.gpu, device: opts.device, deviceDescription: opts.deviceDescription });
    const vision = await VisionEncoder.create(opts.ort, visionBytes, opts.ortSessionOptions);
    const layout = await opts.makeLayout(fetcher, opts.ort, index);
    return new OcrEngine(index, tokenizer, decoder, vision, layout, JSON.parse(manifestText));
  }

  get backend(): string {
    return this.decoder.kind;
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

  /** Encodes a region crop into a decoder prefix. */
  async regionPrefix(region: Image, task: 'text' | 'table' | 'formula'): Promise<{ prefix: PrefixInput; strips: number }> {
    const f = await this.vision.encodeRegion(region, task);
    const c = this.decoder.config;
    return { prefix: buildPrefix(f.features, f.stripRows, [c.task_ids[task]], c), strips: f.stripRows.length };
  }

  /** OCR of one page image (RGBA or gray), all regions decoded as one batch. */
  async recognizePage(
    page: Image,
    pageIndex: number,
    settings: DecodeSettings,
    hooks: { onEvent?: (e: PageEvent) => void; signal?: { aborted: boolean } } = {},
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
    const prefixes: PrefixInput[] = [];
    for (const r of toRead) {
      check();
      const box = cropBox(r.box, page.width, page.height, REGION_MARGIN);
      const { prefix, strips } = await this.regionPrefix(crop(page, box), r.task!);
      r.strips = strips;
      prefixes.push(prefix);
    }
    const t2 = now();
    const partial = toRead.map(() => [] as number[]);
    const results = prefixes.length
      ? await this.decode(prefixes, settings, (seq, round) => {
          check();
          partial[seq].push(...round.committed);
          hooks.onEvent?.({ type: 'round', pageIndex, regionId: toRead[seq].id, round: this.roundView(round), text: this.tokenizer.decode(partial[seq]) });
        })
      : [];
    const t3 = now();
    results.forEach((res, k) => {
      const r = toRead[k];
      r.text = this.tokenizer.decode(res.tokens);
      r.tokens = this.tokenViews(res);
      r.rounds = res.trace.rounds.map((x) => this.roundView(x));
      r.forwards = res.trace.forwards;
      r.tpf = res.trace.tpf;
      r.stop = res.stop;
      hooks.onEvent?.({ type: 'region-done', pageIndex, region: r });
    });
    const markdown = assemblePage(regions.map((r) => ({ cls: r.cls, order: r.order, text: r.text, imageName: r.cls === 'figure' ? `page${pageIndex + 1}-figure${r.id + 1}.png` : undefined })));
    const tokens = results.reduce((s, r) => s + r.trace.tokenRound.length, 0);
    const forwards = results.reduce((s, r) => s + r.trace.forwards.ar + r.trace.forwards.draft + r.trace.forwards.verify + r.trace.forwards.cacheWrite, 0);
    const rounds = results.reduce((s, r) => s + r.trace.rounds.length, 0);
    return {
      pageIndex,
      width: page.width,
      height: page.height,
      regions,
      markdown,
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
  }
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
