/**
 * Pack frozen vision features for training (docs/ARCHITECTURE.md "Packed features").
 *
 *   npm run features -- --in data/crops/train --out data/features/train [--limit N] [--threads 2] [--spin 1] [--resume 1]
 *
 * Reads `<in>/index.jsonl` (`{"id","task","target","image",...}`; `image` relative to `<in>`,
 * or to the working directory if not found there) and the PNG crops, splits each crop into strips
 * (src/recognizer/strips.ts), runs the PP-OCRv4 backbone (onnxruntime-node) on every strip and
 * writes to `<out>/`:
 *   features.f16  little-endian float16, rows of 120, all samples back to back
 *   index.jsonl   {"id","task","target","offset":row0,"strips":[rows per strip]}
 *   meta.json     {"vision_dim","rows","samples","model","model_sha256","strip_height",...}
 * Also reports lines (strips) per second and, when the input has ground-truth `lines`, how often
 * the strip count equals the line count (per task).
 */
import { createHash } from 'node:crypto';
import {
  closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { crop, type Image } from '../../src/recognizer/image.ts';
import { splitStrips, type Task } from '../../src/recognizer/strips.ts';
import {
  MAX_STRIP_WIDTH, prepareStrip, STRIP_HEIGHT, VISION_DIM, VisionEncoder, type OrtModuleLike, type PreparedStrip,
} from '../../src/recognizer/vision.ts';
import { readPng } from './png.ts';

export const DEFAULT_MODEL = 'public/models/vision/ppocr-v4-rec-backbone.onnx';

/** float32 → IEEE half bits, round to nearest even (handles subnormals, inf, nan). */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
export function toHalfBits(v: number): number {
  f32[0] = v;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf / nan
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow → inf
  if (e <= 0) {
    if (e < -10) return sign; // underflow → ±0
    mant |= 0x800000; // implicit bit
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++; // may carry into exponent: still correct
  return sign | h;
}

export function toFloat16Bytes(src: Float32Array): Uint8Array {
  const out = new Uint8Array(src.length * 2);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < src.length; i++) dv.setUint16(2 * i, toHalfBits(src[i]), true);
  return out;
}

interface InRecord {
  id: string;
  task: Task;
  target: string;
  image: string;
  lines?: number[][];
  [k: string]: unknown;
}

export function parseArgs(argv: string[]): Record<string, string> {
  const a: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (!k.startsWith('--')) throw new Error(`unexpected argument ${k}`);
    a[k.slice(2)] = argv[i + 1] ?? '';
    i++;
  }
  return a;
}

export function resolveImage(inDir: string, p: string): string {
  if (isAbsolute(p)) return p;
  const a = join(inDir, p);
  if (existsSync(a)) return a;
  return resolve(p);
}

export interface PackOptions {
  inDir: string;
  outDir: string;
  model?: string;
  threads?: number;
  limit?: number;
  /** Let onnxruntime's intra-op threads spin (faster on an idle machine). Default false. */
  spin?: boolean;
  /**
   * Continue an interrupted run: keep the samples already in `<out>/index.jsonl` (features.f16 is
   * truncated to the rows they own) and append the rest. Default false (start over).
   */
  resume?: boolean;
  log?: (msg: string) => void;
}

export interface PackStats {
  samples: number;
  skipped: number;
  strips: number;
  rows: number;
  clamped: number;
  seconds: number;
  stripsPerSecond: number;
  /** Per task: samples with ground-truth lines, equal / more / fewer strips than lines. */
  agreement: Record<string, { n: number; eq: number; over: number; under: number }>;
}

