// Launcher for shaders/embedding.wgsl: token rows from `table`, negative ids from `extra`.
import code from '../../../shaders/embedding.wgsl?raw';
import { GpuContext } from './context.ts';

const WG = 256;

export function embedding(
  ctx: GpuContext,
  a: { ids: GPUBuffer; table: GPUBuffer; extra: GPUBuffer | null; out: GPUBuffer },
  M: number,
  D: number,
  V: number,
  T: number,
): void {
  const pipe = ctx.pipeline('embedding', code, { WG });
  ctx.dispatch(pipe, [{ u32: M }, { u32: D }, { u32: V }, { u32: T }], [a.ids, a.table, a.extra ?? ctx.dummy(), a.out],
    GpuContext.grid1d(Math.ceil((M * D) / WG)));
}
