// Launcher for shaders/rmsnorm.wgsl: one workgroup per row.
import code from '../../../shaders/rmsnorm.wgsl?raw';
import { GpuContext } from './context.ts';

export function rmsnorm(
  ctx: GpuContext,
  a: { x: GPUBuffer; w: GPUBuffer; y: GPUBuffer },
  M: number,
  D: number,
  eps: number,
): void {
  if (M > 65535) throw new Error(`rmsnorm: ${M} rows exceed one dispatch`);
  const pipe = ctx.pipeline('rmsnorm', code, { WG: 64 });
  ctx.dispatch(pipe, [{ u32: M }, { u32: D }, { f32: eps }, { u32: 0 }], [a.x, a.w, a.y], [M]);
}
