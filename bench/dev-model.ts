/**
 * A random recognizer with the real vocabulary and the trained model's shape, for developing the
 * benchmark harness before a trained model exists (it reads nothing: its outputs are noise, its
 * speeds are real). Writes a models folder the bench can use with `--models DIR`:
 *   DIR/default.json, DIR/gocr-dev/{config.json,vocab.json,model.safetensors,manifest.json},
 *   DIR/vision/ppocr-v4-rec-backbone.onnx (copied from public/models/vision), DIR/layout/ (copied from
 *   public/models/layout when the detector exists).
 *   node --import tsx bench/dev-model.ts [--out bench/out/dev-models] [--d 256 --layers 4 --ffn 768]
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from '../tools/synth/args.ts';
import { encodeSafetensors } from '../src/recognizer/safetensors.ts';
import { expectedShapes } from '../src/recognizer/model.ts';
import type { ModelConfig } from '../src/recognizer/config.ts';
import { tinyWeights } from '../src/reference/tiny-model.ts';

const a = parseArgs(process.argv.slice(2), { out: 'string', d: 'number', layers: 'number', ffn: 'number', heads: 'number', seed: 'number' });
const out = (a.out as string | undefined) ?? 'bench/out/dev-models';
const vocab = JSON.parse(readFileSync('training/vocab.json', 'utf8')) as { tokens: string[]; specials: Record<string, number> };
const sp = vocab.specials;
const heads = (a.heads as number | undefined) ?? 4;
const d = (a.d as number | undefined) ?? 256;
const config: ModelConfig = {
  vocab_size: vocab.tokens.length,
  d_model: d,
  n_layers: (a.layers as number | undefined) ?? 4,
  n_heads: heads,
  head_dim: d / heads,
  ffn_dim: (a.ffn as number | undefined) ?? 768,
  rope_theta: 10000,
  rms_eps: 1e-5,
  vision_dim: 120,
  max_positions: 2048,
  block_size: 32,
  pad_id: sp.pad,
  bos_id: sp.bos,
  eos_id: sp.eos,
  mask_id: sp.mask,
  sep_id: sp.sep,
  task_ids: { text: sp.task_text, table: sp.task_table, formula: sp.task_formula },
};
const w = tinyWeights(config, (a.seed as number | undefined) ?? 7, 1);
const shapes = expectedShapes(config);
const tensors: Record<string, { shape: number[]; data: Float32Array }> = {
  'vision_proj.weight': { shape: shapes['vision_proj.weight'], data: w.vision_proj_weight },
  'vision_proj.bias': { shape: shapes['vision_proj.bias'], data: w.vision_proj_bias },
  'embed.weight': { shape: shapes['embed.weight'], data: w.embed },
  'norm.weight': { shape: shapes['norm.weight'], data: w.norm },
  'lm_head.weight': { shape: shapes['lm_head.weight'], data: w.lm_head },
};
w.layers.forEach((l, i) => {
  const p = `layers.${i}.`;
  const put = (name: string, data: Float32Array) => (tensors[p + name] = { shape: shapes[p + name], data });
  put('attn_norm.weight', l.attn_norm);
  put('attn.wq.weight', l.wq);
  put('attn.wk.weight', l.wk);
  put('attn.wv.weight', l.wv);
  put('attn.wo.weight', l.wo);
  put('mlp_norm.weight', l.mlp_norm);
  put('mlp.w_gate.weight', l.w_gate);
  put('mlp.w_up.weight', l.w_up);
  put('mlp.w_down.weight', l.w_down);
});
const rec = join(out, 'gocr-dev');
mkdirSync(rec, { recursive: true });
mkdirSync(join(out, 'vision'), { recursive: true });
writeFileSync(join(rec, 'model.safetensors'), encodeSafetensors(tensors, { note: 'random dev model (bench/dev-model.ts)' }));
writeFileSync(join(rec, 'config.json'), JSON.stringify(config, null, 1) + '\n');
copyFileSync('training/vocab.json', join(rec, 'vocab.json'));
writeFileSync(join(rec, 'manifest.json'), JSON.stringify({ name: 'gocr-dev', note: 'random weights for harness development; reads nothing' }, null, 1) + '\n');
const vision = 'public/models/vision/ppocr-v4-rec-backbone.onnx';
if (!existsSync(vision)) throw new Error(`${vision} is missing (it is committed; check your clone)`);
copyFileSync(vision, join(out, 'vision', 'ppocr-v4-rec-backbone.onnx'));
// The real layout detector when it has been exported (the bench falls back to ground-truth regions otherwise).
let layout = 'layout-none';
if (existsSync('public/models/layout/layout.onnx') && existsSync('public/models/layout/config.json')) {
  layout = 'layout';
  mkdirSync(join(out, 'layout'), { recursive: true });
  for (const f of readdirSync('public/models/layout')) copyFileSync(join('public/models/layout', f), join(out, 'layout', f));
}
writeFileSync(join(out, 'default.json'), JSON.stringify({ recognizer: 'gocr-dev', vision: 'vision/ppocr-v4-rec-backbone.onnx', layout }, null, 1) + '\n');
console.log(`wrote a random ${config.n_layers}-layer d${config.d_model} recognizer (V ${config.vocab_size}) to ${out}`);
