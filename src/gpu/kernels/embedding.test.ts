import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { embedding } from './embedding.ts';
import { embeddingRef } from '../../reference/embedding.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('embedding.wgsl vs CPU twin', () => {
  for (const [M, D, V, T] of [[1, 1, 3, 1], [3, 17, 5, 2], [17, 33, 11, 0], [65, 40, 9, 7]]) {
    it(`M${M} D${D} V${V} T${T}`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(M + D * 31);
      const table = rng.floats(V * D), extra = rng.floats(Math.max(T, 1) * D);
      const ids = new Int32Array(M).map(() => (T > 0 && rng.next() < 0.4 ? -rng.int(1, T) : rng.int(0, V - 1)));
      const out = ctx.storage(M * D * 4);
      embedding(ctx, { ids: ctx.upload(ids), table: ctx.upload(table), extra: ctx.upload(extra), out }, M, D, V, T);
      expectClose('embedding', await ctx.readF32(out, M * D), embeddingRef(ids, table, extra, D), 0, 0);
    });
  }
});
