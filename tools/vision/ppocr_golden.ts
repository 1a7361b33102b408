/**
 * Golden features of the PP-OCRv4 backbone from onnxruntime-node, for the PyTorch port
 * (training/gocr/ppocr.py, checked by training/test_ppocr.py):
 *
 *   node --import tsx tools/vision/ppocr_golden.ts > training/tests/ppocr_golden.json
 *
 * Inputs are a formula both sides compute: x[n][c][h][w] = sin(0.37·w + 0.11·h·(c + 1) + n) · 0.9,
 * one image per width (64, and 100 which is not a multiple of 8).
 */
import { resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { DEFAULT_MODEL } from './features.ts';

export function goldenInput(width: number, n = 0, height = 48): Float32Array {
  const x = new Float32Array(3 * height * width);
  for (let c = 0; c < 3; c++) {
    for (let h = 0; h < height; h++) {
      for (let w = 0; w < width; w++) x[(c * height + h) * width + w] = Math.sin(0.37 * w + 0.11 * h * (c + 1) + n) * 0.9;
    }
  }
  return x;
}

async function main() {
  const session = await ort.InferenceSession.create(DEFAULT_MODEL, { intraOpNumThreads: 1 });
  const cases = [];
  for (const width of [64, 100]) {
    const out = await session.run({ x: new ort.Tensor('float32', goldenInput(width), [1, 3, 48, width]) });
    const f = out.features;
    cases.push({ width, dims: f.dims, features: Array.from(f.data as Float32Array, (v) => Math.round(v * 1e6) / 1e6) });
  }
  process.stdout.write(JSON.stringify({ model: DEFAULT_MODEL, formula: 'sin(0.37*w + 0.11*h*(c+1) + n) * 0.9', cases }) + '\n');
}

const isMain = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
