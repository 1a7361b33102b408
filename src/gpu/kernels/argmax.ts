// Launcher for shaders/argmax.wgsl: per-row argmax ids (u32), top-2 margins and argmax
// softmax probabilities (f32).
import code from '../../../shaders/argmax.wgsl?raw';
import { GpuContext } from './context.ts';

export function argmax(ctx: GpuContext, a: { logits: GPUBuffer; ids: GPUBuffer; margin: GPUBuffer; conf: GPUBuffer }, M: number, V: number): void {
  if (M > 65535) throw new Error(`argmax: ${M} rows exceed one dispatch`);
  const pipe = ctx.pipeline('argmax', code, { WG: 64 });
  ctx.dispatch(pipe, [{ u32: M }, { u32: V }, { u32: 0 }, { u32: 0 }], [a.logits, a.ids, a.margin, a.conf], [M]);
}
