// decoder.onnx (training/export_onnx.py) on onnxruntime-node vs the PyTorch golden vectors of the
// same export: prefix logits within 1e-4 and identical greedy ids, for every model folder that has
// both files. Plus the prefix-row builder against the CPU reference's embedding on a tiny model.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { findGoldenModels, goldenPrefix, loadGoldenModel } from '../reference/golden.ts';
import { validate } from '../reference/validate.ts';
import { tinyConfig, tinyWeights } from '../reference/tiny-model.ts';
import { buildPrefix } from './model.ts';
import { OrtDecoder, type OrtSessionLike, type OrtTensorCtor } from './ort-decoder.ts';

const dirs = findGoldenModels().filter((d) => existsSync(join(d, 'decoder.onnx')));

describe('decoder.onnx (onnxruntime-node) vs PyTorch golden vectors', () => {
  if (dirs.length === 0) it.skip('no public/models/*/decoder.onnx (run training/export_onnx.py)', () => {});
  for (const dir of dirs) {
    it(dir, async () => {
      const g = loadGoldenModel(dir);
      const session = await ort.InferenceSession.create(readFileSync(join(dir, 'decoder.onnx')), { intraOpNumThreads: 1 });
      const dec = new OrtDecoder(session as unknown as OrtSessionLike, ort.Tensor as unknown as OrtTensorCtor, g.weights, g.config);
      for (const [n, c] of g.cases.entries()) {
        const r = await dec.greedy(goldenPrefix(c, g.config), c.greedy_ids.length);
        expect(r.ids, `case ${n} (${c.task}) greedy ids`).toEqual(c.greedy_ids);
        expect(r.forwards).toBe(c.greedy_ids.length - 1);
        const res = validate(`${dir} case ${n} prefix logits`, r.prefixLast, c.prefix_last_logits, 1e-4, 1e-4);
        expect(res.ok, res.report).toBe(true);
      }
      await session.release();
    });
  }
});

describe('OrtDecoder.prefixRows', () => {
  it('puts vision_proj rows in image slots and embedding rows elsewhere', () => {
    const c = tinyConfig();
    const w = tinyWeights(c, 7, 2);
    const dec = new OrtDecoder({ run: async () => ({}) } as OrtSessionLike, ort.Tensor as unknown as OrtTensorCtor, w, c);
    const T = 3;
    const vision = Float32Array.from({ length: T * c.vision_dim }, (_, i) => Math.sin(i * 0.37));
    const p = buildPrefix(vision, [2, 1], [c.task_ids.text], c);
    const x = dec.prefixRows(p);
    const d = c.d_model;
    expect(x.length).toBe(p.ids.length * d);
    // row 2 is <sep>, last row is the task token
    expect(Array.from(x.subarray(2 * d, 3 * d))).toEqual(Array.from(w.embed.subarray(c.sep_id * d, (c.sep_id + 1) * d)));
    const t = c.task_ids.text;
    expect(Array.from(x.subarray(4 * d, 5 * d))).toEqual(Array.from(w.embed.subarray(t * d, (t + 1) * d)));
    // row 3 is the third feature row projected: W·f + b
    let want = 0;
    for (let k = 0; k < c.vision_dim; k++) want += w.vision_proj_weight[k] * vision[2 * c.vision_dim + k];
    want += w.vision_proj_bias[0];
    const res = validate('vision row', [x[3 * d]], [want], 1e-5, 1e-5);
    expect(res.ok, res.report).toBe(true);
    expect(() => dec.tokenRow(c.vocab_size)).toThrow(/out of range/);
  });
});
