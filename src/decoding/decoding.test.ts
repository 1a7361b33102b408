// Self-spec ≡ greedy AR on the CPU reference decoder (tiny random model) and on a scripted
// backend with known acceptance, plus trace invariants for all three decoding loops.
import { describe, expect, it } from 'vitest';
import { CpuDecoder } from '../reference/decoder.ts';
import { Rng } from '../reference/rng.ts';
import { tinyConfig, tinyPrefix, tinyWeights } from '../reference/tiny-model.ts';
import { decodeAR } from './ar.ts';
import { decodeDiffusion } from './diffusion.ts';
import { ScriptedBackend } from './scripted-backend.ts';
import { decodeSelfSpec } from './selfspec.ts';
import type { DecodeResult } from './trace.ts';

function checkTrace(r: DecodeResult, method: string): void {
  const t = r.trace;
  expect(t.method).toBe(method);
  const committed = t.rounds.flatMap((x) => x.committed);
  const withEos = r.stop === 'eos' ? 1 : 0;
  expect(committed.length).toBe(r.tokens.length + withEos);
  expect(t.tokenRound.length).toBe(committed.length);
  if (method !== 'diffusion') expect(committed.slice(0, r.tokens.length)).toEqual(r.tokens);
  if (method !== 'diffusion') for (let i = 1; i < t.tokenRound.length; i++) expect(t.tokenRound[i]).toBeGreaterThanOrEqual(t.tokenRound[i - 1]);
  const f = t.forwards;
  const n = f.ar + f.draft + f.verify + f.cacheWrite;
  expect(t.tpf).toBeCloseTo(n ? committed.length / n : 0, 12);
  if (method === 'ar') expect(f.ar).toBe(committed.length);
  if (method === 'selfspec') {
    expect(f.ar + f.cacheWrite).toBe(0);
    expect(f.verify).toBeLessThanOrEqual(f.draft);
    t.rounds.forEach((x, i) => {
      const last = i === t.rounds.length - 1;
      if (x.rejected) expect(x.rejected.draft).not.toBe(x.rejected.replacement);
      if (!last) {
        expect(x.committed.length).toBe(x.accepted + 2);
        expect(x.committed).toEqual([x.a0, ...x.drafted.slice(0, x.accepted), x.rejected ? x.rejected.replacement : x.committed[x.committed.length - 1]]);
      }
    });
  }
}

describe('self-spec ≡ AR on the CPU reference decoder (tiny random model)', () => {
  const c = tinyConfig();
  for (const [seed, scale] of [[1, 1], [2, 3], [3, 0.5]]) {
    it(`seed ${seed}, batch of 3, B ∈ {1, 3, 8, 32}`, async () => {
      const w = tinyWeights(c, seed, scale);
      const rng = new Rng(seed * 11);
      const prefixes = [tinyPrefix(c, rng, [5]), tinyPrefix(c, rng, [3, 4, 2], 'table'), tinyPrefix(c, rng, [7, 1], 'formula')];
      const dec = new CpuDecoder(w, c);
      const ar = await decodeAR(dec, prefixes, { maxNewTokens: 40 });
      ar.forEach((r) => checkTrace(r, 'ar'));
      for (const B of [1, 3, 8, 32]) {
        const ss = await decodeSelfSpec(dec, prefixes, { maxNewTokens: 40, blockSize: B });
        ss.forEach((r, i) => {
          expect(r.tokens, `seq ${i} B ${B}`).toEqual(ar[i].tokens);
          expect(r.stop).toBe(ar[i].stop);
          checkTrace(r, 'selfspec');
        });
      }
      // Reusing the prefill (cache cut back to the prefixes) gives the same output.
      const again = await decodeSelfSpec(dec, prefixes, { maxNewTokens: 40, blockSize: 8, reusePrefill: true });
      again.forEach((r, i) => expect(r.tokens).toEqual(ar[i].tokens));
      // A sequence alone decodes like the same sequence inside the batch.
      const alone = await decodeSelfSpec(dec, [prefixes[1]], { maxNewTokens: 40, blockSize: 8 });
      expect(alone[0].tokens).toEqual(ar[1].tokens);
    });
  }

  it('hits max_positions the same way as AR', async () => {
    const c2 = tinyConfig({ max_positions: 24, eos_id: 36 });
    const w = tinyWeights(c2, 5, 2);
    const p = [tinyPrefix(c2, new Rng(5), [4, 3])];
    const dec = new CpuDecoder(w, c2);
    const ar = await decodeAR(dec, p, { maxNewTokens: 100 });
    const ss = await decodeSelfSpec(dec, p, { maxNewTokens: 100, blockSize: 8 });
    expect(ss[0].tokens).toEqual(ar[0].tokens);
    expect(ss[0].stop).toBe(ar[0].stop);
  });
});

