/**
 * The TypeScript decoders replayed on the val regions the Python reference decoded:
 *
 *   /usr/bin/python3 training/evaluate.py --model public/models/<id> --n_per_task N --out E.json --dump R.jsonl
 *   npm run parity:val -- --records R.jsonl [--model public/models/<id>] [--features data/features/val]
 *                         [--backend cpu|webgpu|both] [--limit N] [--per_task N] [--offset K] [--out out.json]
 *
 * For every region in R.jsonl: the same packed features and max_new, greedy AR and self-spec
 * (the block size of the dump) on each TS backend (CPU reference; WGSL via the `webgpu` package).
 * Reports per backend: self-spec ≡ AR (ids), ids ≡ Python AR, self-spec forwards ≡ Python
 * (draft + verify), pooled TPF beside Python's. Exits 1 when any of those differ.
 */
import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from '../synth/args.ts';
import { decodeAR } from '../../src/decoding/ar.ts';
import { decodeSelfSpec } from '../../src/decoding/selfspec.ts';
import type { DecodeResult } from '../../src/decoding/trace.ts';
import { buildPrefix, createDecoder, loadModel, type DecoderBackend } from '../../src/recognizer/model.ts';
import { f16ToF32 } from '../../src/recognizer/safetensors.ts';
import { nodeGpuDevice } from '../cli/node-engine.ts';

interface PyRecord {
  id: string;
  task: 'text' | 'table' | 'formula';
  /** one cap per unit when the region was read line by line (`units`: [row offset, rows]) */
  max_new: number | number[];
  units?: [number, number][] | null;
  block_size: number;
  ar_ids: number[];
  sp_ids: number[];
  sp_forwards: number;
}
interface FeatRecord {
  id: string;
  task: string;
  offset: number;
  strips: number[];
}

/** Reads one sample's rows [n, dim] from features.f16 (little-endian half floats). */
export function readRows(fd: number, offset: number, rows: number, dim: number): Float32Array {
  const buf = Buffer.alloc(rows * dim * 2);
  readSync(fd, buf, 0, buf.length, offset * dim * 2);
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = f16ToF32(buf.readUInt16LE(2 * i));
  return out;
}

const withEos = (r: DecodeResult, eos: number) => (r.stop === 'eos' ? [...r.tokens, eos] : [...r.tokens]);

