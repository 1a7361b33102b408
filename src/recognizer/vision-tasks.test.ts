// Task-specific vision encoders listed in the recognizer's manifest (`vision_tasks`; the app uses
// one when public/models/default.json names it in `visionTasks`): each ONNX
// file must give the features its PyTorch source computed (golden written by
// training/train_vision.py --export, fixed inputs of tools/vision/ppocr_golden.ts) within 1e-4,
// must really differ from the base backbone it was fine-tuned from, and must be listed with its
// sha256 in the recognizer's manifest.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { goldenInput } from '../../tools/vision/ppocr_golden.ts';

const ROOT = join(process.cwd(), 'public/models');
const index = JSON.parse(readFileSync(join(ROOT, 'default.json'), 'utf8')) as {
  recognizer: string; vision: string; visionTasks?: Record<string, string>;
};
const recManifest = JSON.parse(readFileSync(join(ROOT, index.recognizer, 'manifest.json'), 'utf8')) as {
  files: Record<string, { sha256: string; size: number }>;
  vision_tasks?: Record<string, { file: string; input_scale?: number }>;
};
// one entry per (task, file): the manifest's encoders and any that default.json turns on
const entries: [string, string][] = [...new Map([
  ...Object.entries(recManifest.vision_tasks ?? {}).map(([t, e]): [string, string] => [t, `${index.recognizer}/${e.file}`]),
  ...Object.entries(index.visionTasks ?? {}),
].map((e) => [e.join('\0'), e] as const)).values()];

async function features(model: string, width: number, height = 48): Promise<{ dims: readonly number[]; data: Float32Array }> {
  const s = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
  try {
    const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', goldenInput(width, 0, height), [1, 3, height, width]) });
    const y = out[s.outputNames[0]];
    return { dims: y.dims, data: y.data as Float32Array };
  } finally {
    await s.release();
  }
}

describe.skipIf(entries.length === 0)('task vision encoders', () => {
  it.each(entries)('%s encoder matches its PyTorch golden within 1e-4 and is not the base backbone', async (task, path) => {
    expect(['text', 'table', 'formula']).toContain(task);
    const file = join(ROOT, path);
    const goldenPath = file.replace(/\.onnx$/, '.golden.json');
    expect(existsSync(goldenPath), goldenPath).toBe(true);
    const golden = JSON.parse(readFileSync(goldenPath, 'utf8')) as { cases: { width: number; height?: number; dims: number[]; features: number[] }[] };
    expect(golden.cases.length).toBeGreaterThanOrEqual(2);
    const scale = Object.values(recManifest.vision_tasks ?? {}).find((e) => `${index.recognizer}/${e.file}` === path)?.input_scale ?? 1;
    for (const c of golden.cases) {
      const height = c.height ?? 48;
      expect(height, 'golden input height = 48 x the manifest input_scale').toBe(48 * scale);
      const y = await features(file, c.width, height);
      expect([...y.dims]).toEqual(c.dims);
      let maxErr = 0;
      for (let i = 0; i < c.features.length; i++) maxErr = Math.max(maxErr, Math.abs(y.data[i] - c.features[i]));
      expect(maxErr, `width ${c.width}`).toBeLessThan(1e-4);
      // the base backbone on a 48-px input of the same number of rows
      const base = await features(join(ROOT, index.vision), c.width / scale);
      let diff = 0;
      for (let i = 0; i < base.data.length; i++) diff = Math.max(diff, Math.abs(y.data[i] - base.data[i]));
      expect(diff, 'fine-tuned encoder equals the base backbone').toBeGreaterThan(1e-2);
    }
  }, 60_000);

  it.each(entries)('%s encoder is in the recognizer manifest with its sha256 and size', (_task, path) => {
    expect(path.startsWith(`${index.recognizer}/`), 'task encoders live in the recognizer folder').toBe(true);
    const entry = recManifest.files[basename(path)];
    expect(entry, `${basename(path)} missing from manifest.files`).toBeDefined();
    const bytes = readFileSync(join(ROOT, path));
    expect(bytes.length).toBe(entry.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
  });
});
