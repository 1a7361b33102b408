import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { rmsnorm } from './rmsnorm.ts';
import { rmsnormRef } from '../../reference/rmsnorm.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('rmsnorm.wgsl vs CPU twin', () => {
  for (const [M, D] of [[1, 1], [1, 64], [3, 17], [17, 33], [33, 130], [65, 7]]) {
    it(`M${M} D${D}`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(M * 97 + D);
      const x = rng.floats(M * D, 2), w = rng.floats(D);
      const y = ctx.storage(M * D * 4);
      rmsnorm(ctx, { x: ctx.upload(x), w: ctx.upload(w), y }, M, D, 1e-6);
      expectClose('rmsnorm', await ctx.readF32(y, M * D), rmsnormRef(x, w, M, D, 1e-6), 1e-6, 1e-5);
    });
  }
});
