// The benchmark inside Chromium (bench.html → src/app/bench.ts). It exposes `window.gocrBench`;
// bench/run.ts (Node + Playwright) calls one section at a time and writes the report. Everything
// is served from our own origin: models, test pages, the peers' wasm and models.
import * as ort from 'onnxruntime-web/wasm';
import { createWorker, OEM, PSM } from 'tesseract.js';
import { OcrEngine, type AssetFetcher } from '../../src/engine/engine.ts';
import { browserFetcher } from '../../src/engine/fetcher.ts';
import { makeLayoutModel } from '../../src/engine/layout-adapter.ts';
import { loadLayoutDetector } from '../../src/layout/detector.ts';
import { fromImageData, type Image } from '../../src/recognizer/image.ts';
import type { OrtModuleLike } from '../../src/recognizer/vision.ts';
import { requestGpuDevice } from '../../src/gpu/device.ts';
import { openDocument } from '../../src/pdf/document.ts';
import { loadModel } from '../../src/recognizer/model.ts';
import { OrtDecoder, type OrtSessionLike, type OrtTensorCtor } from '../../src/recognizer/ort-decoder.ts';
import { TimedBackend, now } from '../core/timed-backend.ts';
import { prefixPool, runBatchScaling, runDiffusion, runRegions, warmUp, type BenchContext, type DecodeKnobs, type RegionSample } from '../core/regions.ts';
import { readPage, runPages, TruthLayout, type PageSample, type PageTruth } from '../core/pages.ts';
import { Ppocr, type PeerLine } from '../core/ppocr.ts';
import type { PeerPage } from '../core/peers.ts';
import type { Task } from '../../src/eval/summary.ts';

export interface PlanRegion {
  id: string;
  page: string;
  task: Task;
  cls: string;
  target: string;
  image: string;
}
export interface PlanPage {
  id: string;
  pdf: string;
  dpi: number;
  truth: PageTruth;
}

const base = new URL('./', location.href);
ort.env.wasm.wasmPaths = new URL('vendor/ort/', base).href;
ort.env.wasm.numThreads = 1;

const log = (s: string) => console.log(`[bench] ${s}`);

interface GpuMem {
  live: number;
  peak: number;
}

const st: {
  engine: OcrEngine | null;
  backend: TimedBackend | null;
  device: GPUDevice | null;
  gpu: GpuMem;
  truthLayout: TruthLayout | null;
  layoutError: string | null;
  regions: RegionSample[];
  pages: PageSample[];
  prefixes: Map<string, import('../../src/recognizer/model.ts').PrefixInput[]>;
  heapPeak: number;
} = { engine: null, backend: null, device: null, gpu: { live: 0, peak: 0 }, truthLayout: null, layoutError: null, regions: [], pages: [], prefixes: new Map(), heapPeak: 0 };

