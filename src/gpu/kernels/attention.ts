// Launcher for shaders/attention.wgsl. Legend: M rows, H heads, hd head dim, P cache slots
// per sequence. rowSeq[r] / rowKv[r] pick the sequence and how many cache slots row r sees.
// `scores` is scratch of at least M·H·P floats.
import code from '../../../shaders/attention.wgsl?raw';
import { GpuContext } from './context.ts';

export function attention(
  ctx: GpuContext,
  a: { q: GPUBuffer; kc: GPUBuffer; vc: GPUBuffer; rowSeq: GPUBuffer; rowKv: GPUBuffer; scores: GPUBuffer; out: GPUBuffer },
  M: number,
  H: number,
  hd: number,
  P: number,
): void {
  if (M > 65535) throw new Error(`attention: ${M} rows exceed one dispatch`);
  const pipe = ctx.pipeline('attention', code, { WG: 64 });
  ctx.dispatch(
    pipe,
    [{ u32: M }, { u32: H }, { u32: hd }, { u32: P }, { f32: 1 / Math.sqrt(hd) }, { u32: 0 }, { u32: 0 }, { u32: 0 }],
    [a.q, a.kc, a.vc, a.rowSeq, a.rowKv, a.scores, a.out],
    [H, M],
  );
}
