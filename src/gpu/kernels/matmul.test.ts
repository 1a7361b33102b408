import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose, expectBitEqual } from '../testing/gpu-test.ts';
import { matmul } from './matmul.ts';
import { matmulRef } from '../../reference/matmul.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('matmul.wgsl vs CPU twin', () => {
  const shapes: [number, number, number][] = [[1, 1, 1], [1, 33, 17], [3, 17, 33], [17, 65, 40], [33, 7, 65], [65, 48, 16]];
  for (const [M, N, K] of shapes) {
    for (const withBias of [false, true]) {
      it(`M${M} N${N} K${K} bias=${withBias}`, async () => {
        const { ctx } = dev!;
        const rng = new Rng(M * 1000 + N * 10 + K);
        const x = rng.floats(M * K), w = rng.floats(N * K, 0.3), b = rng.floats(N);
        const y = ctx.storage(M * N * 4);
        matmul(ctx, { x: ctx.upload(x), w: ctx.upload(w), bias: withBias ? ctx.upload(b) : null, y }, M, N, K);
        const got = await ctx.readF32(y, M * N);
        expectClose(`matmul ${M}x${N}x${K}`, got, matmulRef(x, w, withBias ? b : null, M, N, K), 1e-5, 1e-4);
      });
    }
  }

  it('a row is bit-identical whatever M is', async () => {
    const { ctx } = dev!;
    const rng = new Rng(7);
    const M = 19, N = 37, K = 53;
    const x = rng.floats(M * K), w = rng.floats(N * K);
    const wb = ctx.upload(w);
    const yAll = ctx.storage(M * N * 4);
    matmul(ctx, { x: ctx.upload(x), w: wb, y: yAll }, M, N, K);
    const all = await ctx.readF32(yAll, M * N);
    for (const r of [0, 5, 18]) {
      const y1 = ctx.storage(N * 4);
      matmul(ctx, { x: ctx.upload(x.slice(r * K, r * K + K)), w: wb, y: y1 }, 1, N, K);
      expectBitEqual(`row ${r}`, await ctx.readF32(y1, N), all.slice(r * N, r * N + N));
    }
  });
});
