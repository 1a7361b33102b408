import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { residual } from './residual.ts';
import { residualRef } from '../../reference/residual.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('residual.wgsl vs CPU twin', () => {
  for (const n of [1, 17, 65 * 33, 70001]) {
    it(`n${n}`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(n + 3);
      const x = rng.floats(n), y = rng.floats(n);
      const xb = ctx.upload(x);
      residual(ctx, { x: xb, y: ctx.upload(y) }, n);
      const ref = x.slice();
      residualRef(ref, y);
      expectClose('residual', await ctx.readF32(xb, n), ref, 0, 0);
    });
  }
});
