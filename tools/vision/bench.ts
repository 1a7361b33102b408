/**
 * Micro-benchmark of the strip pipeline: preprocessing (split + resize + normalize) vs backbone.
 *   node --import tsx tools/vision/bench.ts [png] [--threads 2] [--reps 20]
 */
import * as ort from 'onnxruntime-node';
import { readPng } from './png.ts';
import { splitStrips } from '../../src/recognizer/strips.ts';
import { crop } from '../../src/recognizer/image.ts';
import { prepareStrip, VisionEncoder, type OrtModuleLike } from '../../src/recognizer/vision.ts';
import { DEFAULT_MODEL } from './features.ts';

const argv = process.argv.slice(2);
const arg = (k: string, d: string) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : d; };
const png = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'tools/vision/fixtures/paragraph.png';
const threads = Number(arg('threads', '2'));
const reps = Number(arg('reps', '20'));
const enc = await VisionEncoder.create(ort as unknown as OrtModuleLike, DEFAULT_MODEL, { intraOpNumThreads: threads, interOpNumThreads: 1, extra: { session: { intra_op: { allow_spinning: arg('spin', '1') } } } });
const img = readPng(png);
let t = performance.now();
let prepared = splitStrips(img, 'text').map((b) => prepareStrip(crop(img, b)));
for (let i = 1; i < reps; i++) prepared = splitStrips(img, 'text').map((b) => prepareStrip(crop(img, b)));
const tPrep = (performance.now() - t) / reps;
await enc.runPrepared(prepared[0]); // warm-up
t = performance.now();
for (let i = 0; i < reps; i++) for (const p of prepared) await enc.runPrepared(p);
const tRun = (performance.now() - t) / reps;
const widths = prepared.map((p) => p.width);
console.log(`${png}: ${prepared.length} strips, widths ${widths.join(',')}; prep ${tPrep.toFixed(1)} ms/crop, backbone ${tRun.toFixed(1)} ms/crop = ${(tRun / prepared.length).toFixed(1)} ms/strip (${threads} threads) -> ${(1000 * prepared.length / (tPrep + tRun)).toFixed(1)} strips/s`);