describe('self-spec on a scripted backend', () => {
  const c = tinyConfig({ vocab_size: 60 });
  const rng = new Rng(3);
  const target = (n: number) => [...Array.from({ length: n }, () => rng.int(9, 59)), c.eos_id];
  const targets = [target(50), target(7), target(120)];
  const prefixes = [tinyPrefix(c, rng, [2]), tinyPrefix(c, rng, [3, 2]), tinyPrefix(c, rng, [1])];

  it('perfect drafts: every round commits B+2 tokens (bonus), TPF = (B+2)/2', async () => {
    const be = new ScriptedBackend(c, targets, 0);
    const B = 8;
    const res = await decodeSelfSpec(be, prefixes, { maxNewTokens: 200, blockSize: B });
    res.forEach((r, i) => {
      expect(r.tokens).toEqual(targets[i].slice(0, -1));
      expect(r.stop).toBe('eos');
      checkTrace(r, 'selfspec');
      r.trace.rounds.slice(0, -1).forEach((x) => {
        expect(x.accepted).toBe(B);
        expect(x.rejected).toBeNull();
      });
    });
    expect(res[2].trace.tpf).toBeGreaterThan(4);
  });

  it('noisy drafts: output still equals AR; rejections are recorded', async () => {
    for (const err of [0.05, 0.3, 1]) {
      const be = new ScriptedBackend(c, targets, err, 9);
      const ar = await decodeAR(be, prefixes, { maxNewTokens: 200 });
      const ss = await decodeSelfSpec(be, prefixes, { maxNewTokens: 200, blockSize: 32 });
      ss.forEach((r, i) => {
        expect(r.tokens).toEqual(ar[i].tokens);
        expect(r.tokens).toEqual(targets[i].slice(0, -1));
        checkTrace(r, 'selfspec');
      });
      if (err === 1) expect(ss[2].trace.rounds.every((x) => x.accepted === 0)).toBe(true);
      else expect(ss[2].trace.rounds.some((x) => x.rejected !== null)).toBe(true);
    }
  });

  it('max_new_tokens cuts inside a round', async () => {
    const be = new ScriptedBackend(c, targets, 0);
    const res = await decodeSelfSpec(be, prefixes, { maxNewTokens: 13, blockSize: 8 });
    expect(res[0].tokens).toEqual(targets[0].slice(0, 13));
    expect(res[0].stop).toBe('max_new_tokens');
    expect(res[1].stop).toBe('eos');
    res.forEach((r) => checkTrace(r, 'selfspec'));
  });
});

describe('direct block diffusion', () => {
  const c = tinyConfig({ vocab_size: 60 });
  const rng = new Rng(4);
  const targets = [[...Array.from({ length: 45 }, () => rng.int(9, 59)), c.eos_id]];
  const prefixes = [tinyPrefix(c, rng, [3])];

  it('perfect drafter + threshold 0 fills a block per step and reproduces the target', async () => {
    const be = new ScriptedBackend(c, targets, 0);
    const res = await decodeDiffusion(be, prefixes, { maxNewTokens: 200, blockSize: 8, threshold: 0 });
    expect(res[0].tokens).toEqual(targets[0].slice(0, -1));
    checkTrace(res[0], 'diffusion');
    const f = res[0].trace.forwards;
    expect(f.draft).toBe(Math.ceil(46 / 8));
    expect(f.cacheWrite).toBe(f.draft - 1);
  });

  it('threshold above 1 fills exactly one token per step', async () => {
    const be = new ScriptedBackend(c, targets, 0.2, 3);
    const res = await decodeDiffusion(be, prefixes, { maxNewTokens: 30, blockSize: 8, threshold: 1.1 });
    checkTrace(res[0], 'diffusion');
    expect(res[0].tokens.length).toBe(30);
    const f = res[0].trace.forwards;
    expect(f.draft).toBeGreaterThanOrEqual(30);
    res[0].trace.rounds.forEach((x, i) => expect(x.drafted.filter((t) => t >= 0).length).toBe((i % 8) + 1));
  });

  it('runs on the CPU decoder with a batch', async () => {
    const w = tinyWeights(c, 8, 2);
    const dec = new CpuDecoder(w, c);
    const r2 = new Rng(8);
    const ps = [tinyPrefix(c, r2, [4]), tinyPrefix(c, r2, [2, 2])];
    const res = await decodeDiffusion(dec, ps, { maxNewTokens: 20, blockSize: 4, threshold: 0.5 });
    res.forEach((r) => checkTrace(r, 'diffusion'));
    // The first token of a block comes from the causal row 0, so it matches AR's first token.
    const ar = await decodeAR(dec, ps, { maxNewTokens: 1 });
    res.forEach((r, i) => expect(r.tokens[0]).toBe(ar[i].tokens[0]));
  });
});

describe('self-spec with oracle drafts on the CPU decoder (long accepted runs)', () => {
  it('accepts whole blocks, stays identical to AR, and survives corrupted drafts', async () => {
    const { OracleDrafts } = await import('./oracle-drafts.ts');
    const c = tinyConfig({ eos_id: 36 });
    const dec = new CpuDecoder(tinyWeights(c, 21, 2), c);
    const rng = new Rng(21);
    const ps = [tinyPrefix(c, rng, [6, 2]), tinyPrefix(c, rng, [3])];
    const ar = await decodeAR(dec, ps, { maxNewTokens: 60 });
    const cont = ar.map((r) => r.tokens);
    const lens = ps.map((p) => p.ids.length);
    const perfect = await decodeSelfSpec(new OracleDrafts(dec, cont, lens), ps, { maxNewTokens: 60, blockSize: 8 });
    perfect.forEach((r, i) => {
      expect(r.tokens).toEqual(ar[i].tokens);
      checkTrace(r, 'selfspec');
      expect(r.trace.rounds.slice(0, -1).every((x) => x.accepted === 8)).toBe(true);
    });
    const noisy = await decodeSelfSpec(new OracleDrafts(dec, cont, lens, (s, n) => (n * 7 + s) % 5 === 0), ps, { maxNewTokens: 60, blockSize: 8 });
    noisy.forEach((r, i) => {
      expect(r.tokens).toEqual(ar[i].tokens);
      checkTrace(r, 'selfspec');
      expect(r.trace.rounds.some((x) => x.rejected !== null)).toBe(true);
    });
  });
});
