// Launcher for shaders/matmul.wgsl: y[M, N] = x[M, K] · W[N, K]ᵀ (+ bias).
import code from '../../../shaders/matmul.wgsl?raw';
import { GpuContext } from './context.ts';

const TILE = 16;

export function matmul(
  ctx: GpuContext,
  a: { x: GPUBuffer; w: GPUBuffer; bias?: GPUBuffer | null; y: GPUBuffer },
  M: number,
  N: number,
  K: number,
): void {
  const pipe = ctx.pipeline('matmul', code, { TILE });
  ctx.dispatch(
    pipe,
    [{ u32: M }, { u32: N }, { u32: K }, { u32: a.bias ? 1 : 0 }],
    [a.x, a.w, a.bias ?? ctx.dummy(), a.y],
    [Math.ceil(N / TILE), Math.ceil(M / TILE)],
  );
}
