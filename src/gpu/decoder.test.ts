// WGSL decoder vs the CPU reference decoder on a tiny random model: logits of prefill-then-
// draft/verify windows within 1e-3, identical greedy ids, and self-spec ≡ AR on the GPU.
import { describe, expect, it } from 'vitest';
import { gpuOrSkip, expectClose } from './testing/gpu-test.ts';
import { GpuDecoder } from './decoder.ts';
import { CpuDecoder } from '../reference/decoder.ts';
import { Rng } from '../reference/rng.ts';
import { tinyConfig, tinyPrefix, tinyWeights } from '../reference/tiny-model.ts';
import { decodeAR } from '../decoding/ar.ts';
import { decodeSelfSpec } from '../decoding/selfspec.ts';
import { OracleDrafts } from '../decoding/oracle-drafts.ts';
import { createDecoder } from '../recognizer/model.ts';
import type { WindowInput } from '../recognizer/model.ts';
import { findGoldenModels, loadGoldenModel, replayGolden } from '../reference/golden.ts';

const dev = await gpuOrSkip();

describe.skipIf(!dev)('GpuDecoder vs CpuDecoder', () => {
  const c = tinyConfig({ max_positions: 400 });
  const w = tinyWeights(c, 3, 2);

  it('prefill + draft + verify windows (batch of 3): logits within 1e-3, same ids', async () => {
    const rng = new Rng(3);
    const ps = [tinyPrefix(c, rng, [5, 4]), tinyPrefix(c, rng, [2], 'table'), tinyPrefix(c, rng, [150, 140], 'formula')];
    const gpu = new GpuDecoder(dev!.device, w, c, dev!.description);
    const cpu = new CpuDecoder(w, c);
    for (const d of [gpu, cpu]) await d.prefill(ps, { capacity: 340 });
    const B = 8;
    const drafts: WindowInput[] = ps.map((p, i) => ({ seq: i, start: p.ids.length - 1, ids: [p.ids[p.ids.length - 1], ...new Array(B).fill(c.mask_id)], mode: 'draft' }));
    const g = await gpu.forward(drafts, { logits: true });
    const r = await cpu.forward(drafts, { logits: true });
    const verifies: WindowInput[] = ps.map((p, i) => ({ seq: i, start: p.ids.length, ids: Array.from(r[i].ids), mode: 'causal' }));
    const gv = await gpu.forward(verifies, { logits: true });
    const rv = await cpu.forward(verifies, { logits: true });
    for (let i = 0; i < ps.length; i++) {
      expectClose(`draft logits seq ${i}`, g[i].logits!, r[i].logits!, 1e-3, 1e-3);
      expect(Array.from(g[i].ids)).toEqual(Array.from(r[i].ids));
      expectClose(`verify logits seq ${i}`, gv[i].logits!, rv[i].logits!, 1e-3, 1e-3);
      expect(Array.from(gv[i].ids)).toEqual(Array.from(rv[i].ids));
      expectClose(`conf seq ${i}`, gv[i].conf, rv[i].conf, 1e-4, 1e-3);
    }
    gpu.dispose();
  });

  it('greedy AR ids equal the CPU; GPU self-spec ≡ GPU AR (random and oracle drafts)', async () => {
    const rng = new Rng(4);
    const ps = [tinyPrefix(c, rng, [6]), tinyPrefix(c, rng, [3, 3], 'table'), tinyPrefix(c, rng, [9, 2, 4])];
    const gpu = await createDecoder(w, c, { prefer: 'webgpu', device: dev!.device, deviceDescription: dev!.description });
    expect(gpu.kind).not.toBe('cpu');
    const cpu = new CpuDecoder(w, c);
    const arG = await decodeAR(gpu, ps, { maxNewTokens: 24 });
    const arC = await decodeAR(cpu, ps, { maxNewTokens: 24 });
    arG.forEach((r, i) => expect(r.tokens).toEqual(arC[i].tokens));
    const ssG = await decodeSelfSpec(gpu, ps, { maxNewTokens: 24, blockSize: 5 });
    ssG.forEach((r, i) => expect(r.tokens).toEqual(arG[i].tokens));
    const lens = ps.map((p) => p.ids.length);
    const oracle = new OracleDrafts(gpu, arG.map((r) => r.tokens), lens, (s, n) => (n + s) % 6 === 5);
    const ssO = await decodeSelfSpec(oracle, ps, { maxNewTokens: 24, blockSize: 5 });
    ssO.forEach((r, i) => expect(r.tokens).toEqual(arG[i].tokens));
    const accepted = ssO.flatMap((r) => r.trace.rounds.map((x) => x.accepted));
    expect(Math.max(...accepted), `accepted per round: ${accepted}`).toBeGreaterThanOrEqual(3);
    gpu.dispose();
  });
});

describe.skipIf(!dev)('createDecoder adapter choice', () => {
  it('uses the CPU decoder on a software adapter unless allowed', async () => {
    const c = tinyConfig();
    const w = tinyWeights(c, 1);
    console.log(`adapter: ${dev!.description}`);
    const a = await createDecoder(w, c, { prefer: 'webgpu', gpu: dev!.gpu });
    const b = await createDecoder(w, c, { prefer: 'webgpu', gpu: dev!.gpu, allowSoftwareGpu: true });
    expect(b.kind).toMatch(/^webgpu/);
    if (/swiftshader/i.test(dev!.description)) {
      expect(a.kind).toBe('cpu');
      expect(a.fallbackReason).toMatch(/^software WebGPU adapter \(.*swiftshader.*\): the CPU decoder is faster$/i);
    }
    expect(b.fallbackReason).toBeUndefined();
    a.dispose();
    b.dispose();
  });
});

const goldenDirs = findGoldenModels();

describe.skipIf(!dev)('GpuDecoder on exported models (golden.json)', () => {
  if (goldenDirs.length === 0) it.skip('no public/models/*/golden.json yet (run training/export.py)', () => {});
  const dirs = goldenDirs;
  for (const dir of dirs) {
    const g = loadGoldenModel(dir);
    for (const [n, c] of g.cases.entries()) {
      it(`${dir} case ${n} (${c.task}): WGSL vs CPU within 1e-3, identical greedy ids`, async () => {
        const gpu = new GpuDecoder(dev!.device, g.weights, g.config, dev!.description);
        const cpu = new CpuDecoder(g.weights, g.config);
        // Self-spec on SwiftShader is slow: run it for the first case only.
        const rg = await replayGolden(gpu, c, g.config, { selfSpec: n === 0 });
        const rc = await replayGolden(cpu, c, g.config, { selfSpec: false });
        expectClose(`case ${n} prefix`, rg.prefixLast, rc.prefixLast, 1e-3, 1e-3);
        expectClose(`case ${n} draft`, rg.draft, rc.draft, 1e-3, 1e-3);
        expectClose(`case ${n} verify`, rg.verify, rc.verify, 1e-3, 1e-3);
        expect(Array.from(rg.draftIds)).toEqual(Array.from(rc.draftIds));
        expect(Array.from(rg.verifyIds)).toEqual(Array.from(rc.verifyIds));
        expect(rg.greedy).toEqual(rc.greedy);
        expect(rg.greedy).toEqual(c.greedy_ids);
        if (n === 0) expect(rg.selfSpec).toEqual(c.greedy_ids);
        gpu.dispose();
      }, 600_000);
    }
  }
});
