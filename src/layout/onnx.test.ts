/**
 * Shipped model checks (skipped until public/models/layout/layout.onnx exists):
 * TS preprocessing = Python preprocessing, ONNX (onnxruntime-node) = PyTorch on the golden page
 * (raw heads, and after post-processing: same classes, boxes within 1 px).
 * LAYOUT_MODEL_DIR overrides the model folder.
 */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { existsSync, readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import type { OrtModuleLike } from '../recognizer/vision.ts';
import { LayoutDetector } from './detector.ts';
import { iou } from './postprocess.ts';
import { decodeDetections } from './postprocess.ts';
import { preprocessPage } from './preprocess.ts';
import type { Box } from './types.ts';

const DIR = process.env.LAYOUT_MODEL_DIR ?? 'public/models/layout';
const HAVE = existsSync(`${DIR}/layout.onnx`) && existsSync(`${DIR}/golden.json`);

interface Golden {
  page: { width: number; height: number; scale: number };
  detections: { cls: string; box: Box; score: number }[];
  cells: { cell: number; scores: number[]; box: number[] }[];
  preprocess: { height: number; width: number; rows: number[]; points: [number, number, number][] };
}

describe.runIf(HAVE)('layout.onnx vs PyTorch golden vectors', () => {
  const golden: Golden = HAVE ? JSON.parse(readFileSync(`${DIR}/golden.json`, 'utf8')) : (null as never);
  const config = HAVE ? JSON.parse(readFileSync(`${DIR}/config.json`, 'utf8')) : null;

  it('TS preprocessing matches Python', () => {
    const { height: h, width: w } = golden.preprocess;
    const data = new Uint8Array(h * w * 3);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < 3; c++) data[(y * w + x) * 3 + c] = (x * 7 + y * 13 + c * 29) % 256;
    const { data: t } = preprocessPage({ width: w, height: h, channels: 3, data }, config.input_h, config.input_w);
    for (const [y, x, v] of golden.preprocess.points) expect(Math.abs(t[y * config.input_w + x] - v)).toBeLessThan(1e-5);
    golden.preprocess.rows.forEach((s, y) => {
      let acc = 0;
      for (let x = 0; x < config.input_w; x++) acc += t[y * config.input_w + x];
      expect(Math.abs(acc - s)).toBeLessThan(1e-3);
    });
  });

  it('onnxruntime-node output matches PyTorch: raw heads and detections (same classes, boxes within 1 px)', async () => {
    const det = await LayoutDetector.create(ort as unknown as OrtModuleLike, `${DIR}/layout.onnx`, config, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    const png = PNG.sync.read(readFileSync(`${DIR}/golden_input.png`));
    const x = new Float32Array(config.input_h * config.input_w);
    for (let i = 0; i < x.length; i++) x[i] = png.data[i * 4] / 255;
    const { scores, boxes } = await det.run(x);
    const C = config.classes.length;
    for (const c of golden.cells) {
      for (let k = 0; k < C; k++) expect(Math.abs(scores[c.cell * C + k] - c.scores[k])).toBeLessThan(1e-4);
      for (let k = 0; k < 4; k++) expect(Math.abs(boxes[c.cell * 4 + k] - c.box[k])).toBeLessThan(0.05);
    }
    const p = golden.page;
    const dets = decodeDetections(scores, boxes, config.classes, p.scale, p.width, p.height, {
      scoreThreshold: config.score_threshold,
      nmsIou: config.nms_iou,
      maxDetections: config.max_detections,
    });
    expect(dets.length).toBe(golden.detections.length);
    for (const g of golden.detections) {
      const m = dets.find((d) => d.cls === g.cls && iou(d.box, g.box) > 0.9);
      expect(m, `no match for ${g.cls} ${g.box}`).toBeDefined();
      for (let k = 0; k < 4; k++) expect(Math.abs(m!.box[k] - g.box[k])).toBeLessThan(1);
      expect(Math.abs(m!.score - g.score)).toBeLessThan(1e-4);
    }
    await det.release();
  });
});

describe.runIf(existsSync(`${DIR}/manifest.json`))('layout manifest', () => {
  it('lists every model file with its sha256 and size, and covers the files the config names', async () => {
    const { createHash } = await import('node:crypto');
    const m = JSON.parse(readFileSync(`${DIR}/manifest.json`, 'utf8'));
    for (const [name, f] of Object.entries(m.files as Record<string, { sha256: string; bytes: number }>)) {
      const b = readFileSync(`${DIR}/${name}`);
      expect(b.length, name).toBe(f.bytes);
      expect(createHash('sha256').update(b).digest('hex'), name).toBe(f.sha256);
    }
    const config = JSON.parse(readFileSync(`${DIR}/config.json`, 'utf8'));
    for (const name of ['layout.onnx', 'config.json', ...(config.reclass ? [config.reclass.model] : [])]) expect(m.files[name], name).toBeDefined();
  });
});
