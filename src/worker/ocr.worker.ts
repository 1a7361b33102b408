// The OCR worker: loads the engine once (models from the app's own origin, cached by the browser)
// and reads pages off the page thread. Exposed with comlink.
import * as Comlink from 'comlink';
import * as ort from 'onnxruntime-web/wasm';
import type { EngineInfo, OcrWorkerApi } from './api';
import { OcrEngine, type PageDetail } from '../engine/engine';
import type { OrtModuleLike } from '../recognizer/vision';
import { browserFetcher } from '../engine/fetcher';
import { fromImageData } from '../recognizer/image';
import { inkBBoxCpu } from '../reference/inkbbox';
import { inkBBoxGpu } from '../gpu/kernels/inkbbox';
import { makeLayoutModel } from '../engine/layout-adapter';
import type { LoadProgress } from '../engine/types';

// The app root, where public/ is served: a built worker is assets/ocr.worker-*.js (its parent); on
// the dev server (`npm start`) the worker is /src/worker/ocr.worker.ts and public/ is served at /.
const base = import.meta.env.DEV ? new URL('/', self.location.href) : new URL('../', self.location.href);
ort.env.wasm.wasmPaths = new URL('vendor/ort/', base).href;
ort.env.wasm.numThreads = self.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;

let engine: OcrEngine | null = null;
let info: Promise<EngineInfo> | null = null;
const signal = { aborted: false };

async function load(onProgress?: (p: LoadProgress) => void): Promise<EngineInfo> {
  try {
    engine = await OcrEngine.load(browserFetcher(new URL('models/', base).href), {
      ort: ort as unknown as OrtModuleLike,
      ortSessionOptions: { executionProviders: ['wasm'] },
      prefer: 'webgpu',
      makeLayout: makeLayoutModel,
      onProgress,
    });
    const kind = engine.backend === 'cpu' ? 'cpu' : 'webgpu';
    return {
      kind,
      adapter: kind === 'cpu'
        ? ((self.navigator as Navigator & { gpu?: GPU }).gpu ? (engine.backendNote ?? 'no usable WebGPU adapter') : 'WebGPU unavailable')
        : engine.backend,
      model: engine.index.recognizer,
      layout: engine.layout.name,
      metrics: (engine.manifest.metrics as Record<string, unknown>) ?? undefined,
    };
  } catch (e) {
    engine = null;
    return { kind: 'cpu', adapter: 'not loaded', model: null, layout: null, error: (e as Error).message ?? String(e) };
  }
}

function pageImage(bitmap: ImageBitmap) {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('OffscreenCanvas 2d context unavailable');
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  return fromImageData(ctx.getImageData(0, 0, canvas.width, canvas.height));
}

let inkDevice: Promise<GPUDevice | null> | null = null;
function getInkDevice(): Promise<GPUDevice | null> {
  inkDevice ??= (async () => {
    const gpu = (self.navigator as Navigator & { gpu?: GPU }).gpu;
    const adapter = gpu ? await gpu.requestAdapter().catch(() => null) : null;
    return adapter ? adapter.requestDevice().catch(() => null) : null;
  })();
  return inkDevice;
}

const api: OcrWorkerApi = {
  async analyzePage(pageIndex, bitmap) {
    const t0 = performance.now();
    const img = pageImage(bitmap);
    const px = new Uint32Array(img.data.buffer, img.data.byteOffset, img.width * img.height);
    const device = await getInkDevice();
    const contentBox = device ? await inkBBoxGpu(device, px, img.width, img.height) : inkBBoxCpu(px, img.width, img.height);
    return { pageIndex, width: img.width, height: img.height, contentBox, backend: device ? 'webgpu' : 'cpu', ms: performance.now() - t0 };
  },
  init(onProgress) {
    info ??= load(onProgress);
    return info;
  },
  async recognizePage(pageIndex, bitmap, settings, onEvent, detail, cancelFlag) {
    await api.init();
    if (!engine) {
      bitmap.close();
      throw new Error((await info)?.error ?? 'models not loaded');
    }
    signal.aborted = false;
    // the shared flag is seen mid-decode; the message-based flag only between tasks
    const cancelled = cancelFlag ? { get aborted() { return signal.aborted || Atomics.load(cancelFlag, 0) !== 0; } } : signal;
    const sharp: PageDetail | undefined = detail && { render: async (box, scale) => pageImage(await detail.render([box[0], box[1], box[2], box[3]], scale)) };
    return engine.recognizePage(pageImage(bitmap), pageIndex, settings, { onEvent, signal: cancelled, detail: sharp });
  },
  cancel() {
    signal.aborted = true;
  },
};

Comlink.expose(api);
