/**
 * Prepared recognizer strips as bytes, for computing features elsewhere (a GPU machine with
 * PyTorch but no Node: training/gocr/strips.py runs the backbone port on them).
 *
 *   npm run strips -- --in data/crops/train --out data/strips/train [--limit N] [--tasks formula,table] [--scale 2]
 *
 * Each crop is split and resized exactly as `npm run features` does (splitStrips, prepareStrip);
 * the padded 48 × W strip is stored as uint8 (one plane when R = G = B, else three, planar),
 * zlib-deflated, back to back in `strips.bin`. `index.jsonl`: {"id","task","target",
 * "strips":[[width, channels, byte offset, byte length], ...], "scale"}. Rounding the float resize to uint8
 * moves a normalized input by ≤ 1/255. `--scale s` stores the strips an encoder of input scale s
 * takes (s·48 high, s·W wide; src/recognizer/vision.ts).
 */
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deflateSync } from 'node:zlib';
import { crop } from '../../src/recognizer/image.ts';
import { splitStrips, type Task } from '../../src/recognizer/strips.ts';
import { prepareStrip, STRIP_HEIGHT } from '../../src/recognizer/vision.ts';
import { parseArgs, resolveImage } from './features.ts';
import { readPng } from './png.ts';

/** NCHW floats (v/255 − 0.5)/0.5 of one strip → uint8 planes (1 when the three are equal). */
export function stripBytes(data: Float32Array, width: number, height = STRIP_HEIGHT): { bytes: Uint8Array; channels: number } {
  const plane = height * width;
  const u8 = new Uint8Array(3 * plane);
  for (let i = 0; i < u8.length; i++) u8[i] = Math.max(0, Math.min(255, Math.round((data[i] * 0.5 + 0.5) * 255)));
  let gray = true;
  for (let i = 0; i < plane && gray; i++) gray = u8[i] === u8[plane + i] && u8[i] === u8[2 * plane + i];
  return gray ? { bytes: u8.subarray(0, plane), channels: 1 } : { bytes: u8, channels: 3 };
}

function main(): void {
  const a = parseArgs(process.argv.slice(2));
  if (!a.in || !a.out) {
    console.error('usage: npm run strips -- --in data/crops/<split> --out data/strips/<split> [--limit N] [--tasks formula,table]');
    process.exit(2);
  }
  const scale = a.scale ? Number(a.scale) : 1;
  if (!Number.isInteger(scale) || scale < 1 || scale > 4) {
    console.error(`--scale: an integer 1..4, got "${a.scale}"`);
    process.exit(2);
  }
  const tasks = a.tasks ? new Set(a.tasks.split(',').map((t) => t.trim())) : null;
  for (const t of tasks ?? []) {
    if (t !== 'text' && t !== 'table' && t !== 'formula') {
      console.error(`--tasks: unknown task "${t}" (text, table, formula)`);
      process.exit(2);
    }
  }
  const records = readFileSync(join(a.in, 'index.jsonl'), 'utf8').split('\n').filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id: string; task: Task; target: string; image: string })
    .filter((r) => !tasks || tasks.has(r.task))
    .slice(0, a.limit ? Number(a.limit) : Infinity);
  mkdirSync(a.out, { recursive: true });
  const bin = openSync(join(a.out, 'strips.bin'), 'w');
  const idx = openSync(join(a.out, 'index.jsonl'), 'w');
  let off = 0;
  let n = 0;
  let skipped = 0;
  const t0 = performance.now();
  try {
    for (const r of records) {
      let img;
      try {
        img = readPng(resolveImage(a.in, r.image));
      } catch (e) {
        skipped++;
        console.error(`skip ${r.id}: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      const strips: number[][] = [];
      for (const b of splitStrips(img, r.task)) {
        const p = prepareStrip(crop(img, b), undefined, scale);
        const { bytes, channels } = stripBytes(p.data, p.width, p.height);
        const z = deflateSync(bytes, { level: 9 });
        writeSync(bin, z);
        strips.push([p.width, channels, off, z.length]);
        off += z.length;
      }
      writeSync(idx, JSON.stringify({ id: r.id, task: r.task, target: r.target, strips, scale }) + '\n');
      n++;
    }
  } finally {
    closeSync(bin);
    closeSync(idx);
  }
  const s = (performance.now() - t0) / 1000;
  console.log(`${n} samples (${skipped} skipped), ${(off / 1e6).toFixed(1)} MB of strips -> ${a.out} (${s.toFixed(0)} s)`);
}

const isMain = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain) main();
