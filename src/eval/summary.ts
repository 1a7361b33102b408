// Turns per-region / per-page benchmark records into the report's numbers. Pure functions, so the
// arithmetic behind every field of bench/report.json is unit tested (no timing assertions: tests
// feed fixed durations).
import { formulaExact, formulaNes } from './formula.ts';
import { lengthBucket, LENGTH_BUCKETS, mean, perSecond, ratio } from './stats.ts';
import { tedsBoth } from './teds.ts';
import { corpusCer, textEdits, type EditCount } from './text.ts';

export type Task = 'text' | 'table' | 'formula';
export type SpeedMethod = 'ar' | 'selfspec';

/** One region decoded by one method, one region at a time (batch 1). */
export interface RegionRecord {
  id: string;
  task: Task;
  cls: string;
  target: string;
  method: SpeedMethod | 'diffusion';
  /** Decoded output text. */
  text: string;
  /** Token ids of the region's decode units back to back, each unit's EOS included when it
   *  stopped on one (a text region is read line by line): equality is checked on these. */
  ids: number[];
  /** Committed tokens including EOS (what TPF counts). */
  committed: number;
  forwards: { ar: number; draft: number; verify: number; cacheWrite: number };
  /** Accepted drafts per self-spec round (rounds that ran a verify). */
  accepted: number[];
  stop: string;
  visionMs: number;
  prefillMs: number;
  /** Decode time without prefill. */
  decodeMs: number;
}

export interface QualitySummary {
  regions: Record<Task, number>;
  /** Corpus CER over text regions (Σ edits / Σ reference characters). */
  text_cer: number | null;
  /** Mean of per-region CER over text regions. */
  text_cer_mean: number | null;
  table_teds: number | null;
  table_teds_struct: number | null;
  formula_nes: number | null;
  formula_exact: number | null;
  /** Regions cut by max_new_tokens (their scores include the cut). */
  truncated: number;
}

export function forwardsOf(r: Pick<RegionRecord, 'forwards'>): number {
  const f = r.forwards;
  return f.ar + f.draft + f.verify + f.cacheWrite;
}

export function quality(records: Pick<RegionRecord, 'task' | 'text' | 'target' | 'stop'>[]): QualitySummary {
  const edits: EditCount[] = [];
  const cers: number[] = [];
  const teds: number[] = [];
  const struct: number[] = [];
  const nes: number[] = [];
  const exact: number[] = [];
  const regions: Record<Task, number> = { text: 0, table: 0, formula: 0 };
  let truncated = 0;
  for (const r of records) {
    regions[r.task]++;
    if (r.stop !== 'eos') truncated++;
    if (r.task === 'text') {
      const e = textEdits(r.text, r.target);
      edits.push(e);
      cers.push(e.refChars ? e.edits / e.refChars : e.edits ? 1 : 0);
    } else if (r.task === 'table') {
      const s = tedsBoth(r.text, r.target);
      teds.push(s.teds);
      struct.push(s.tedsStruct);
    } else {
      nes.push(formulaNes(r.text, r.target));
      exact.push(formulaExact(r.text, r.target) ? 1 : 0);
    }
  }
  return {
    regions,
    text_cer: edits.length ? corpusCer(edits) : null,
    text_cer_mean: mean(cers),
    table_teds: mean(teds),
    table_teds_struct: mean(struct),
    formula_nes: mean(nes),
    formula_exact: mean(exact),
    truncated,
  };
}

export interface SpeedPair {
  regions: number;
  tokens: number;
  ar_tok_s: number | null;
  spec_tok_s: number | null;
  speedup: number | null;
  /** Self-spec tokens per forward, pooled (Σ committed / Σ forwards). */
  tpf: number | null;
  accepted_per_round: number | null;
}

interface Paired {
  ar: RegionRecord;
  spec: RegionRecord;
}

/** Pairs the AR and self-spec records of each region (regions missing either are left out). */
export function pairRecords(records: RegionRecord[]): Paired[] {
  const ar = new Map<string, RegionRecord>();
  const spec = new Map<string, RegionRecord>();
  for (const r of records) {
    if (r.method === 'ar') ar.set(r.id, r);
    else if (r.method === 'selfspec') spec.set(r.id, r);
  }
  const out: Paired[] = [];
  for (const [id, a] of ar) {
    const s = spec.get(id);
    if (s) out.push({ ar: a, spec: s });
  }
  return out;
}

