// Region-level runs (DOM-free; the browser page and the Node decode bench both use them):
// each region read by AR and by self-spec one at a time (quality, decode-only and region e2e
// speed, equality), direct diffusion at several thresholds, and batch scaling.
import { decodeAR } from '../../src/decoding/ar.ts';
import { decodeDiffusion } from '../../src/decoding/diffusion.ts';
import { decodeSelfSpec } from '../../src/decoding/selfspec.ts';
import type { DecodeResult } from '../../src/decoding/trace.ts';
import type { OcrEngine } from '../../src/engine/engine.ts';
import type { Image } from '../../src/recognizer/image.ts';
import type { PrefixInput } from '../../src/recognizer/model.ts';
import { quality, forwardsOf, type QualitySummary, type RegionRecord, type Task } from '../../src/eval/summary.ts';
import { perSecond, ratio } from '../../src/eval/stats.ts';
import { now, TimedBackend } from './timed-backend.ts';

export interface RegionSample {
  id: string;
  page: string;
  task: Task;
  cls: string;
  target: string;
  image: Image;
}

export interface BenchContext {
  engine: OcrEngine;
  backend: TimedBackend;
  log: (s: string) => void;
}

export interface DecodeKnobs {
  maxNewTokens: number;
  blockSize: number;
}

type Method = 'ar' | 'selfspec';

async function decodeWith(ctx: BenchContext, method: Method | 'diffusion', prefixes: PrefixInput[], k: DecodeKnobs, threshold = 0.9): Promise<{ results: DecodeResult[]; wallMs: number; prefillMs: number }> {
  ctx.backend.reset();
  const t = now();
  const opts = { maxNewTokens: k.maxNewTokens };
  const results =
    method === 'ar'
      ? await decodeAR(ctx.backend, prefixes, opts)
      : method === 'selfspec'
        ? await decodeSelfSpec(ctx.backend, prefixes, { ...opts, blockSize: k.blockSize })
        : await decodeDiffusion(ctx.backend, prefixes, { ...opts, blockSize: k.blockSize, threshold });
  return { results, wallMs: now() - t, prefillMs: ctx.backend.prefillMs };
}

/** A region's record from the decodes of its units (a text region: one per line; else one). */
function toRecord(ctx: BenchContext, s: RegionSample, method: RegionRecord['method'], units: DecodeResult[], visionMs: number, prefillMs: number, decodeMs: number): RegionRecord {
  const m = ctx.engine.mergeUnits(units);
  return {
    id: s.id,
    task: s.task,
    cls: s.cls,
    target: s.target,
    method,
    text: m.text,
    ids: m.ids,
    committed: units.reduce((n, r) => n + r.trace.tokenRound.length, 0),
    forwards: m.forwards,
    accepted: units.flatMap((r) => r.trace.rounds.filter((x) => x.a0 !== null && (x.accepted > 0 || x.rejected !== null)).map((x) => x.accepted)),
    stop: m.stop,
    visionMs,
    prefillMs,
    decodeMs,
  };
}

/** Compiles shaders and warms caches so the first timed region is not charged for them. */
export async function warmUp(ctx: BenchContext, s: RegionSample, k: DecodeKnobs): Promise<void> {
  const { prefixes } = await ctx.engine.regionUnits(s.image, s.task);
  const small = { ...k, maxNewTokens: Math.min(k.maxNewTokens, 4) };
  await decodeWith(ctx, 'ar', prefixes, small);
  await decodeWith(ctx, 'selfspec', prefixes, small);
}

export interface RegionRunOutput {
  records: RegionRecord[];
  /** each region's decode units (engine.regionUnits: a text region's lines, else the region) */
  prefixes: Map<string, PrefixInput[]>;
}

/**
 * Every region read by AR and by self-spec, one region at a time: vision (crop → strips →
 * encoder), then prefill + decode of that region's units (as the engine reads it: a text region's
 * lines side by side in one batch, a table or formula as one sequence). The method order alternates per region so
 * slow drift of a shared machine does not favour one method.
 */
export async function runRegions(ctx: BenchContext, samples: RegionSample[], k: DecodeKnobs, shouldStop: () => boolean = () => false): Promise<RegionRunOutput> {
  const records: RegionRecord[] = [];
  const prefixes = new Map<string, PrefixInput[]>();
  for (let i = 0; i < samples.length; i++) {
    if (shouldStop()) {
      ctx.log(`regions: time budget reached after ${i} of ${samples.length}`);
      break;
    }
    const s = samples[i];
    const order: Method[] = i % 2 === 0 ? ['ar', 'selfspec'] : ['selfspec', 'ar'];
    for (const m of order) {
      const t0 = now();
      const u = await ctx.engine.regionUnits(s.image, s.task);
      const visionMs = now() - t0;
      prefixes.set(s.id, u.prefixes);
      const d = await decodeWith(ctx, m, u.prefixes, k);
      records.push(toRecord(ctx, s, m, d.results, visionMs, d.prefillMs, d.wallMs - d.prefillMs));
    }
    const a = records[records.length - 2], b = records[records.length - 1];
    const spec = a.method === 'selfspec' ? a : b;
    ctx.log(`region ${i + 1}/${samples.length} ${s.id} (${s.task}): ${spec.committed} tokens, TPF ${(spec.committed / Math.max(1, forwardsOf(spec))).toFixed(2)}, equal ${a.ids.join() === b.ids.join()}`);
  }
  return { records, prefixes };
}

