import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packFeatures, toFloat16Bytes, toHalfBits } from './features.ts';
import { f16ToF32 as halfToFloat } from '../../src/recognizer/safetensors.ts';


describe('float16 packing', () => {
  it('rounds to nearest even, handles subnormals and overflow', () => {
    expect(toHalfBits(1)).toBe(0x3c00);
    expect(toHalfBits(-2)).toBe(0xc000);
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(70000)).toBe(0x7c00);
    expect(toHalfBits(2 ** -24)).toBe(1);
    expect(toHalfBits(2 ** -26)).toBe(0);
    expect(toHalfBits(1 + 2 ** -11)).toBe(0x3c00); // tie → even
    expect(toHalfBits(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie → even (up)
    expect(toHalfBits(0)).toBe(0);
    expect(toHalfBits(NaN) & 0x7c00).toBe(0x7c00);
    // Round trip error bound over a range of values.
    for (let v = -20; v <= 20; v += 0.0137) {
      const r = halfToFloat(toHalfBits(v));
      expect(Math.abs(r - v)).toBeLessThanOrEqual(Math.abs(v) * 2 ** -11 + 2 ** -25);
    }
    const b = toFloat16Bytes(new Float32Array([1, -2]));
    expect(Array.from(b)).toEqual([0x00, 0x3c, 0x00, 0xc0]);
  });
});

describe('packFeatures', () => {
  it('writes features.f16 + index.jsonl in the documented layout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'feat-'));
    const fx = resolve('tools/vision/fixtures');
    writeFileSync(join(dir, 'index.jsonl'), [
      { id: 'l', task: 'text', target: 'Invoice', image: join(fx, 'line.png'), lines: [[0, 0, 1, 1]] },
      { id: 'p', task: 'text', target: 'The quick', image: join(fx, 'paragraph.png'), lines: [[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1]] },
      { id: 'f', task: 'formula', target: 'x', image: join(fx, 'paragraph.png') },
    ].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const out = join(dir, 'out');
    const s = await packFeatures({ inDir: dir, outDir: out, threads: 1, log: () => {} });
    expect(s.samples).toBe(3);
    expect(s.agreement.text).toEqual({ n: 2, eq: 2, over: 0, under: 0 });
    const idx = readFileSync(join(out, 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(Object.keys(idx[0])).toEqual(['id', 'task', 'target', 'offset', 'strips']);
    expect(idx.map((r) => r.strips.length)).toEqual([1, 3, 1]);
    expect(idx[1].offset).toBe(idx[0].strips[0]);
    const bytes = readFileSync(join(out, 'features.f16'));
    const total = idx[2].offset + idx[2].strips[0];
    expect(bytes.length).toBe(total * 120 * 2);
    expect(s.rows).toBe(total);

    // An interrupted run (2 samples, then a torn extra row) resumed gives the same bytes.
    const out2 = join(dir, 'out2');
    await packFeatures({ inDir: dir, outDir: out2, threads: 1, limit: 2, log: () => {} });
    appendFileSync(join(out2, 'features.f16'), new Uint8Array(240));
    const r = await packFeatures({ inDir: dir, outDir: out2, threads: 1, resume: true, log: () => {} });
    expect(r.samples).toBe(3);
    expect(r.strips).toBe(1);
    expect(readFileSync(join(out2, 'index.jsonl'), 'utf8')).toBe(readFileSync(join(out, 'index.jsonl'), 'utf8'));
    expect(Buffer.compare(readFileSync(join(out2, 'features.f16')), bytes)).toBe(0);
  });
});
