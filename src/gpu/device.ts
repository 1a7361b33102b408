// Runtime WebGPU device helper, shared by the browser worker and Node tests.
// It asks for the largest buffer limits the adapter allows (weights and KV caches are
// single buffers) and enables `shader-f16` when present (kernels still run in f32).

export interface GpuDeviceInfo {
  device: GPUDevice;
  /** Human-readable adapter description, e.g. "google/swiftshader (Vulkan)". */
  description: string;
  hasF16: boolean;
  /** A CPU rasterizer (SwiftShader, lavapipe, llvmpipe): correct, but slower than the CPU decoder. */
  isSoftware: boolean;
}

export interface RequestDeviceOptions {
  /** A GPU entry point; defaults to `navigator.gpu`. */
  gpu?: GPU;
  powerPreference?: GPUPowerPreference;
}

/** Returns a device or null when WebGPU (or any adapter) is unavailable. Never throws for absence. */
export async function requestGpuDevice(opts: RequestDeviceOptions = {}): Promise<GpuDeviceInfo | null> {
  const gpu = opts.gpu ?? (typeof navigator !== 'undefined' ? (navigator as Navigator).gpu : undefined);
  if (!gpu) return null;
  const adapter = await gpu.requestAdapter({ powerPreference: opts.powerPreference ?? 'high-performance' });
  if (!adapter) return null;
  const hasF16 = adapter.features.has('shader-f16');
  const device = await adapter.requestDevice({
    requiredFeatures: hasF16 ? ['shader-f16'] : [],
    requiredLimits: {
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxBufferSize: adapter.limits.maxBufferSize,
      maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
    },
  });
  return { device, description: describeAdapter(adapter.info), hasF16, isSoftware: isSoftwareAdapter(adapter.info) };
}

export function isSoftwareAdapter(info: GPUAdapterInfo | undefined): boolean {
  if (!info) return false;
  if ((info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter) return true;
  return /swiftshader|lavapipe|llvmpipe|software/i.test(`${info.vendor} ${info.architecture} ${info.device} ${info.description}`);
}

export function describeAdapter(info: GPUAdapterInfo | undefined): string {
  if (!info) return 'webgpu';
  const parts = [info.vendor, info.architecture].filter((s) => s && s.length > 0).join('/');
  const extra = info.description && info.description.length > 0 ? ` (${info.description})` : '';
  return `webgpu ${parts || 'adapter'}${extra}`;
}
