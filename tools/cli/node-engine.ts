// Builds the OCR engine in Node: models from public/models on disk, onnxruntime-node for the
// vision encoder and layout detector, the WGSL decoder through the `webgpu` package when an
// adapter exists (SwiftShader here, the real GPU elsewhere), else the CPU reference decoder.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { OcrEngine, type AssetFetcher } from '../../src/engine/engine';
import { makeLayoutModel } from '../../src/engine/layout-adapter';
import type { OrtModuleLike } from '../../src/recognizer/vision';

export const MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public', 'models');

export function diskFetcher(root = MODELS_DIR): AssetFetcher {
  return {
    async fetch(path) {
      const p = join(root, path);
      if (!existsSync(p)) throw new Error(`missing model file ${p}`);
      return new Uint8Array(readFileSync(p));
    },
  };
}

let keepGpu: unknown;

/** A WebGPU device from the `webgpu` package, or null (no package, no adapter). */
export async function nodeGpuDevice(): Promise<{ device: GPUDevice; description: string } | null> {
  const icd = '/usr/lib/chromium/vk_swiftshader_icd.json';
  if (!process.env.VK_ICD_FILENAMES && existsSync(icd)) process.env.VK_ICD_FILENAMES = icd;
  try {
    const mod = (await import('webgpu')) as unknown as { create: (o: string[]) => GPU; globals: object };
    Object.assign(globalThis, mod.globals);
    const gpu = mod.create([]);
    keepGpu = gpu; // the GPU object must outlive its devices
    const adapter = await gpu.requestAdapter();
    if (!adapter) return null;
    const device = await adapter.requestDevice({
      requiredLimits: { maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize },
    });
    const i = adapter.info;
    return { device, description: [i.vendor, i.architecture, i.description].filter(Boolean).join(' / ') };
  } catch {
    return null;
  }
}

export async function createNodeEngine(opts: { backend?: 'webgpu' | 'cpu'; threads?: number } = {}): Promise<OcrEngine> {
  const gpu = opts.backend === 'cpu' ? null : await nodeGpuDevice();
  if (opts.backend === 'webgpu' && !gpu) throw new Error('no WebGPU adapter in Node (install chromium + libvulkan1 for SwiftShader)');
  void keepGpu;
  return OcrEngine.load(diskFetcher(), {
    ort: ort as unknown as OrtModuleLike,
    ortSessionOptions: { intraOpNumThreads: opts.threads ?? 2 },
    prefer: gpu ? 'webgpu' : 'cpu',
    device: gpu?.device,
    deviceDescription: gpu?.description,
    makeLayout: makeLayoutModel,
  });
}
