// Shared plumbing for the kernel launchers: a pipeline cache keyed by (kernel, overrides),
// one compute pass that records many dispatches, per-dispatch uniform buffers, uploads and
// read-backs. WebGPU orders dispatches of one pass and makes each one's storage writes
// visible to the next, so a whole forward pass is one pass and one submit.

export type Uniform = { u32: number } | { f32: number } | { i32: number };

const MAX_GROUPS = 65535;

export class GpuContext {
  private pipelines = new Map<string, GPUComputePipeline>();
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  private transient: GPUBuffer[] = [];
  private dummyBuffer: GPUBuffer | null = null;

  constructor(readonly device: GPUDevice) {}

  /** Compiles (once) a compute pipeline; `constants` fill the shader's `override`s. */
  pipeline(name: string, code: string, constants: Record<string, number> = {}): GPUComputePipeline {
    const key = `${name}|${JSON.stringify(constants)}`;
    let p = this.pipelines.get(key);
    if (!p) {
      const module = this.device.createShaderModule({ code, label: name });
      p = this.device.createComputePipeline({
        label: name,
        layout: 'auto',
        compute: { module, entryPoint: 'main', constants },
      });
      this.pipelines.set(key, p);
    }
    return p;
  }

  /** A 4-byte storage buffer for optional bindings that a kernel does not read this time. */
  dummy(): GPUBuffer {
    if (!this.dummyBuffer) this.dummyBuffer = this.storage(16);
    return this.dummyBuffer;
  }

  /** Records one dispatch: binding 0 is the uniform struct, bindings 1.. are `buffers`. */
  dispatch(pipeline: GPUComputePipeline, uniforms: Uniform[], buffers: GPUBuffer[], groups: [number, number?, number?]): void {
    const u = this.uniformBuffer(uniforms);
    const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: u } }];
    buffers.forEach((b, i) => entries.push({ binding: i + 1, resource: { buffer: b } }));
    const bindGroup = this.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
    if (!this.pass) {
      this.encoder = this.device.createCommandEncoder();
      this.pass = this.encoder.beginComputePass();
    }
    this.pass.setPipeline(pipeline);
    this.pass.setBindGroup(0, bindGroup);
    const [x, y = 1, z = 1] = groups;
    if (x > MAX_GROUPS || y > MAX_GROUPS || z > MAX_GROUPS) throw new Error(`dispatch too large: ${x}x${y}x${z}`);
    if (x > 0 && y > 0 && z > 0) this.pass.dispatchWorkgroups(x, y, z);
  }

  /** Splits a 1-D count of workgroups into (x, y) under the per-dimension limit. */
  static grid1d(groups: number): [number, number] {
    if (groups <= MAX_GROUPS) return [groups, 1];
    const y = Math.ceil(groups / MAX_GROUPS);
    return [Math.ceil(groups / y), y];
  }

  /** Ends the pass and submits everything recorded so far. */
  flush(): void {
    if (this.pass && this.encoder) {
      this.pass.end();
      this.device.queue.submit([this.encoder.finish()]);
    }
    this.pass = null;
    this.encoder = null;
    for (const b of this.transient) b.destroy();
    this.transient = [];
  }

  storage(bytes: number, label?: string): GPUBuffer {
    return this.device.createBuffer({
      label,
      size: Math.max(16, align(bytes, 4)),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
  }

  upload(data: Float32Array | Int32Array | Uint32Array, label?: string): GPUBuffer {
    const buf = this.storage(data.byteLength, label);
    this.write(buf, data);
    return buf;
  }

  write(buf: GPUBuffer, data: Float32Array | Int32Array | Uint32Array, offsetBytes = 0): void {
    if (data.byteLength === 0) return;
    this.device.queue.writeBuffer(buf, offsetBytes, data.buffer, data.byteOffset, data.byteLength);
  }

  /** Flushes pending work, then copies `bytes` from `buf` back to the CPU. */
  async read(buf: GPUBuffer, bytes: number, offsetBytes = 0): Promise<ArrayBuffer> {
    this.flush();
    const size = align(Math.max(bytes, 4), 4);
    const staging = this.device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(buf, offsetBytes, staging, 0, size);
    this.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const out = staging.getMappedRange().slice(0, bytes);
    staging.unmap();
    staging.destroy();
    return out;
  }

  /** Several read-backs with one submit and one map (fewer round trips per decode step). */
  async readMany(parts: { buf: GPUBuffer; bytes: number }[]): Promise<ArrayBuffer[]> {
    this.flush();
    const sizes = parts.map((p) => align(Math.max(p.bytes, 4), 4));
    const total = sizes.reduce((a, b) => a + b, 0);
    const staging = this.device.createBuffer({ size: total, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = this.device.createCommandEncoder();
    let off = 0;
    parts.forEach((p, i) => {
      enc.copyBufferToBuffer(p.buf, 0, staging, off, sizes[i]);
      off += sizes[i];
    });
    this.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const range = staging.getMappedRange();
    off = 0;
    const out = parts.map((p, i) => {
      const r = range.slice(off, off + p.bytes);
      off += sizes[i];
      return r;
    });
    staging.unmap();
    staging.destroy();
    return out;
  }

  async readF32(buf: GPUBuffer, count: number, offset = 0): Promise<Float32Array> {
    return new Float32Array(await this.read(buf, count * 4, offset * 4));
  }

  async readU32(buf: GPUBuffer, count: number): Promise<Uint32Array> {
    return new Uint32Array(await this.read(buf, count * 4));
  }

  private uniformBuffer(values: Uniform[]): GPUBuffer {
    const bytes = align(Math.max(values.length, 4) * 4, 16);
    const data = new DataView(new ArrayBuffer(bytes));
    values.forEach((v, i) => {
      if ('u32' in v) data.setUint32(i * 4, v.u32, true);
      else if ('i32' in v) data.setInt32(i * 4, v.i32, true);
      else data.setFloat32(i * 4, v.f32, true);
    });
    const buf = this.device.createBuffer({ size: bytes, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.device.queue.writeBuffer(buf, 0, data.buffer);
    this.transient.push(buf);
    return buf;
  }
}

export function align(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}
