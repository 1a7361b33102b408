// Launcher for shaders/swiglu.wgsl: h = silu(gate) · up over n elements.
import code from '../../../shaders/swiglu.wgsl?raw';
import { GpuContext } from './context.ts';

const WG = 256;

export function swiglu(ctx: GpuContext, a: { gate: GPUBuffer; up: GPUBuffer; h: GPUBuffer }, n: number): void {
  const pipe = ctx.pipeline('swiglu', code, { WG });
  ctx.dispatch(pipe, [{ u32: n }, { u32: 0 }, { u32: 0 }, { u32: 0 }], [a.gate, a.up, a.h], GpuContext.grid1d(Math.ceil(n / WG)));
}