async function main() {
  const a = parseArgs(process.argv.slice(2), { records: 'string', model: 'string', features: 'string', backend: 'string', limit: 'number', per_task: 'number', offset: 'number', out: 'string' });
  if (!a.records) throw new Error('--records R.jsonl is required (training/evaluate.py --dump R.jsonl)');
  const modelDir = (a.model as string | undefined) ?? 'public/models/gocr-v1';
  const featDir = (a.features as string | undefined) ?? 'data/features/val';
  const which = (a.backend as string | undefined) ?? 'both';
  let recs = readFileSync(a.records as string, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as PyRecord);
  // --per_task N: the first N records of each task (a balanced subset when a full replay is too slow);
  // --offset K / --limit N: a window of the (filtered) list, to split a long replay into parts
  if (a.per_task) {
    const seen: Record<string, number> = {};
    recs = recs.filter((r) => (seen[r.task] = (seen[r.task] ?? 0) + 1) <= (a.per_task as number));
  }
  if (a.offset) recs = recs.slice(a.offset as number);
  if (a.limit) recs = recs.slice(0, a.limit as number);
  const index = new Map<string, FeatRecord>();
  for (const l of readFileSync(join(featDir, 'index.jsonl'), 'utf8').split('\n')) if (l.trim()) {
    const r = JSON.parse(l) as FeatRecord;
    index.set(r.id, r);
  }
  const { weights, config } = loadModel(readFileSync(join(modelDir, 'model.safetensors')), readFileSync(join(modelDir, 'config.json'), 'utf8'));
  const fd = openSync(join(featDir, 'features.f16'), 'r');
  const backends: DecoderBackend[] = [];
  if (which === 'cpu' || which === 'both') backends.push(await createDecoder(weights, config, { prefer: 'cpu' }));
  if (which === 'webgpu' || which === 'both') {
    const gpu = await nodeGpuDevice();
    if (!gpu) throw new Error('no WebGPU adapter in Node (needs chromium + libvulkan1 for SwiftShader)');
    backends.push(await createDecoder(weights, config, { prefer: 'webgpu', device: gpu.device, deviceDescription: gpu.description }));
  }
  const report: Record<string, unknown> = { model: modelDir, records: a.records, regions: recs.length, backends: {} };
  let ok = true;
  for (const be of backends) {
    const s = { regions: 0, spec_eq_ar: 0, ar_eq_python: 0, spec_eq_python: 0, forwards_eq_python: 0, tokens: 0, forwards: 0, py_tokens: 0, py_forwards: 0, differing: [] as string[] };
    const byTask: Record<string, { n: number; tokens: number; forwards: number; py_tokens: number; py_forwards: number }> = {};
    const t0 = performance.now();
    for (const [i, r] of recs.entries()) {
      const f = index.get(r.id);
      if (!f) throw new Error(`${r.id}: not in ${featDir}/index.jsonl (same split as the dump?)`);
      const rows = f.strips.reduce((x, y) => x + y, 0);
      const feats = readRows(fd, f.offset, rows, config.vision_dim);
      const tid = [config.task_ids[r.task]];
      // whole region, or (text read line by line) one sequence per unit, each alone like Python
      const units = r.units ?? [[0, rows]];
      const caps = Array.isArray(r.max_new) ? r.max_new : [r.max_new];
      const arIds: number[] = [], spIds: number[] = [];
      let fw = 0;
      for (const [j, [off, n]] of units.entries()) {
        const v = feats.subarray(off * config.vision_dim, (off + n) * config.vision_dim);
        const prefix = buildPrefix(v, r.units ? [n] : f.strips, tid, config);
        const [ar] = await decodeAR(be, [prefix], { maxNewTokens: caps[j] });
        const [sp] = await decodeSelfSpec(be, [prefix], { maxNewTokens: caps[j], blockSize: r.block_size });
        arIds.push(...withEos(ar, config.eos_id));
        spIds.push(...withEos(sp, config.eos_id));
        fw += sp.trace.forwards.draft + sp.trace.forwards.verify;
      }
      const eq = arIds.join() === spIds.join();
      const eqPy = arIds.join() === r.ar_ids.join();
      s.regions++;
      s.spec_eq_ar += +eq;
      s.ar_eq_python += +eqPy;
      s.spec_eq_python += +(spIds.join() === r.sp_ids.join());
      s.forwards_eq_python += +(fw === r.sp_forwards);
      s.tokens += spIds.length;
      s.forwards += fw;
      s.py_tokens += r.sp_ids.length;
      s.py_forwards += r.sp_forwards;
      const bt = (byTask[r.task] ??= { n: 0, tokens: 0, forwards: 0, py_tokens: 0, py_forwards: 0 });
      bt.n++;
      bt.tokens += spIds.length;
      bt.forwards += fw;
      bt.py_tokens += r.sp_ids.length;
      bt.py_forwards += r.sp_forwards;
      if (!eq || !eqPy || fw !== r.sp_forwards) {
        s.differing.push(r.id);
        console.error(`[parity ${be.kind}] ${r.id} differs: AR ${JSON.stringify(arIds)} | self-spec ${JSON.stringify(spIds)} (${fw} forwards) | Python AR ${JSON.stringify(r.ar_ids)} (self-spec ${r.sp_forwards} forwards)`);
      }
      console.error(`[parity ${be.kind}] ${i + 1}/${recs.length} (${((performance.now() - t0) / 1000).toFixed(0)} s), ${r.task} ${spIds.length} tok, differing so far ${s.differing.length}`);
    }
    const tasks = Object.fromEntries(Object.entries(byTask).map(([k, v]) => [k, { n: v.n, tpf: v.tokens / Math.max(1, v.forwards), python_tpf: v.py_tokens / Math.max(1, v.py_forwards) }]));
    const res = {
      ...s,
      tpf: s.tokens / Math.max(1, s.forwards),
      python_tpf: s.py_tokens / Math.max(1, s.py_forwards),
      by_task: tasks,
      seconds: (performance.now() - t0) / 1000,
    };
    (report.backends as Record<string, unknown>)[be.kind] = res;
    if (s.differing.length) ok = false;
    console.log(`${be.kind}: ${s.regions} regions; self-spec ≡ AR ${s.spec_eq_ar}/${s.regions}; AR ≡ Python ${s.ar_eq_python}/${s.regions}; self-spec ≡ Python ${s.spec_eq_python}/${s.regions}; forwards ≡ Python ${s.forwards_eq_python}/${s.regions}; TPF ${res.tpf.toFixed(4)} (Python ${res.python_tpf.toFixed(4)})`);
    be.dispose();
  }
  closeSync(fd);
  if (a.out) writeFileSync(a.out as string, JSON.stringify(report, null, 1) + '\n');
  process.exit(ok ? 0 : 1);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  main().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  });
}
