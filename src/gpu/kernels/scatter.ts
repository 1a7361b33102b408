// Launcher for shaders/scatter.wgsl: dst[dstRow[r]] = src[r].
import code from '../../../shaders/scatter.wgsl?raw';
import { GpuContext } from './context.ts';

const WG = 256;

export function scatter(ctx: GpuContext, a: { src: GPUBuffer; dstRow: GPUBuffer; dst: GPUBuffer }, M: number, D: number): void {
  const pipe = ctx.pipeline('scatter', code, { WG });
  ctx.dispatch(pipe, [{ u32: M }, { u32: D }, { u32: 0 }, { u32: 0 }], [a.src, a.dstRow, a.dst],
    GpuContext.grid1d(Math.ceil((M * D) / WG)));
}
