import { describe, it, expect } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { argmax } from './argmax.ts';
import { argmaxRef } from '../../reference/argmax.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('argmax.wgsl vs CPU twin', () => {
  for (const [M, V] of [[1, 2], [3, 17], [17, 65], [33, 1001], [5, 3]]) {
    it(`M${M} V${V} (with planted ties)`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(M * 5 + V);
      const logits = rng.floats(M * V, 3);
      // Plant exact ties on some rows: the lowest index must win, margin 0.
      for (let r = 0; r < M; r += 2) {
        const a = rng.int(0, V - 1), b = rng.int(0, V - 1);
        logits[r * V + a] = 50;
        logits[r * V + b] = 50;
      }
      const ids = ctx.storage(M * 4), margin = ctx.storage(M * 4), conf = ctx.storage(M * 4);
      argmax(ctx, { logits: ctx.upload(logits), ids, margin, conf }, M, V);
      const ref = argmaxRef(logits, M, V);
      expect(Array.from(await ctx.readU32(ids, M))).toEqual(Array.from(ref.ids));
      expectClose('margin', await ctx.readF32(margin, M), ref.margin, 1e-6, 1e-6);
      expectClose('conf', await ctx.readF32(conf, M), ref.conf, 1e-6, 1e-5);
    });
  }
});