export type Scope = 'decode' | 'region_e2e';

function scopeMs(r: RegionRecord, scope: Scope): number {
  return scope === 'decode' ? r.decodeMs : r.visionMs + r.prefillMs + r.decodeMs;
}

/**
 * Throughput of each method over the same regions: Σ committed tokens / Σ time, where time is
 * decode-only (no vision, no prefill) or region end-to-end (vision + prefill + decode).
 */
export function speedPair(pairs: Paired[], scope: Scope): SpeedPair {
  let tAr = 0, tSpec = 0, msAr = 0, msSpec = 0, fSpec = 0;
  let acc = 0, verifies = 0;
  for (const { ar, spec } of pairs) {
    tAr += ar.committed;
    tSpec += spec.committed;
    msAr += scopeMs(ar, scope);
    msSpec += scopeMs(spec, scope);
    fSpec += forwardsOf(spec);
    for (const k of spec.accepted) acc += k;
    verifies += spec.accepted.length;
  }
  const ar_tok_s = perSecond(tAr, msAr);
  const spec_tok_s = perSecond(tSpec, msSpec);
  return {
    regions: pairs.length,
    tokens: tSpec,
    ar_tok_s,
    spec_tok_s,
    speedup: ratio(spec_tok_s, ar_tok_s),
    tpf: fSpec ? tSpec / fSpec : null,
    accepted_per_round: verifies ? acc / verifies : null,
  };
}

/** Share of regions whose self-spec token ids equal AR's exactly. */
export function equalityRate(pairs: Paired[]): number | null {
  if (!pairs.length) return null;
  let same = 0;
  for (const { ar, spec } of pairs) if (ar.ids.length === spec.ids.length && ar.ids.every((t, i) => t === spec.ids[i])) same++;
  return same / pairs.length;
}

/** Decode-only speed and TPF per region type. */
export function byType(pairs: Paired[]): Record<Task, SpeedPair> {
  const out = {} as Record<Task, SpeedPair>;
  for (const t of ['text', 'table', 'formula'] as const) out[t] = speedPair(pairs.filter((p) => p.ar.task === t), 'decode');
  return out;
}

/** Decode-only speed and TPF per output-length bucket (AR output tokens, EOS excluded). */
export function byLength(pairs: Paired[]): Record<string, SpeedPair> {
  const out: Record<string, SpeedPair> = {};
  for (const b of LENGTH_BUCKETS) out[b] = speedPair(pairs.filter((p) => lengthBucket(p.ar.ids.length) === b), 'decode');
  return out;
}

/** One page read end to end by one method. */
export interface PageRecordRun {
  page: string;
  method: SpeedMethod;
  /** Wall time of layout + crops + recognition + assembly. */
  ms: number;
  tokens: number;
  forwards: number;
  /** Body text in reading order vs ground truth. */
  edits: EditCount;
  /** The body text read, in reading order (src/eval/page.ts), kept so a CER change can be traced. */
  text?: string;
}

export interface PageSpeed {
  pages: number;
  ar_pages_s: number | null;
  spec_pages_s: number | null;
  speedup: number | null;
  ar_page_text_cer: number | null;
  spec_page_text_cer: number | null;
  tpf: number | null;
}

export function pageSpeed(runs: PageRecordRun[]): PageSpeed {
  const ar = runs.filter((r) => r.method === 'ar');
  const spec = runs.filter((r) => r.method === 'selfspec');
  const sum = (xs: PageRecordRun[], f: (r: PageRecordRun) => number) => xs.reduce((s, r) => s + f(r), 0);
  const ar_pages_s = perSecond(ar.length, sum(ar, (r) => r.ms));
  const spec_pages_s = perSecond(spec.length, sum(spec, (r) => r.ms));
  const f = sum(spec, (r) => r.forwards);
  return {
    pages: Math.max(ar.length, spec.length),
    ar_pages_s,
    spec_pages_s,
    speedup: ratio(spec_pages_s, ar_pages_s),
    ar_page_text_cer: ar.length ? corpusCer(ar.map((r) => r.edits)) : null,
    spec_page_text_cer: spec.length ? corpusCer(spec.map((r) => r.edits)) : null,
    tpf: f ? sum(spec, (r) => r.tokens) / f : null,
  };
}
