import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { swiglu } from './swiglu.ts';
import { swigluRef } from '../../reference/swiglu.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('swiglu.wgsl vs CPU twin', () => {
  for (const n of [1, 17, 33 * 65, 70001]) {
    it(`n${n}`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(n);
      const g = rng.floats(n, 4), u = rng.floats(n);
      const h = ctx.storage(n * 4);
      swiglu(ctx, { gate: ctx.upload(g), up: ctx.upload(u), h }, n);
      expectClose('swiglu', await ctx.readF32(h, n), swigluRef(g, u), 1e-6, 1e-5);
    });
  }
});
