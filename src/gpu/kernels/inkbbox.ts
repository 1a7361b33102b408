// WebGPU launcher for shaders/inkbbox.wgsl (CPU twin: src/reference/inkbbox.ts).
import source from '../../../shaders/inkbbox.wgsl?raw';
import type { InkBox } from '../../reference/inkbbox';

const WG = 16;
const pipelines = new WeakMap<GPUDevice, GPUComputePipeline>();

function pipelineFor(device: GPUDevice): GPUComputePipeline {
  let p = pipelines.get(device);
  if (!p) {
    const module = device.createShaderModule({ label: 'inkbbox', code: source });
    p = device.createComputePipeline({
      label: 'inkbbox',
      layout: 'auto',
      compute: { module, entryPoint: 'main', constants: { WG_X: WG, WG_Y: WG } },
    });
    pipelines.set(device, p);
  }
  return p;
}

export async function inkBBoxGpu(
  device: GPUDevice,
  pixels: Uint32Array,
  width: number,
  height: number,
  threshold = 200,
): Promise<InkBox | null> {
  if (pixels.length < width * height) throw new Error(`inkbbox: ${pixels.length} pixels < ${width}×${height}`);
  if (width === 0 || height === 0) return null;
  const params = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(params, 0, new Uint32Array([width, height, threshold, 0]));
  const input = device.createBuffer({ size: width * height * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(input, 0, pixels.buffer, pixels.byteOffset, width * height * 4);
  const box = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(box, 0, new Uint32Array([0xffffffff, 0xffffffff, 0, 0]));
  const readback = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });

  const pipeline = pipelineFor(device);
  const bind = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: params } },
      { binding: 1, resource: { buffer: input } },
      { binding: 2, resource: { buffer: box } },
    ],
  });
  const enc = device.createCommandEncoder({ label: 'inkbbox' });
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bind);
  pass.dispatchWorkgroups(Math.ceil(width / WG), Math.ceil(height / WG));
  pass.end();
  enc.copyBufferToBuffer(box, 0, readback, 0, 16);
  device.queue.submit([enc.finish()]);
  await readback.mapAsync(GPUMapMode.READ);
  const [x0, y0, x1, y1] = new Uint32Array(readback.getMappedRange().slice(0));
  readback.unmap();
  for (const b of [params, input, box, readback]) b.destroy();
  return x0 === 0xffffffff ? null : { x0, y0, x1, y1 };
}
