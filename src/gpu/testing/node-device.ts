// A WebGPU device for Node tests, from the `webgpu` npm package (Dawn). On this GPU-less machine
// Dawn finds SwiftShader through Debian chromium's Vulkan ICD; on a machine with a GPU it uses it.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
// The GPU object must stay referenced: if it is garbage-collected Dawn tears the instance down
// under live devices and the process crashes.
let gpuInstance: GPU | undefined;
let cached: Promise<{ device: GPUDevice; adapterInfo: string } | null> | undefined;

/** Returns a device, or null with a reason logged when no adapter exists. */
export function getNodeDevice(): Promise<{ device: GPUDevice; adapterInfo: string } | null> {
  cached ??= (async () => {
    if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
    const require = createRequire(import.meta.url);
    const { create, globals } = require('webgpu') as { create: (o: string[]) => GPU; globals: object };
    Object.assign(globalThis, globals);
    gpuInstance = create([]);
    const adapter = await gpuInstance.requestAdapter();
    if (!adapter) {
      console.warn('node-device: no WebGPU adapter (install chromium for SwiftShader, or run on a GPU machine)');
      return null;
    }
    const limits = adapter.limits;
    const device = await adapter.requestDevice({
      requiredLimits: {
        maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
        maxBufferSize: limits.maxBufferSize,
        maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
        maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
      },
    });
    const info = adapter.info;
    return { device, adapterInfo: `${info.vendor}/${info.architecture} ${info.description}`.trim() };
  })();
  return cached;
}

/** True when CI or the developer demands GPU tests (then a missing adapter is a failure, not a skip). */
export const gpuRequired = process.env.GOCR_REQUIRE_GPU === '1';
