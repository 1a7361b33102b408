/**
 * npm run bench:decode [-- --quick] [--models DIR] [--data DIR] [--backend webgpu|cpu] [--max-new N] [--regions N]
 *
 * The region-level part of the benchmark without a browser: the engine in Node (onnxruntime-node
 * vision, WGSL decoder through the `webgpu` package when an adapter exists, else the CPU
 * reference), each test region read by AR and by self-spec one at a time. Prints and writes
 * bench/out/decode.json: decode-only and region end-to-end speed, TPF, acceptance, equality,
 * quality. Same code as the browser's regions section (bench/core/regions.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { parseArgs } from '../tools/synth/args.ts';
import { decodePng } from '../tools/synth/png.ts';
import { OcrEngine } from '../src/engine/engine.ts';
import type { OrtModuleLike } from '../src/recognizer/vision.ts';
import { diskFetcher, nodeGpuDevice } from '../tools/cli/node-engine.ts';
import { byLength, byType, equalityRate, pairRecords, quality, speedPair } from '../src/eval/summary.ts';
import { TimedBackend } from './core/timed-backend.ts';
import { runRegions, warmUp, type RegionSample } from './core/regions.ts';
import { TruthLayout } from './core/pages.ts';
import { pickRegions, prepareData } from './prepare.ts';

const a = parseArgs(process.argv.slice(2), { quick: 'boolean', models: 'string', data: 'string', backend: 'string', 'max-new': 'number', regions: 'number', seed: 'number', pages: 'number' });
const quick = Boolean(a.quick);
const modelsDir = resolve((a.models as string | undefined) ?? 'public/models');
const seed = (a.seed as number | undefined) ?? 0;
const nPages = (a.pages as number | undefined) ?? (quick ? 2 : 10);
const dataDir = (a.data as string | undefined) ?? `bench/out/data/test-s${seed}-n${nPages}`;
const maxNew = (a['max-new'] as number | undefined) ?? (quick ? 16 : 768);
const log = (s: string) => console.error(`[bench:decode] ${s}`);

async function main() {
  if (!existsSync(join(modelsDir, 'default.json'))) {
    throw new Error(`no model index at ${modelsDir}/default.json. For a dry run: node --import tsx bench/dev-model.ts && npm run bench:decode -- --quick --models bench/out/dev-models`);
  }
  const data = prepareData({ dir: dataDir, pages: nPages, seed });
  let crops = pickRegions(data.crops, quick ? { text: 1, table: 1, formula: 1 } : null);
  if (a.regions) crops = crops.slice(0, a.regions as number);
  const samples: RegionSample[] = crops.map((c) => ({ id: c.id, page: c.page, task: c.task, cls: c.cls, target: c.target, image: decodePng(readFileSync(join(data.cropsDir, c.image))) }));
  const gpu = a.backend === 'cpu' ? null : await nodeGpuDevice();
  if (a.backend === 'webgpu' && !gpu) throw new Error('no WebGPU adapter in Node (needs chromium + libvulkan1 for SwiftShader)');
  const engine = await OcrEngine.load(diskFetcher(modelsDir), {
    ort: ort as unknown as OrtModuleLike,
    ortSessionOptions: { intraOpNumThreads: 1 },
    prefer: gpu ? 'webgpu' : 'cpu',
    device: gpu?.device,
    deviceDescription: gpu?.description,
    makeLayout: async () => new TruthLayout(),
  });
  const backend = new TimedBackend(engine.decoder, gpu?.device);
  const ctx = { engine, backend, log };
  const knobs = { maxNewTokens: maxNew, blockSize: 32 };
  log(`${samples.length} regions, backend ${engine.backend}, max ${maxNew} new tokens`);
  if (samples.length) await warmUp(ctx, samples[0], knobs);
  const { records } = await runRegions(ctx, samples, knobs);
  const pairs = pairRecords(records);
  const idx = JSON.parse(readFileSync(join(modelsDir, 'default.json'), 'utf8'));
  const out = {
    date: new Date().toISOString(),
    backend: engine.backend,
    model: { id: idx.recognizer, sha256: createHash('sha256').update(readFileSync(join(modelsDir, idx.recognizer, 'model.safetensors'))).digest('hex') },
    settings: { max_new_tokens: maxNew, block_size: 32, quick },
    decode: speedPair(pairs, 'decode'),
    region_e2e: speedPair(pairs, 'region_e2e'),
    equality_rate: equalityRate(pairs),
    by_type: byType(pairs),
    by_length: byLength(pairs),
    quality: { selfspec: quality(records.filter((r) => r.method === 'selfspec')), ar: quality(records.filter((r) => r.method === 'ar')) },
  };
  mkdirSync('bench/out', { recursive: true });
  writeFileSync('bench/out/decode.json', JSON.stringify(out, null, 1) + '\n');
  const f = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  console.log(`backend ${out.backend}; ${pairs.length} regions`);
  console.log(`decode-only: AR ${f(out.decode.ar_tok_s)} tok/s, self-spec ${f(out.decode.spec_tok_s)} tok/s, speedup ${f(out.decode.speedup)}x, TPF ${f(out.decode.tpf)}, accepted/round ${f(out.decode.accepted_per_round)}`);
  console.log(`region e2e:  AR ${f(out.region_e2e.ar_tok_s)} tok/s, self-spec ${f(out.region_e2e.spec_tok_s)} tok/s, speedup ${f(out.region_e2e.speedup)}x`);
  console.log(`equality rate ${f(out.equality_rate)}; wrote bench/out/decode.json`);
  engine.dispose();
}

main().catch((e) => {
  console.error(`bench:decode: ${(e as Error).message ?? e}`);
  process.exit(1);
});
