// Launcher for shaders/residual.wgsl: x += y over n elements.
import code from '../../../shaders/residual.wgsl?raw';
import { GpuContext } from './context.ts';

const WG = 256;

export function residual(ctx: GpuContext, a: { x: GPUBuffer; y: GPUBuffer }, n: number): void {
  const pipe = ctx.pipeline('residual', code, { WG });
  ctx.dispatch(pipe, [{ u32: n }, { u32: 0 }, { u32: 0 }, { u32: 0 }], [a.x, a.y], GpuContext.grid1d(Math.ceil(n / WG)));
}
