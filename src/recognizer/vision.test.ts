import { beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { readFileSync } from 'node:fs';
import { readPng } from '../../tools/vision/png.ts';
import { readOnnxTensors } from '../../tools/vision/onnx_tensors.ts';
import { ctcGreedy, headSoftmax, HEAD_B, HEAD_W, loadPpocrLabels, PPOCR_REC } from '../../tools/vision/ctc.ts';
import { framesForWidth, paddedWidth, prepareStrip, targetWidth, VISION_DIM, VisionEncoder, type OrtModuleLike } from './vision.ts';

const BACKBONE = 'public/models/vision/ppocr-v4-rec-backbone.onnx';
const LINE = 'tools/vision/fixtures/line.png';
const LINE_TEXT = 'Invoice 2024: total due $1,284.50 by March 7.';
const PARAGRAPH = 'tools/vision/fixtures/paragraph.png';
const opts = { intraOpNumThreads: 1, interOpNumThreads: 1 };

describe('vision preprocessing', () => {
  it('width policy: aspect kept at height 48, clamped, padded to 8', () => {
    expect(targetWidth(100, 24)).toBe(200);
    expect(targetWidth(3, 40)).toBe(16);
    expect(targetWidth(5000, 40)).toBe(1280);
    expect(paddedWidth(201)).toBe(208);
    const p = prepareStrip(readPng(LINE));
    expect(p.width % 8).toBe(0);
    expect(p.data.length).toBe(3 * 48 * p.width);
    // Padding is white → +1 after normalization.
    expect(p.data[p.width - 1]).toBe(1);
  });

  it('input scale 2: twice the height and padded width, same rows on the 48-px grid', () => {
    const img = readPng(LINE);
    const p1 = prepareStrip(img);
    const p2 = prepareStrip(img, undefined, 2);
    expect(p2.height).toBe(96);
    expect(p2.width).toBe(2 * p1.width);
    expect(p2.contentWidth).toBe(2 * p1.contentWidth);
    expect(p2.data.length).toBe(3 * 96 * p2.width);
    expect(framesForWidth(p2.width / 2)).toBe(framesForWidth(p1.width));
    // the 2x2 box-filter of the scale-2 strip is close to the 48-px strip (both resize the same crop)
    let err = 0;
    for (let y = 0; y < 48; y++) {
      for (let x = 0; x < p1.width; x++) {
        const at = (yy: number, xx: number) => p2.data[yy * p2.width + xx];
        const box = (at(2 * y, 2 * x) + at(2 * y + 1, 2 * x) + at(2 * y, 2 * x + 1) + at(2 * y + 1, 2 * x + 1)) / 4;
        err += Math.abs(box - p1.data[y * p1.width + x]);
      }
    }
    expect(err / (48 * p1.width)).toBeLessThan(0.08);
    expect(() => prepareStrip(img, undefined, 0)).toThrow(/positive integer/);
    expect(() => prepareStrip(img, undefined, 1.5)).toThrow(/positive integer/);
  });
});

describe('VisionEncoder (onnxruntime-node)', () => {
  let enc: VisionEncoder;
  beforeAll(async () => {
    enc = await VisionEncoder.create(ort as unknown as OrtModuleLike, BACKBONE, opts);
  });

  it('gives W/8 rows of 120 per strip, and the full model path reads the line', async () => {
    const img = readPng(LINE);
    const p = prepareStrip(img);
    const f = await enc.runPrepared(p);
    const T = f.length / VISION_DIM;
    expect(T).toBe(framesForWidth(p.width));
    expect(T).toBe(p.width / 8);

    // Full recognizer on the same input reads the text ...
    const full = await ort.InferenceSession.create(PPOCR_REC, opts);
    const y = (await full.run({ x: new ort.Tensor('float32', p.data, [1, 3, 48, p.width]) }))[full.outputNames[0]];
    const C = y.dims[2];
    expect(y.dims[1]).toBe(T);
    const labels = loadPpocrLabels();
    expect(ctcGreedy(y.data as Float32Array, T, C, labels)).toBe(LINE_TEXT);
    // ... and equals softmax(features · W_head + b_head): the cut is exactly at the head's input.
    const t = readOnnxTensors(PPOCR_REC, [HEAD_W, HEAD_B]);
    const probs = headSoftmax(f, T, VISION_DIM, t.get(HEAD_W)!.data, t.get(HEAD_B)!.data);
    let maxAbs = 0;
    const ref = y.data as Float32Array;
    for (let i = 0; i < ref.length; i++) maxAbs = Math.max(maxAbs, Math.abs(ref[i] - probs[i]));
    expect(maxAbs).toBeLessThan(1e-4);
    expect(ctcGreedy(probs, T, C, labels)).toBe(LINE_TEXT);
    await full.release();
  });

  it('an encoder of input scale 2 refuses a strip prepared for scale 1 (and a bad scale)', async () => {
    const s2 = new VisionEncoder(ort as unknown as OrtModuleLike, enc.session, { scale: 2 });
    await expect(s2.runPrepared(prepareStrip(readPng(LINE)))).rejects.toThrow(/height 48, this encoder takes 96/);
    expect(() => new VisionEncoder(ort as unknown as OrtModuleLike, enc.session, { scale: 0 })).toThrow(/positive integer/);
  });

  it('encodeRegion splits a paragraph into 3 strips and concatenates their rows', async () => {
    const img = readPng(PARAGRAPH);
    const r = await enc.encodeRegion(img, 'text');
    expect(r.strips.length).toBe(3);
    expect(r.stripRows.length).toBe(3);
    const total = r.stripRows.reduce((a, b) => a + b, 0);
    expect(r.features.length).toBe(total * VISION_DIM);
    for (let i = 0; i < 3; i++) {
      const [x0, y0, x1, y1] = r.strips[i];
      expect(r.stripRows[i]).toBe(paddedWidth(targetWidth(x1 - x0, y1 - y0)) / 8);
    }
    const one = await enc.encodeRegion(img, 'formula');
    expect(one.stripRows.length).toBe(1);
    expect(r.features.every(Number.isFinite)).toBe(true);
  });

  it('onnxruntime-web (wasm, as in the browser worker) gives the same features', async () => {
    ortWeb.env.wasm.numThreads = 1;
    const bytes = new Uint8Array(readFileSync(BACKBONE));
    const web = await VisionEncoder.create(ortWeb as unknown as OrtModuleLike, bytes, { executionProviders: ['wasm'] });
    const img = readPng(LINE);
    const a = await web.encodeRegion(img, 'text');
    const b = await enc.encodeRegion(img, 'text');
    expect(a.stripRows).toEqual(b.stripRows);
    let m = 0;
    for (let i = 0; i < a.features.length; i++) m = Math.max(m, Math.abs(a.features[i] - b.features[i]));
    expect(m).toBeLessThan(5e-3);
    await web.release();
  });
});
