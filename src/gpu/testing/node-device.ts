// Node test harness: a WebGPU device from the `webgpu` package (Dawn) on SwiftShader.
// Tests call `getTestDevice()`; null means no adapter exists and the caller must skip
// with `NO_GPU_MESSAGE`. Dawn dlopens `libvulkan.so.1` at start-up: Debian's Chromium
// ships one in /usr/lib/chromium, so the test runner must start Node with
// LD_LIBRARY_PATH=/usr/lib/chromium (vitest.config.ts) or have `libvulkan1` installed.
import { existsSync } from 'node:fs';
import { GpuContext } from '../kernels/context.ts';
import { describeAdapter } from '../device.ts';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export const NO_GPU_MESSAGE =
  'SKIPPED: no WebGPU adapter. Needs the `webgpu` npm package, libvulkan.so.1 ' +
  '(apt-get install libvulkan1, or LD_LIBRARY_PATH=/usr/lib/chromium) and a Vulkan ICD ' +
  `(${SWIFTSHADER_ICD} from Debian chromium).`;

/** True when CI or the developer demands GPU tests (then a missing adapter is a failure, not a skip). */
export const gpuRequired = process.env.GOCR_REQUIRE_GPU === '1';

export interface TestDevice {
  device: GPUDevice;
  ctx: GpuContext;
  description: string;
  /** The Dawn GPU object, for code that requests its own adapter (createDecoder). */
  gpu: GPU;
}

let cached: Promise<TestDevice | null> | null = null;

export function getTestDevice(): Promise<TestDevice | null> {
  if (!cached) cached = open();
  return cached;
}

async function open(): Promise<TestDevice | null> {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  let mod: { create: (o: string[]) => GPU; globals: object };
  try {
    mod = (await import('webgpu')) as unknown as typeof mod;
  } catch {
    return null;
  }
  Object.assign(globalThis, mod.globals);
  const gpu = mod.create([]);
  const adapter = await gpu.requestAdapter();
  if (!adapter) return null;
  const device = await adapter.requestDevice({
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
    },
  });
  // Keep a reference so the GPU object is not collected while the device lives.
  (globalThis as Record<string, unknown>).__gocrTestGpu = gpu;
  return { device, ctx: new GpuContext(device), description: describeAdapter(adapter.info), gpu };
}

/** Older name kept for callers written against the first harness. */
export async function getNodeDevice(): Promise<{ device: GPUDevice; adapterInfo: string } | null> {
  const d = await getTestDevice();
  return d ? { device: d.device, adapterInfo: d.description } : null;
}
