/**
 * Evaluate the strip splitter (and optionally the strip preprocessing) on a crops split:
 *   node --import tsx tools/vision/eval_strips.ts data/crops/val [--read 1] [--limit N] [--maxw 1280] [--padY 0.3] [--show 5]
 * - strip count vs ground-truth `lines` count per task (tables: GT lines are rows);
 * - with --read 1: the FULL PP-OCRv4 recognizer reads each strip (greedy CTC); the strips of a
 *   text sample are joined with ' ' and compared to the target (samples without '$' only), CER.
 */
import * as ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readPng } from './png.ts';
import { splitStrips, type Task } from '../../src/recognizer/strips.ts';
import { crop } from '../../src/recognizer/image.ts';
import { MAX_STRIP_WIDTH, prepareStrip } from '../../src/recognizer/vision.ts';
import { ctcGreedy, loadPpocrLabels, PPOCR_REC } from './ctc.ts';

const argv = process.argv.slice(2);
const arg = (k: string, d: string) => { const i = argv.indexOf(`--${k}`); return i >= 0 ? argv[i + 1] : d; };
const dir = argv[0];
const read = arg('read', '0') === '1';
const limit = Number(arg('limit', '1000000'));
const maxw = Number(arg('maxw', String(MAX_STRIP_WIDTH)));
const show = Number(arg('show', '5'));
const padY = argv.includes('--padY') ? Number(arg('padY', '0.3')) : undefined;
let frames = 0;

function levenshtein(a: string, b: string): number {
  const A = [...a];
  const B = [...b];
  let prev = Array.from({ length: B.length + 1 }, (_, j) => j);
  for (let i = 1; i <= A.length; i++) {
    const cur = [i];
    for (let j = 1; j <= B.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (A[i - 1] === B[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[B.length];
}

const recs = readFileSync(join(dir, 'index.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
  .map((l) => JSON.parse(l) as { id: string; task: Task; target: string; image: string; lines: number[][] })
  .slice(0, limit);
const full = read ? await ort.InferenceSession.create(PPOCR_REC, {
  intraOpNumThreads: 2, interOpNumThreads: 1, extra: { session: { intra_op: { allow_spinning: '0' } } },
}) : null;
const labels = read ? loadPpocrLabels() : [];
const agree: Record<string, { n: number; eq: number; over: number; under: number }> = {};
let errs = 0;
let chars = 0;
let clamped = 0;
let nstrips = 0;
let shown = 0;
const t0 = performance.now();
for (const r of recs) {
  const img = readPng(isAbsolute(r.image) ? r.image : join(dir, r.image));
  const boxes = splitStrips(img, r.task, padY === undefined ? {} : { padYFrac: padY });
  const s = (agree[r.task] ??= { n: 0, eq: 0, over: 0, under: 0 });
  s.n++;
  const gt = r.lines.length;
  if (boxes.length === gt) s.eq++;
  else {
    if (boxes.length > gt) s.over++; else s.under++;
    if (shown < show) { shown++; console.log(`  ${r.id} ${r.task}: ${boxes.length} strips vs ${gt} lines (${img.width}x${img.height})`); }
  }
  nstrips += boxes.length;
  if (full && r.task === 'text' && !r.target.includes('$')) {
    const parts: string[] = [];
    for (const b of boxes) {
      const p = prepareStrip(crop(img, b), maxw);
      if (p.contentWidth >= maxw) clamped++;
      frames += p.width / 8;
      const y = (await full.run({ x: new ort.Tensor('float32', p.data, [1, 3, 48, p.width]) }))[full.outputNames[0]];
      parts.push(ctcGreedy(y.data as Float32Array, y.dims[1], y.dims[2], labels).trim());
    }
    const hyp = parts.join(' ');
    errs += levenshtein(hyp, r.target);
    chars += [...r.target].length;
  }
}
const sec = (performance.now() - t0) / 1000;
for (const [k, s] of Object.entries(agree)) {
  console.log(`${k}: strips == GT lines ${s.eq}/${s.n} (${((100 * s.eq) / s.n).toFixed(1)} %), more ${s.over}, fewer ${s.under}`);
}
if (read) console.log(`PP-OCR read of text strips (no-math targets): CER ${(errs / Math.max(1, chars)).toFixed(4)} over ${chars} chars, ${(frames / Math.max(1, chars)).toFixed(2)} frames/char, ${clamped} strips width-clamped at ${maxw}`);
console.log(`${recs.length} samples, ${nstrips} strips, ${sec.toFixed(1)} s`);
