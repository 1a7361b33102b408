// PyTorch golden vectors vs the CPU reference decoder, for every exported model present;
// plus a plumbing test on a self-made golden directory (tiny random model).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CpuDecoder } from './decoder.ts';
import { findGoldenModels, loadGoldenModel, replayGolden, type GoldenCase } from './golden.ts';
import { validate } from './validate.ts';
import { Rng } from './rng.ts';
import { tinyConfig, tinyTensors, tinyWeights } from './tiny-model.ts';
import { encodeSafetensors } from '../recognizer/safetensors.ts';

const dirs = findGoldenModels();

async function checkModel(dir: string): Promise<void> {
  const g = loadGoldenModel(dir);
  const dec = new CpuDecoder(g.weights, g.config);
  for (const [n, c] of g.cases.entries()) {
    const r = await replayGolden(dec, c, g.config);
    const check = (name: string, got: ArrayLike<number>, ref: number[]) => {
      const res = validate(`${dir} case ${n} (${c.task}) ${name}`, got, ref, 1e-4, 1e-4);
      expect(res.ok, res.report).toBe(true);
    };
    check('prefix_last_logits', r.prefixLast, c.prefix_last_logits);
    check('draft logits', r.draft, c.draft.logits.flat());
    check('verify logits', r.verify, c.verify.logits.flat());
    expect(r.greedy, `case ${n} greedy ids`).toEqual(c.greedy_ids);
    expect(r.selfSpec, `case ${n} self-spec ids`).toEqual(c.greedy_ids);
  }
}

describe('golden vectors vs CPU decoder', () => {
  if (dirs.length === 0) {
    it.skip('no public/models/*/golden.json yet (run training/export.py)', () => {});
  }
  for (const dir of dirs) it(dir, () => checkModel(dir));

  it('replays a self-made golden directory (loader + replay plumbing)', async () => {
    const c = tinyConfig({ eos_id: 36 });
    const w = tinyWeights(c, 4, 2);
    const dir = mkdtempSync(join(tmpdir(), 'gocr-golden-'));
    writeFileSync(join(dir, 'model.safetensors'), encodeSafetensors(tinyTensors(c, w)));
    writeFileSync(join(dir, 'config.json'), JSON.stringify(c));
    const rng = new Rng(4);
    const B = 4;
    const base: GoldenCase = {
      task: 'text', vision_shape: [5, c.vision_dim], vision: Array.from(rng.floats(5 * c.vision_dim)), strips: [3, 2],
      prompt_ids: [c.task_ids.text], prefix_last_logits: [], greedy_ids: new Array(12).fill(0),
      draft: { committed: [20, 21], window: [21, ...new Array(B).fill(c.mask_id)], logits: [] },
      verify: { committed: [20, 21], window: [22, 23, 24, 25, 26], logits: [] },
    };
    const r = await replayGolden(new CpuDecoder(w, c), base, c);
    const V = c.vocab_size;
    const rows = (a: Float32Array) => Array.from({ length: a.length / V }, (_, i) => Array.from(a.slice(i * V, (i + 1) * V)));
    const golden: GoldenCase = { ...base, prefix_last_logits: Array.from(r.prefixLast), greedy_ids: r.greedy,
      draft: { ...base.draft, logits: rows(r.draft) }, verify: { ...base.verify, logits: rows(r.verify) } };
    writeFileSync(join(dir, 'golden.json'), JSON.stringify({ cases: [golden] }));
    await checkModel(dir);
  });
});
