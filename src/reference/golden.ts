// Golden vectors (docs/ARCHITECTURE.md): training/export.py writes public/models/<id>/golden.json
// beside model.safetensors and config.json. These helpers (Node only) find them and replay a case
// on any DecoderBackend: the prefix's last logits, the draft and verify windows, greedy ids.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeAR } from '../decoding/ar.ts';
import { decodeSelfSpec } from '../decoding/selfspec.ts';
import type { ModelConfig } from '../recognizer/config.ts';
import { buildPrefix, loadModel, type DecoderBackend, type DecoderWeights, type PrefixInput, type WindowMode } from '../recognizer/model.ts';

export interface GoldenWindow {
  committed: number[];
  window: number[];
  logits: number[][];
}

export interface GoldenCase {
  task: string;
  vision_shape: [number, number];
  vision: number[];
  strips: number[];
  prompt_ids: number[];
  prefix_last_logits: number[];
  greedy_ids: number[];
  draft: GoldenWindow;
  verify: GoldenWindow;
}

export interface GoldenModel {
  dir: string;
  config: ModelConfig;
  weights: DecoderWeights;
  cases: GoldenCase[];
}

/**
 * Every <root>/<id>/ that holds golden.json + model.safetensors + config.json; root defaults to
 * $GOCR_GOLDEN_ROOT or public/models.
 */
export function findGoldenModels(root = process.env.GOCR_GOLDEN_ROOT || join(process.cwd(), 'public', 'models')): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((d) => join(root, d))
    .filter((d) => ['golden.json', 'model.safetensors', 'config.json'].every((f) => existsSync(join(d, f))));
}

export function loadGoldenModel(dir: string): GoldenModel {
  const { weights, config } = loadModel(readFileSync(join(dir, 'model.safetensors')), readFileSync(join(dir, 'config.json'), 'utf8'));
  const cases = (JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8')) as { cases: GoldenCase[] }).cases;
  return { dir, config, weights, cases };
}

/**
 * training/export.py writes prompt_ids as the whole prefix ([0]*rows, <sep>, …, <task>, vision
 * rows as placeholder 0); a shorter prompt_ids is taken as the tokens after the vision rows.
 */
export function goldenPrefix(c: GoldenCase, config: ModelConfig): PrefixInput {
  const vision = Float32Array.from(c.vision);
  const full = c.strips.reduce((a, b) => a + b, 0) + Math.max(0, c.strips.length - 1) + 1;
  if (c.prompt_ids.length !== full) return buildPrefix(vision, c.strips, c.prompt_ids, config);
  const p = buildPrefix(vision, c.strips, [c.prompt_ids[full - 1]], config);
  p.ids.forEach((id, i) => {
    const want = id < 0 ? 0 : id;
    if (c.prompt_ids[i] !== want) throw new Error(`golden prompt_ids[${i}] = ${c.prompt_ids[i]}, layout says ${want}`);
  });
  return p;
}

export interface GoldenReplay {
  prefixLast: Float32Array;
  draft: Float32Array; // [(B+1), V]
  verify: Float32Array;
  draftIds: Int32Array;
  verifyIds: Int32Array;
  greedy: number[]; // committed tokens, EOS included when emitted
  selfSpec: number[]; // self-spec output (B = the draft window's masks), EOS included when emitted
}

/**
 * Replays a case on one prefill: windows start at prefix_len − 1 + len(committed) with causal
 * K/V of the prompt and committed[:−1] before them. `selfSpec: false` skips the self-spec run.
 */
export async function replayGolden(backend: DecoderBackend, c: GoldenCase, config: ModelConfig, opts: { selfSpec?: boolean } = {}): Promise<GoldenReplay> {
  const prefix = goldenPrefix(c, config);
  const p0 = prefix.ids.length - 1;
  const x0 = prefix.ids[p0];
  const B = c.draft.window.length - 1;
  const capacity = Math.min(config.max_positions, prefix.ids.length + c.greedy_ids.length + 2 * B + 6 + c.verify.committed.length);
  await backend.prefill([prefix], { capacity });
  const [first] = await backend.forward([{ seq: 0, start: p0, ids: [x0], mode: 'causal' }], { logits: true });

  const runWindow = async (g: GoldenWindow, mode: WindowMode) => {
    backend.truncate(0, p0);
    const history = [x0, ...g.committed];
    if (history.length > 1) await backend.forward([{ seq: 0, start: p0, ids: history.slice(0, -1), mode: 'causal' }]);
    const [o] = await backend.forward([{ seq: 0, start: p0 + g.committed.length, ids: g.window, mode }], { logits: true });
    return o;
  };
  const d = await runWindow(c.draft, 'draft');
  const v = await runWindow(c.verify, 'causal');

  const eos = config.eos_id;
  const maxNewTokens = Math.max(1, c.greedy_ids.length);
  const [ar] = await decodeAR(backend, [prefix], { maxNewTokens, reusePrefill: true });
  const greedy = ar.stop === 'eos' ? [...ar.tokens, eos] : ar.tokens;
  let selfSpec: number[] = [];
  if (opts.selfSpec !== false) {
    const [ss] = await decodeSelfSpec(backend, [prefix], { maxNewTokens, blockSize: B, reusePrefill: true });
    selfSpec = ss.stop === 'eos' ? [...ss.tokens, eos] : ss.tokens;
  }
  return { prefixLast: first.logits!, draft: d.logits!, verify: v.logits!, draftIds: d.ids, verifyIds: v.ids, greedy, selfSpec };
}
