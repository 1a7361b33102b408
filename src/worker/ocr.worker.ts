// The OCR worker: everything heavy runs here, off the page thread. Exposed with comlink.
import * as Comlink from 'comlink';
import type { BackendInfo, OcrWorkerApi, PageAnalysis } from './api';
import { inkBBoxCpu } from '../reference/inkbbox';
import { inkBBoxGpu } from '../gpu/kernels/inkbbox';

let device: GPUDevice | null = null;
let backend: BackendInfo | null = null;

async function init(): Promise<BackendInfo> {
  if (backend) return backend;
  const gpu = (self.navigator as Navigator & { gpu?: GPU }).gpu;
  const adapter = gpu ? await gpu.requestAdapter().catch(() => null) : null;
  if (adapter) {
    try {
      device = await adapter.requestDevice();
      device.lost.then(() => {
        device = null;
        backend = { kind: 'cpu', adapter: 'WebGPU device lost — CPU fallback' };
      });
      const info = adapter.info;
      backend = { kind: 'webgpu', adapter: [info.vendor, info.architecture, info.description].filter(Boolean).join(' / ') || 'unknown adapter' };
      return backend;
    } catch {
      device = null;
    }
  }
  backend = { kind: 'cpu', adapter: gpu ? 'no WebGPU adapter — CPU fallback' : 'WebGPU unavailable — CPU fallback' };
  return backend;
}

function pixelsOf(bitmap: ImageBitmap): Uint32Array {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('OffscreenCanvas 2d context unavailable');
  ctx.drawImage(bitmap, 0, 0);
  const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  return new Uint32Array(data.buffer, data.byteOffset, data.byteLength / 4);
}

const api: OcrWorkerApi = {
  init,
  async analyzePage(pageIndex, bitmap): Promise<PageAnalysis> {
    const info = await init();
    const t0 = performance.now();
    const { width, height } = bitmap;
    const pixels = pixelsOf(bitmap);
    bitmap.close();
    const contentBox = device ? await inkBBoxGpu(device, pixels, width, height) : inkBBoxCpu(pixels, width, height);
    return { pageIndex, width, height, contentBox, backend: device ? 'webgpu' : info.kind === 'webgpu' ? 'cpu' : info.kind, ms: performance.now() - t0 };
  },
};

Comlink.expose(api);
