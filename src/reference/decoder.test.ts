// CPU reference decoder: checked against a naive full-sequence forward with an explicit
// attention mask (no cache), and for the row-independence that self-spec ≡ AR rests on.
import { describe, expect, it } from 'vitest';
import { CpuDecoder } from './decoder.ts';
import { Rng } from './rng.ts';
import { tinyConfig, tinyPrefix, tinyWeights } from './tiny-model.ts';
import { matmulRef } from './matmul.ts';
import { rmsnormRef } from './rmsnorm.ts';
import { ropeTables } from './rope.ts';
import { swigluRef } from './swiglu.ts';
import { validate } from './validate.ts';
import type { ModelConfig } from '../recognizer/config.ts';
import type { DecoderWeights, PrefixInput } from '../recognizer/model.ts';

/** Textbook forward over a whole sequence with mask[i][j] = row i may attend to j. */
function naiveLogits(c: ModelConfig, w: DecoderWeights, prefix: PrefixInput, tail: number[], mask: (i: number, j: number) => boolean): Float32Array {
  const d = c.d_model, H = c.n_heads, hd = c.head_dim, D = H * hd, F = c.ffn_dim;
  const ids = [...Array.from(prefix.ids.slice(0, -1)), ...tail];
  const N = ids.length;
  let x = new Float32Array(N * d);
  let t = 0;
  ids.forEach((id, i) => {
    if (id >= 0) x.set(w.embed.subarray(id * d, id * d + d), i * d);
    else x.set(matmulRef(prefix.vision.subarray(t * c.vision_dim, ++t * c.vision_dim), w.vision_proj_weight, w.vision_proj_bias, 1, d, c.vision_dim), i * d);
  });
  const rope = ropeTables(N, hd, c.rope_theta);
  const rot = (a: Float32Array) => {
    const o = new Float32Array(a.length);
    for (let i = 0; i < N; i++) for (let h = 0; h < H; h++) for (let j = 0; j < hd / 2; j++) {
      const b = i * D + h * hd, cs = rope.cos[i * hd / 2 + j], sn = rope.sin[i * hd / 2 + j];
      o[b + j] = a[b + j] * cs - a[b + j + hd / 2] * sn;
      o[b + j + hd / 2] = a[b + j + hd / 2] * cs + a[b + j] * sn;
    }
    return o;
  };
  for (const L of w.layers) {
    const xn = rmsnormRef(x, L.attn_norm, N, d, c.rms_eps);
    const q = rot(matmulRef(xn, L.wq, null, N, D, d)), k = rot(matmulRef(xn, L.wk, null, N, D, d)), v = matmulRef(xn, L.wv, null, N, D, d);
    const att = new Float32Array(N * D);
    for (let i = 0; i < N; i++) for (let h = 0; h < H; h++) {
      const s: number[] = [];
      for (let j = 0; j < N; j++) {
        if (!mask(i, j)) { s.push(-Infinity); continue; }
        let a = 0;
        for (let e = 0; e < hd; e++) a += q[i * D + h * hd + e] * k[j * D + h * hd + e];
        s.push(a / Math.sqrt(hd));
      }
      const m = Math.max(...s);
      const p = s.map((z) => Math.exp(z - m));
      const z = p.reduce((a, b) => a + b, 0);
      for (let e = 0; e < hd; e++) {
        let a = 0;
        for (let j = 0; j < N; j++) a += (p[j] / z) * v[j * D + h * hd + e];
        att[i * D + h * hd + e] = a;
      }
    }
    const o = matmulRef(att, L.wo, null, N, d, D);
    x = x.map((a, i) => a + o[i]);
    const xm = rmsnormRef(x, L.mlp_norm, N, d, c.rms_eps);
    const f = matmulRef(swigluRef(matmulRef(xm, L.w_gate, null, N, F, d), matmulRef(xm, L.w_up, null, N, F, d)), L.w_down, null, N, d, F);
    x = x.map((a, i) => a + f[i]);
  }
  return matmulRef(rmsnormRef(x, w.norm, N, d, c.rms_eps), w.lm_head, null, N, c.vocab_size, d);
}

describe('CpuDecoder', () => {
  const c = tinyConfig();
  const w = tinyWeights(c, 2, 1.5);
  const rng = new Rng(2);
  const prefix = tinyPrefix(c, rng, [4, 3]);
  const P0 = prefix.ids.length - 1; // x0 position
  const x0 = prefix.ids[P0];
  const V = c.vocab_size;

  it('draft window matches a naive forward with the draft mask', async () => {
    const B = 5;
    const dec = new CpuDecoder(w, c);
    await dec.prefill([prefix]);
    const [out] = await dec.forward([{ seq: 0, start: P0, ids: [x0, ...new Array(B).fill(c.mask_id)], mode: 'draft' }], { logits: true });
    const ref = naiveLogits(c, w, prefix, [x0, ...new Array(B).fill(c.mask_id)], (i, j) => j <= i || (i > P0 && j <= P0 + B));
    const res = validate('draft', out.logits!, ref.slice(P0 * V), 1e-5, 1e-4);
    expect(res.ok, res.report).toBe(true);
  });

  it('verify window after a draft matches a naive causal forward (cache invariant)', async () => {
    const dec = new CpuDecoder(w, c);
    await dec.prefill([prefix]);
    const B = 6;
    const [d] = await dec.forward([{ seq: 0, start: P0, ids: [x0, ...new Array(B).fill(c.mask_id)], mode: 'draft' }]);
    const win = Array.from(d.ids); // [a0, d1..dB]
    const [v] = await dec.forward([{ seq: 0, start: P0 + 1, ids: win, mode: 'causal' }], { logits: true });
    const ref = naiveLogits(c, w, prefix, [x0, ...win], (i, j) => j <= i);
    const res = validate('verify', v.logits!, ref.slice((P0 + 1) * V), 1e-5, 1e-4);
    expect(res.ok, res.report).toBe(true);
  });

  it('a causal window row is bit-identical to the single-row step; batch = alone', async () => {
    const toks = [x0, 11, 12, 13, 14, 15, 16];
    const a = new CpuDecoder(w, c);
    await a.prefill([prefix, tinyPrefix(c, new Rng(9), [2])]);
    const [win] = await a.forward([{ seq: 0, start: P0, ids: toks, mode: 'causal' }], { logits: true });
    const b = new CpuDecoder(w, c);
    await b.prefill([prefix]);
    for (let i = 0; i < toks.length; i++) {
      const [one] = await b.forward([{ seq: 0, start: P0 + i, ids: [toks[i]], mode: 'causal' }], { logits: true });
      expect(Array.from(one.logits!)).toEqual(Array.from(win.logits!.slice(i * V, (i + 1) * V)));
    }
  });

  it('rejects holes, overflow and double windows', async () => {
    const dec = new CpuDecoder(w, c);
    await dec.prefill([prefix], { capacity: P0 + 4 });
    await expect(dec.forward([{ seq: 0, start: P0 + 1, ids: [x0], mode: 'causal' }])).rejects.toThrow(/hole/);
    await expect(dec.forward([{ seq: 0, start: P0, ids: [1, 1, 1, 1, 1], mode: 'causal' }])).rejects.toThrow(/capacity/);
    await expect(dec.forward([{ seq: 0, start: P0, ids: [1], mode: 'causal' }, { seq: 0, start: P0, ids: [1], mode: 'causal' }])).rejects.toThrow(/two windows/);
  });
});