function heap(): number | null {
  const m = (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory;
  return m ? m.usedJSHeapSize : null;
}
function sampleHeap(): void {
  const h = heap();
  if (h !== null && h > st.heapPeak) st.heapPeak = h;
}

/** Counts bytes of live GPU buffers (created minus destroyed) and their peak. */
function trackBuffers(device: GPUDevice, mem: GpuMem): void {
  const create = device.createBuffer.bind(device);
  device.createBuffer = (desc: GPUBufferDescriptor) => {
    const b = create(desc);
    mem.live += desc.size;
    mem.peak = Math.max(mem.peak, mem.live);
    const destroy = b.destroy.bind(b);
    let gone = false;
    b.destroy = () => {
      if (!gone) {
        gone = true;
        mem.live -= desc.size;
      }
      destroy();
    };
    return b;
  };
}

function ctx(): BenchContext {
  if (!st.engine || !st.backend) throw new Error('engine not loaded');
  return { engine: st.engine, backend: st.backend, log };
}

async function bitmapToImage(bitmap: ImageBitmap): Promise<{ image: Image; canvas: OffscreenCanvas }> {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const c = canvas.getContext('2d', { willReadFrequently: true })!;
  c.drawImage(bitmap, 0, 0);
  bitmap.close();
  return { image: fromImageData(c.getImageData(0, 0, canvas.width, canvas.height)), canvas };
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

const canvases = new Map<string, OffscreenCanvas>();

const api = {
  async load(o: { modelsBase: string; backend?: 'auto' | 'cpu' }) {
    const gpu = o.backend === 'cpu' ? null : await requestGpuDevice().catch(() => null);
    let adapter: { vendor: string; architecture: string; description: string } | null = null;
    if (gpu) {
      st.device = gpu.device;
      trackBuffers(gpu.device, st.gpu);
      const a = await navigator.gpu.requestAdapter();
      if (a) adapter = { vendor: a.info.vendor, architecture: a.info.architecture, description: a.info.description };
    }
    const models = new URL(o.modelsBase, base).href;
    const fetcher: AssetFetcher = browserFetcher(models);
    const t = now();
    st.engine = await OcrEngine.load(fetcher, {
      ort: ort as unknown as OrtModuleLike,
      ortSessionOptions: { executionProviders: ['wasm'] },
      prefer: gpu ? 'webgpu' : 'cpu',
      device: gpu?.device,
      deviceDescription: gpu?.description,
      makeLayout: async (f, m, index) => {
        try {
          return await makeLayoutModel(f, m, index);
        } catch (e) {
          st.layoutError = (e as Error).message ?? String(e);
          st.truthLayout = new TruthLayout();
          return st.truthLayout;
        }
      },
    });
    st.backend = new TimedBackend(st.engine.decoder, gpu?.device);
    sampleHeap();
    return {
      userAgent: navigator.userAgent,
      crossOriginIsolated: self.crossOriginIsolated,
      hardwareConcurrency: navigator.hardwareConcurrency,
      webgpu: Boolean(navigator.gpu),
      adapter,
      backend: st.engine.backend,
      index: st.engine.index,
      config: st.engine.decoder.config,
      manifest: st.engine.manifest,
      layout: st.engine.layout.name,
      layoutError: st.layoutError,
      loadMs: now() - t,
      gpuBytesAfterLoad: st.gpu.live,
    };
  },

  async loadData(o: { regions: PlanRegion[]; pages: PlanPage[] }) {
    st.regions = [];
    for (const r of o.regions) {
      const bmp = await createImageBitmap(new Blob([(await fetchBytes(r.image)) as BlobPart], { type: 'image/png' }));
      const { image } = await bitmapToImage(bmp);
      st.regions.push({ id: r.id, page: r.page, task: r.task, cls: r.cls, target: r.target, image });
    }
    st.pages = [];
    const sizes: string[] = [];
    for (const p of o.pages) {
      // The page as a user would give it: the PDF, rendered by pdf.js at the corpus resolution.
      const doc = await openDocument({ name: `${p.id}.pdf`, bytes: (await fetchBytes(p.pdf)).buffer as ArrayBuffer });
      const { image, canvas } = await bitmapToImage(await doc.render(0, { dpi: p.dpi }));
      await doc.close();
      canvases.set(p.id, canvas);
      st.pages.push({ truth: p.truth, image });
      if (image.width !== p.truth.width || image.height !== p.truth.height) sizes.push(`${p.id}: rendered ${image.width}x${image.height}, truth ${p.truth.width}x${p.truth.height}`);
    }
    sampleHeap();
    return { regions: st.regions.length, pages: st.pages.length, sizeMismatches: sizes };
  },

  async regions(o: DecodeKnobs & { budgetS: number }) {
    const c = ctx();
    if (st.regions.length) await warmUp(c, st.regions[0], o);
    const stopAt = now() + o.budgetS * 1000;
    const out = await runRegions(c, st.regions, o, () => now() > stopAt);
    st.prefixes = out.prefixes;
    sampleHeap();
    return out.records;
  },

  async diffusion(o: DecodeKnobs & { thresholds: number[]; batch: number }) {
    const r = await runDiffusion(ctx(), st.regions, st.prefixes, o.thresholds, o, o.batch);
    return r;
  },

  async batch(o: DecodeKnobs & { sizes: number[]; pool: number }) {
    const pool = prefixPool([...st.prefixes.values()].flat(), o.pool);
    if (!pool.length) throw new Error('no region prefixes (the regions section did not run)');
    return runBatchScaling(ctx(), pool, o.sizes, o);
  },

  async pages(o: { maxNewTokens: number; blockSize: number; budgetS: number; pages: number }) {
    const c = ctx();
    const stopAt = now() + o.budgetS * 1000;
    const units: PeerPage[] = [];
    // Warm the layout session (first inference compiles/initializes) so the first timed method is not charged for it.
    if (st.pages.length) {
      if (st.truthLayout) st.truthLayout.current = st.pages[0].truth;
      await c.engine.layout.detect(st.pages[0].image);
    }
    (globalThis as { gc?: () => void }).gc?.();
    const heapStart = heap();
    st.heapPeak = heapStart ?? 0;
    const gpuStart = st.gpu.live;
    st.gpu.peak = st.gpu.live;
    const t = now();
    const runs = await runPages(c.engine, st.pages.slice(0, o.pages), {
      settings: { blockSize: o.blockSize, threshold: 0.9, maxNewTokens: o.maxNewTokens },
      truthLayout: st.truthLayout,
      log,
      onEvent: sampleHeap,
      shouldStop: () => now() > stopAt,
      onResult: (p, method, result, ms) => {
        if (method === 'selfspec') units.push({ page: p.truth.id, ms, lines: result.regions.filter((x) => x.text).map((x) => ({ text: x.text.replace(/\s+/g, ' '), box: x.box })) });
      },
    });
    const memory = { pages: runs.length, distinctPages: new Set(runs.map((r) => r.page)).size, ms: now() - t, js_heap_start: heapStart, js_heap_peak: heapStart === null ? null : st.heapPeak, gpu_bytes_start: gpuStart, gpu_bytes_peak: st.device ? st.gpu.peak : null };
    return { runs, units, memory, layout: st.truthLayout ? 'ground-truth' : 'model', layoutName: c.engine.layout.name, layoutError: st.layoutError };
  },

  /** Peak JS heap and GPU buffer bytes while reading an n-page document (pages cycled). */
  async memory(o: { pages: number; maxNewTokens: number; blockSize: number }) {
    const c = ctx();
    if (!st.pages.length) throw new Error('no pages');
    (globalThis as { gc?: () => void }).gc?.();
    const startHeap = heap();
    st.heapPeak = startHeap ?? 0;
    const gpuStart = st.gpu.live;
    st.gpu.peak = st.gpu.live;
    const t = now();
    for (let i = 0; i < o.pages; i++) {
      const p = st.pages[i % st.pages.length];
      await readPage(c.engine, p, i, 'selfspec', { settings: { blockSize: o.blockSize, threshold: 0.9, maxNewTokens: o.maxNewTokens }, truthLayout: st.truthLayout, log, onEvent: sampleHeap });
      sampleHeap();
      log(`memory: page ${i + 1}/${o.pages}`);
    }
    return { pages: o.pages, distinctPages: Math.min(o.pages, st.pages.length), ms: now() - t, js_heap_start: startHeap, js_heap_peak: heap() === null ? null : st.heapPeak, gpu_bytes_start: gpuStart, gpu_bytes_peak: st.device ? st.gpu.peak : null };
  },

  async tesseract(o: { workerPath: string; corePath: string; langPath: string }) {
    const t0 = now();
    const worker = await createWorker('eng', OEM.LSTM_ONLY, {
      workerPath: new URL(o.workerPath, base).href,
      corePath: new URL(o.corePath, base).href,
      langPath: new URL(o.langPath, base).href,
      gzip: false,
      cacheMethod: 'none',
      workerBlobURL: false,
      errorHandler: (e: unknown) => log(`tesseract worker error: ${String(e)}`),
      logger: (m: { status: string; progress: number }) => {
        if (m.progress === 1 || m.progress === 0) log(`tesseract: ${m.status} ${m.progress}`);
      },
    });
    await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
    const initMs = now() - t0;
    const pages: PeerPage[] = [];
    for (const p of st.pages) {
      const t = now();
      const r = await worker.recognize(canvases.get(p.truth.id)!, {}, { blocks: true, text: true });
      const ms = now() - t;
      const lines: PeerLine[] = [];
      for (const b of r.data.blocks ?? []) for (const para of b.paragraphs) for (const l of para.lines) {
        const text = l.text.trim();
        if (text) lines.push({ text, box: [l.bbox.x0, l.bbox.y0, l.bbox.x1, l.bbox.y1] });
      }
      pages.push({ page: p.truth.id, ms, lines });
      log(`tesseract ${p.truth.id}: ${(ms / 1000).toFixed(1)} s, ${lines.length} lines`);
    }
    await worker.terminate();
    return { initMs, pages, version: '7.0.0' };
  },

  async ppocr(o: { det: string; rec: string; keys: string }) {
    const t0 = now();
    const keys = new TextDecoder().decode(await fetchBytes(o.keys));
    const pp = await Ppocr.create(ort as unknown as OrtModuleLike, await fetchBytes(o.det), await fetchBytes(o.rec), keys, { executionProviders: ['wasm'] });
    const initMs = now() - t0;
    const pages: PeerPage[] = [];
    for (const p of st.pages) {
      const t = now();
      const lines = await pp.readPage(p.image);
      const ms = now() - t;
      pages.push({ page: p.truth.id, ms, lines });
      log(`ppocr ${p.truth.id}: ${(ms / 1000).toFixed(1)} s, ${lines.length} lines`);
    }
    return { initMs, pages };
  },

  /**
   * peers.ort_decoder: decoder.onnx (training/export_onnx.py) on onnxruntime-web, greedy AR over
   * the prefixes the regions section made; KV cache fed back as GPU buffers on the WebGPU EP.
   * Decode-only: the prefix run (which yields the first token) is timed apart, like our prefill.
   */
  async ortDecoder(o: { modelsBase: string; maxNewTokens: number; ep: 'webgpu' | 'wasm' }) {
    const regs = st.regions.filter((r) => st.prefixes.has(r.id));
    if (!regs.length) throw new Error('no region prefixes (the regions section did not run)');
    const ortw = await import('onnxruntime-web/webgpu');
    ortw.env.wasm.wasmPaths = new URL('bench-ort/', base).href; // served by bench/run.ts, not part of the app
    ortw.env.wasm.numThreads = 1;
    const models = new URL(o.modelsBase, base).href;
    const index = JSON.parse(new TextDecoder().decode(await fetchBytes(`${models}default.json`))) as { recognizer: string };
    const dir = `${models}${index.recognizer}/`;
    const [weightsBytes, configBytes, onnxBytes] = await Promise.all([fetchBytes(`${dir}model.safetensors`), fetchBytes(`${dir}config.json`), fetchBytes(`${dir}decoder.onnx`)]);
    const { weights, config } = loadModel(weightsBytes, new TextDecoder().decode(configBytes));
    const t0 = now();
    const session = await ortw.InferenceSession.create(onnxBytes, {
      executionProviders: [o.ep],
      ...(o.ep === 'webgpu' ? { preferredOutputLocation: { logits: 'cpu', present_k: 'gpu-buffer', present_v: 'gpu-buffer' } as const } : {}),
    });
    const initMs = now() - t0;
    const dec = new OrtDecoder(session as unknown as OrtSessionLike, ortw.Tensor as unknown as OrtTensorCtor, weights, config);
    await dec.greedy(st.prefixes.get(regs[0].id)![0], Math.min(4, o.maxNewTokens)); // warm-up: kernels, pipelines
    const runs: { id: string; task: string; ids: number[]; forwards: number; decodeMs: number; prefillMs: number }[] = [];
    for (const r of regs) {
      // a region's units one after another (this peer decodes one sequence at a time)
      const run = { id: r.id, task: r.task, ids: [] as number[], forwards: 0, decodeMs: 0, prefillMs: 0 };
      for (const p of st.prefixes.get(r.id)!) {
        const g = await dec.greedy(p, o.maxNewTokens);
        run.ids.push(...g.ids);
        run.forwards += g.forwards;
        run.decodeMs += g.decodeMs;
        run.prefillMs += g.prefillMs;
      }
      runs.push(run);
      log(`ort ${o.ep} ${r.id}: ${run.ids.length} tokens, ${(run.forwards / Math.max(1e-9, run.decodeMs / 1000)).toFixed(1)} tok/s`);
    }
    await session.release();
    return { ep: o.ep, initMs, onnxBytes: onnxBytes.length, runs };
  },

  /**
   * Layout detector speed in this browser: the shipped model on onnxruntime-web's wasm EP (what the
   * app's worker uses) and on its WebGPU EP, same pages; per page preprocess / model / post ms,
   * after one warm-up page each. Also checks both give the same detections.
   */
  async layout(o: { modelsBase: string; repeats: number; webgpu: boolean }) {
    if (!st.pages.length) throw new Error('no pages loaded');
    const models = new URL(o.modelsBase, base).href;
    const fetchRel = (p: string) => fetchBytes(`${models}${p}`);
    const index = JSON.parse(new TextDecoder().decode(await fetchRel('default.json'))) as { layout: string };
    const eps: { ep: 'wasm' | 'webgpu'; mod: unknown }[] = [{ ep: 'wasm', mod: ort }];
    if (o.webgpu) {
      const ortw = await import('onnxruntime-web/webgpu');
      ortw.env.wasm.wasmPaths = new URL('bench-ort/', base).href;
      ortw.env.wasm.numThreads = 1;
      eps.push({ ep: 'webgpu', mod: ortw });
    }
    const out: Record<string, { pages: number; runs: number; pre_ms: number; model_ms: number; post_ms: number; total_ms: number; detect_ms: number; detections: number[] }> = {};
    for (const { ep, mod } of eps) {
      const det = await loadLayoutDetector(fetchRel, mod as OrtModuleLike, index.layout, { executionProviders: [ep] });
      await det.detect(st.pages[0].image); // warm-up of every session detect() runs (detector, reclass)
      const acc = { pages: st.pages.length, runs: 0, pre_ms: 0, model_ms: 0, post_ms: 0, total_ms: 0, detect_ms: 0, detections: [] as number[] };
      for (let r = 0; r < o.repeats; r++) for (const p of st.pages) {
        const t = now();
        const raw = await det.detectRaw(p.image);
        acc.total_ms += now() - t;
        acc.pre_ms += raw.timing.pre;
        acc.model_ms += raw.timing.run;
        acc.post_ms += raw.timing.post;
        acc.runs++;
        if (r === 0) acc.detections.push(raw.detections.length);
        // what the worker calls: the same plus operating point, context, reclass and reading order
        const t1 = now();
        await det.detect(p.image);
        acc.detect_ms += now() - t1;
      }
      for (const k of ['pre_ms', 'model_ms', 'post_ms', 'total_ms', 'detect_ms'] as const) acc[k] /= Math.max(1, acc.runs);
      out[ep] = acc;
      log(`layout ${ep}: ${acc.total_ms.toFixed(0)} ms/page (model ${acc.model_ms.toFixed(0)} ms), detect() ${acc.detect_ms.toFixed(0)} ms`);
      await det.release();
    }
    return out;
  },

  heap() {
    return { js_heap: heap(), gpu_live: st.gpu.live };
  },
};

export type BenchApi = typeof api;
(window as unknown as { gocrBench: BenchApi }).gocrBench = api;
document.body.dataset.ready = 'true';
log('ready');
