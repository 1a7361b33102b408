// Launcher for shaders/rope.wgsl: rotates x rows into y[dstRow[r]] using CPU-built tables.
import code from '../../../shaders/rope.wgsl?raw';
import { GpuContext } from './context.ts';

const WG = 256;

export function rope(
  ctx: GpuContext,
  a: { x: GPUBuffer; pos: GPUBuffer; dstRow: GPUBuffer; cos: GPUBuffer; sin: GPUBuffer; y: GPUBuffer },
  M: number,
  H: number,
  hd: number,
): void {
  if (hd % 2 !== 0) throw new Error(`rope: head_dim ${hd} must be even`);
  const pipe = ctx.pipeline('rope', code, { WG });
  ctx.dispatch(pipe, [{ u32: M }, { u32: H }, { u32: hd }, { u32: 0 }], [a.x, a.pos, a.dstRow, a.cos, a.sin, a.y],
    GpuContext.grid1d(Math.ceil((M * H * (hd / 2)) / WG)));
}
