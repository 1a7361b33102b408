import { describe, it } from 'vitest';
import { gpuOrSkip, expectClose, expectBitEqual } from '../testing/gpu-test.ts';
import { attention } from './attention.ts';
import { attentionRef } from '../../reference/attention.ts';
import { Rng } from '../../reference/rng.ts';
import type { GpuContext } from './context.ts';

const dev = await gpuOrSkip();

// Row masks of the three modes as (rowSeq, rowKv) for a window of L rows at `start`:
// causal (prefill / verify): kv = start + i + 1; draft: row 0 causal, mask rows kv = start + L.
function windowRows(seq: number, start: number, L: number, mode: 'causal' | 'draft'): [number, number][] {
  return Array.from({ length: L }, (_, i) => [seq, mode === 'causal' || i === 0 ? start + i + 1 : start + L]);
}

async function run(ctx: GpuContext, q: Float32Array, kc: Float32Array, vc: Float32Array, rows: [number, number][], H: number, hd: number, P: number) {
  const M = rows.length;
  const out = ctx.storage(M * H * hd * 4);
  attention(ctx, {
    q: ctx.upload(q), kc: ctx.upload(kc), vc: ctx.upload(vc),
    rowSeq: ctx.upload(new Uint32Array(rows.map((r) => r[0]))), rowKv: ctx.upload(new Uint32Array(rows.map((r) => r[1]))),
    scores: ctx.storage(M * H * P * 4), out,
  }, M, H, hd, P);
  return ctx.readF32(out, M * H * hd);
}

describe.skipIf(!dev)('attention.wgsl vs CPU twin', () => {
  const cases: { name: string; H: number; hd: number; P: number; nSeq: number; windows: [number, number, number, 'causal' | 'draft'][] }[] = [
    { name: 'prefill 1 seq', H: 1, hd: 4, P: 17, nSeq: 1, windows: [[0, 0, 17, 'causal']] },
    { name: 'prefill 2 seqs odd', H: 2, hd: 8, P: 33, nSeq: 2, windows: [[0, 0, 33, 'causal'], [1, 0, 5, 'causal']] },
    { name: 'draft window batch', H: 3, hd: 16, P: 65, nSeq: 3, windows: [[0, 20, 9, 'draft'], [1, 3, 9, 'draft'], [2, 50, 9, 'draft']] },
    { name: 'verify window batch', H: 2, hd: 64, P: 130, nSeq: 2, windows: [[0, 61, 33, 'causal'], [1, 97, 33, 'causal']] },
    { name: 'single AR rows', H: 4, hd: 8, P: 70, nSeq: 2, windows: [[0, 68, 1, 'causal'], [1, 0, 1, 'causal']] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { ctx } = dev!;
      const rng = new Rng(c.P * 3 + c.hd);
      const D = c.H * c.hd;
      const kc = rng.floats(c.nSeq * c.P * D), vc = rng.floats(c.nSeq * c.P * D);
      const rows = c.windows.flatMap(([s, start, L, mode]) => windowRows(s, start, L, mode));
      const q = rng.floats(rows.length * D, 2);
      const got = await run(ctx, q, kc, vc, rows, c.H, c.hd, c.P);
      const ref = attentionRef(q, kc, vc, rows.map((r) => r[0]), rows.map((r) => r[1]), rows.length, c.H, c.hd, c.P);
      expectClose(c.name, got, ref, 1e-5, 1e-4);
    });
  }

  it('a verify row is bit-identical to the same row run alone (AR step)', async () => {
    const { ctx } = dev!;
    const rng = new Rng(99);
    const H = 2, hd = 16, P = 80, D = H * hd;
    const kc = rng.floats(2 * P * D), vc = rng.floats(2 * P * D);
    const rows = [...windowRows(1, 40, 33, 'causal'), ...windowRows(0, 10, 5, 'causal')];
    const q = rng.floats(rows.length * D);
    const all = await run(ctx, q, kc, vc, rows, H, hd, P);
    for (const r of [0, 7, 32, 35]) {
      const one = await run(ctx, q.slice(r * D, r * D + D), kc, vc, [rows[r]], H, hd, P);
      expectBitEqual(`row ${r}`, one, all.slice(r * D, r * D + D));
    }
  });
});