/** Pack the features of one split; see the file comment. */
export async function packFeatures(o: PackOptions): Promise<PackStats> {
  const { inDir, outDir } = o;
  const model = o.model ?? DEFAULT_MODEL;
  const threads = o.threads ?? 2;
  const log = o.log ?? ((m: string) => console.log(m));
  const records: InRecord[] = readFileSync(join(inDir, 'index.jsonl'), 'utf8')
    .split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as InRecord)
    .slice(0, o.limit ?? Infinity);

  mkdirSync(outDir, { recursive: true });
  const enc = await VisionEncoder.create(ort as unknown as OrtModuleLike, model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    // No busy-waiting of the intra-op threads: on a shared 2-core machine spinning made runs
    // ~3x slower (317 vs 101 ms per 700-px strip with 2 threads under load).
    extra: { session: { intra_op: { allow_spinning: o.spin ? '1' : '0' } } },
  });
  // index.jsonl is appended line by line, so a partial run is a valid (shorter) split.
  const idxPath = join(outDir, 'index.jsonl');
  const featPath = join(outDir, 'features.f16');
  const done = new Set<string>();
  let rows = 0;
  let kept = 0;
  if (o.resume && existsSync(idxPath) && existsSync(featPath)) {
    const lines = readFileSync(idxPath, 'utf8').split('\n');
    const good: string[] = [];
    for (const l of lines) {
      if (!l.trim()) continue;
      let r: { id: string; offset: number; strips: number[] };
      try { r = JSON.parse(l); } catch { break; } // torn last line
      if (r.offset !== rows) break;
      good.push(l);
      done.add(r.id);
      rows += r.strips.reduce((a, b) => a + b, 0);
    }
    if (statSync(featPath).size < rows * VISION_DIM * 2) throw new Error('resume: features.f16 is shorter than its index');
    truncateSync(featPath, rows * VISION_DIM * 2);
    writeFileSync(idxPath, good.map((l) => l + '\n').join(''));
    kept = good.length;
    log(`resume: keeping ${kept} samples, ${rows} rows`);
  } else {
    writeFileSync(idxPath, '');
    writeFileSync(featPath, new Uint8Array(0));
  }
  const todo = records.filter((r) => !done.has(r.id));
  const fFd = openSync(featPath, 'a');
  const iFd = openSync(idxPath, 'a');
  let written = 0;
  let strips = 0;
  let clamped = 0;
  const agree: PackStats['agreement'] = {};
  const t0 = performance.now();
  let last = t0;

  // Prepare the next sample (PNG decode, split, resize) while the current one runs.
  // A sample whose image cannot be read is skipped (and counted), not fatal for a long run.
  let skipped = 0;
  const prep = (r: InRecord): { r: InRecord; strips: PreparedStrip[]; n: number } => {
    let img: Image;
    try {
      img = readPng(resolveImage(inDir, r.image));
    } catch (e) {
      skipped++;
      log(`skip ${r.id}: ${e instanceof Error ? e.message : String(e)}`);
      return { r, strips: [], n: 0 };
    }
    const boxes = splitStrips(img, r.task);
    const ps = boxes.map((b) => prepareStrip(crop(img, b)));
    return { r, strips: ps, n: boxes.length };
  };
  try {
    let next = todo.length > 0 ? prep(todo[0]) : null;
    for (let i = 0; i < todo.length; i++) {
      const cur = next!;
      // One strip at a time (the session already uses `threads` cores); the first run is issued
      // before the next sample is prepared on this thread.
      const running = (async () => {
        const out: Float32Array[] = [];
        for (const p of cur.strips) out.push(await enc.runPrepared(p));
        return out;
      })();
      next = i + 1 < todo.length ? prep(todo[i + 1]) : null;
      const feats = await running;
      if (cur.strips.length === 0) continue; // skipped
      const stripRows = feats.map((f) => f.length / VISION_DIM);
      for (const f of feats) writeSync(fFd, toFloat16Bytes(f));
      const r = cur.r;
      writeSync(iFd, JSON.stringify({ id: r.id, task: r.task, target: r.target, offset: rows, strips: stripRows }) + '\n');
      written++;
      rows += stripRows.reduce((a, b) => a + b, 0);
      strips += feats.length;
      clamped += cur.strips.filter((p) => p.contentWidth >= MAX_STRIP_WIDTH).length;
      if (Array.isArray(r.lines)) {
        const s = (agree[r.task] ??= { n: 0, eq: 0, over: 0, under: 0 });
        s.n++;
        if (cur.n === r.lines.length) s.eq++;
        else if (cur.n > r.lines.length) s.over++;
        else s.under++;
      }
      const now = performance.now();
      if (now - last > 15_000) {
        last = now;
        const sec = (now - t0) / 1000;
        log(`${i + 1}/${todo.length} samples, ${strips} strips, ${(strips / sec).toFixed(1)} strips/s`);
      }
    }
  } finally {
    closeSync(fFd);
    closeSync(iFd);
    await enc.release();
  }
  const seconds = (performance.now() - t0) / 1000;
  const meta = {
    vision_dim: VISION_DIM,
    dtype: 'float16-le',
    rows,
    samples: kept + written,
    skipped,
    strips,
    strip_height: STRIP_HEIGHT,
    max_strip_width: MAX_STRIP_WIDTH,
    clamped_strips: clamped,
    model,
    model_sha256: createHash('sha256').update(readFileSync(model)).digest('hex'),
    source: resolve(inDir),
  };
  writeFileSync(join(outDir, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  return {
    samples: kept + written, skipped, strips, rows, clamped, seconds,
    stripsPerSecond: strips / seconds, agreement: agree,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.in || !args.out) {
    console.error('usage: npm run features -- --in data/crops/<split> --out data/features/<split> [--limit N] [--threads 2] [--spin 1] [--resume 1] [--model path]');
    process.exit(2);
  }
  const s = await packFeatures({
    inDir: args.in, outDir: args.out, model: args.model,
    threads: args.threads ? Number(args.threads) : 2,
    limit: args.limit ? Number(args.limit) : undefined,
    spin: args.spin === '1',
    resume: args.resume === '1',
  });
  console.log(`done: ${s.samples} samples (${s.skipped} skipped), ${s.strips} strips (${s.clamped} width-clamped), ${s.rows} rows -> ${args.out}`);
  console.log(`time ${s.seconds.toFixed(1)} s: ${s.stripsPerSecond.toFixed(1)} strips(lines)/s, ${(s.samples / s.seconds).toFixed(1)} samples/s`);
  for (const [task, a] of Object.entries(s.agreement)) {
    console.log(`strip count == ground-truth line count [${task}]: ${a.eq}/${a.n} (${((100 * a.eq) / a.n).toFixed(1)} %), more strips ${a.over}, fewer ${a.under}`);
  }
}

const isMain = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main().catch((e) => { console.error(e); process.exit(1); });
}
