import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose } from '../testing/gpu-test.ts';
import { rope } from './rope.ts';
import { ropeRef, ropeTables } from '../../reference/rope.ts';
import { Rng } from '../../reference/rng.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('rope.wgsl vs CPU twin', () => {
  for (const [M, H, hd, P] of [[1, 1, 2, 1], [3, 2, 8, 40], [17, 3, 16, 65], [33, 1, 64, 1000]]) {
    it(`M${M} H${H} hd${hd} P${P} (scattered rows)`, async () => {
      const { ctx } = dev!;
      const rng = new Rng(M * 13 + hd);
      const D = H * hd;
      const tables = ropeTables(P, hd, 10000);
      const x = rng.floats(M * D);
      const pos = new Uint32Array(M).map(() => rng.int(0, P - 1));
      const rows = M + 5;
      const dstRow = new Uint32Array(M).map((_, r) => (r * 7) % rows); // distinct since gcd(7, rows) = 1 here
      const ref = new Float32Array(rows * D);
      ropeRef(x, pos, dstRow, tables, M, H, hd, ref);
      const y = ctx.storage(rows * D * 4);
      ctx.write(y, new Float32Array(rows * D));
      rope(ctx, { x: ctx.upload(x), pos: ctx.upload(pos), dstRow: ctx.upload(dstRow), cos: ctx.upload(tables.cos), sin: ctx.upload(tables.sin), y }, M, H, hd);
      expectClose('rope', await ctx.readF32(y, rows * D), ref, 1e-6, 1e-5);
    });
  }
});
