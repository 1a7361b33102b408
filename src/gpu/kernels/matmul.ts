// Launcher for shaders/matmul.wgsl: y[M, N] = x[M, K] · W[N, K]ᵀ (+ bias).
import code from '../../../shaders/matmul.wgsl?raw';
import { GpuContext } from './context.ts';

const WG = 64;

export function matmul(
  ctx: GpuContext,
  a: { x: GPUBuffer; w: GPUBuffer; bias?: GPUBuffer | null; y: GPUBuffer },
  M: number,
  N: number,
  K: number,
): void {
  if (M > 65535) throw new Error(`matmul: ${M} rows exceed one dispatch`);
  const pipe = ctx.pipeline('matmul', code, { WG });
  ctx.dispatch(
    pipe,
    [{ u32: M }, { u32: N }, { u32: K }, { u32: a.bias ? 1 : 0 }],
    [a.x, a.w, a.bias ?? ctx.dummy(), a.y],
    [Math.ceil(N / 4 / WG), M],
  );
}
