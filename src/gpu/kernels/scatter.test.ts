import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { scatter } from './scatter.ts';
import { scatterRef } from '../../reference/scatter.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('scatter.wgsl vs CPU twin', () => {
  for (const [M, D] of [[1, 1], [3, 17], [17, 33], [65, 12]]) {
    it(`M${M} D${D}`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(M + D);
      const rows = 2 * M + 1;
      const src = rng.floats(M * D);
      const dstRow = new Uint32Array(M).map((_, r) => 2 * r + (r % 2));
      const base = rng.floats(rows * D);
      const ref = base.slice();
      scatterRef(src, dstRow, M, D, ref);
      const dst = ctx.upload(base);
      scatter(ctx, { src: ctx.upload(src), dstRow: ctx.upload(dstRow), dst }, M, D);
      expectClose('scatter', await ctx.readF32(dst, rows * D), ref, 0, 0);
    });
  }
});
