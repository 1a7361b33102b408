/**
 * Verify the cut backbone against the full PP-OCRv4 recognizer on a rendered line:
 *  - T vs W for several input widths,
 *  - full model softmax == softmax(cut features x W_head + b_head) frame by frame,
 *  - the full model's greedy CTC decode reads the line.
 *   node --import tsx tools/vision/verify_cut.ts [line.png] [backbone.onnx]
 */
import * as ort from 'onnxruntime-node';
import { readPng } from './png.ts';
import { prepareStrip, VISION_DIM } from '../../src/recognizer/vision.ts';
import { readOnnxTensors } from './onnx_tensors.ts';
import { ctcGreedy, headSoftmax, HEAD_B, HEAD_W, loadPpocrLabels, PPOCR_REC } from './ctc.ts';

const linePath = process.argv[2] ?? 'tools/vision/fixtures/line.png';
const backbone = process.argv[3] ?? 'public/models/vision/ppocr-v4-rec-backbone.onnx';
const opts = { intraOpNumThreads: 2, interOpNumThreads: 1 };
const full = await ort.InferenceSession.create(PPOCR_REC, opts);
const cut = await ort.InferenceSession.create(backbone, opts);
console.log('backbone inputs', cut.inputNames, 'outputs', cut.outputNames);

// T vs W.
for (const W of [16, 24, 32, 40, 64, 100, 128, 320, 321, 960, 1280]) {
  const x = new ort.Tensor('float32', new Float32Array(3 * 48 * W), [1, 3, 48, W]);
  const y = (await cut.run({ x }))[cut.outputNames[0]];
  console.log(`W=${W} -> dims [${y.dims.join(',')}]  ceil(W/8)=${Math.ceil(W / 8)}`);
}

const p = prepareStrip(readPng(linePath));
const x = new ort.Tensor('float32', p.data, [1, 3, 48, p.width]);
const yf = (await full.run({ x }))[full.outputNames[0]];
const yc = (await cut.run({ x }))[cut.outputNames[0]];
const T = yc.dims[1];
const C = yf.dims[2];
console.log(`line: padded W=${p.width}, full dims [${yf.dims.join(',')}], cut dims [${yc.dims.join(',')}]`);
const t = readOnnxTensors(PPOCR_REC, [HEAD_W, HEAD_B]);
const probs = headSoftmax(yc.data as Float32Array, T, VISION_DIM, t.get(HEAD_W)!.data, t.get(HEAD_B)!.data);
const ref = yf.data as Float32Array;
let maxAbs = 0;
let argmaxAgree = 0;
for (let i = 0; i < ref.length; i++) maxAbs = Math.max(maxAbs, Math.abs(ref[i] - probs[i]));
for (let f = 0; f < T; f++) {
  let a = 0, b = 0;
  for (let c = 1; c < C; c++) {
    if (ref[f * C + c] > ref[f * C + a]) a = c;
    if (probs[f * C + c] > probs[f * C + b]) b = c;
  }
  if (a === b) argmaxAgree++;
}
const labels = loadPpocrLabels();
console.log(`per-frame: max |p_full - p_cut·head| = ${maxAbs.toExponential(2)}, argmax agree ${argmaxAgree}/${T}`);
console.log(`full model reads: "${ctcGreedy(ref, T, C, labels)}"`);
console.log(`cut+head reads:   "${ctcGreedy(probs, T, C, labels)}"`);