export interface DiffusionResult {
  threshold: number;
  quality: QualitySummary;
  tpf: number | null;
  /** Decode-only throughput of the batched run (not comparable with batch-1 numbers). */
  tok_s: number | null;
  batch: number;
}

/** Direct block diffusion at each threshold over the same prefixes (batched: quality and TPF do not depend on batching). */
export async function runDiffusion(ctx: BenchContext, samples: RegionSample[], prefixes: Map<string, PrefixInput[]>, thresholds: number[], k: DecodeKnobs, batch = 8): Promise<{ results: DiffusionResult[]; records: Record<string, RegionRecord[]> }> {
  const have = samples.filter((s) => prefixes.has(s.id));
  const results: DiffusionResult[] = [];
  const all: Record<string, RegionRecord[]> = {};
  for (const thr of thresholds) {
    const recs: RegionRecord[] = [];
    let ms = 0;
    for (let i = 0; i < have.length; i += batch) {
      const chunk = have.slice(i, i + batch);
      const units = chunk.map((s) => prefixes.get(s.id)!);
      const d = await decodeWith(ctx, 'diffusion', units.flat(), k, thr);
      ms += d.wallMs - d.prefillMs;
      let q = 0;
      chunk.forEach((s, j) => {
        recs.push(toRecord(ctx, s, 'diffusion', d.results.slice(q, q + units[j].length), 0, 0, 0));
        q += units[j].length;
      });
    }
    const tokens = recs.reduce((s, r) => s + r.committed, 0);
    const fw = recs.reduce((s, r) => s + forwardsOf(r), 0);
    results.push({ threshold: thr, quality: quality(recs), tpf: fw ? tokens / fw : null, tok_s: perSecond(tokens, ms), batch });
    all[String(thr)] = recs;
    ctx.log(`diffusion @${thr}: TPF ${fw ? (tokens / fw).toFixed(2) : '-'}`);
  }
  return { results, records: all };
}

export interface BatchPoint {
  concurrent: number;
  sequences: number;
  ar_tok_s: number | null;
  spec_tok_s: number | null;
  speedup: number | null;
  spec_tpf: number | null;
}

/**
 * Throughput at 1, 4, 16 concurrent sequences: the same pool of `pool` prefixes (repeated when
 * there are fewer regions) decoded in batches of n by each method; decode-only time.
 */
export async function runBatchScaling(ctx: BenchContext, pool: PrefixInput[], sizes: number[], k: DecodeKnobs): Promise<BatchPoint[]> {
  const out: BatchPoint[] = [];
  for (const n of sizes) {
    const res: Record<Method, { tokens: number; ms: number; forwards: number }> = { ar: { tokens: 0, ms: 0, forwards: 0 }, selfspec: { tokens: 0, ms: 0, forwards: 0 } };
    for (let i = 0; i < pool.length; i += n) {
      const chunk = pool.slice(i, i + n);
      const order: Method[] = (i / n) % 2 === 0 ? ['ar', 'selfspec'] : ['selfspec', 'ar'];
      for (const m of order) {
        const d = await decodeWith(ctx, m, chunk, k);
        res[m].ms += d.wallMs - d.prefillMs;
        for (const r of d.results) {
          res[m].tokens += r.trace.tokenRound.length;
          const f = r.trace.forwards;
          res[m].forwards += f.ar + f.draft + f.verify + f.cacheWrite;
        }
      }
    }
    const ar = perSecond(res.ar.tokens, res.ar.ms), spec = perSecond(res.selfspec.tokens, res.selfspec.ms);
    out.push({ concurrent: n, sequences: pool.length, ar_tok_s: ar, spec_tok_s: spec, speedup: ratio(spec, ar), spec_tpf: res.selfspec.forwards ? res.selfspec.tokens / res.selfspec.forwards : null });
    ctx.log(`batch ${n}: AR ${ar?.toFixed(1)} tok/s, self-spec ${spec?.toFixed(1)} tok/s`);
  }
  return out;
}

/** Picks a pool of `size` prefixes, cycling through what there is. */
export function prefixPool(prefixes: PrefixInput[], size: number): PrefixInput[] {
  if (!prefixes.length) return [];
  return Array.from({ length: size }, (_, i) => prefixes[i % prefixes.length]);
}
