// A tiny random decoder (config + weights) for tests of the decoders and decoding loops,
// and a random prefix shaped like a real one (vision strips, <sep>, task token).
import type { ModelConfig } from '../recognizer/config.ts';
import type { DecoderWeights, PrefixInput } from '../recognizer/model.ts';
import { buildPrefix } from '../recognizer/model.ts';
import { Rng } from './rng.ts';

export function tinyConfig(over: Partial<ModelConfig> = {}): ModelConfig {
  return {
    vocab_size: 37,
    d_model: 24,
    n_layers: 2,
    n_heads: 2,
    head_dim: 8,
    ffn_dim: 40,
    rope_theta: 10000,
    rms_eps: 1e-5,
    vision_dim: 10,
    max_positions: 160,
    block_size: 8,
    pad_id: 0,
    bos_id: 1,
    eos_id: 2,
    mask_id: 3,
    sep_id: 5,
    task_ids: { text: 6, table: 7, formula: 8 },
    ...over,
  };
}

/**
 * Random weights. `scale` sets how peaked the logits are: large values make long greedy runs
 * without EOS and strong, well separated argmaxes (so CPU and GPU agree on ids).
 */
export function tinyWeights(c: ModelConfig, seed = 1, scale = 1): DecoderWeights {
  const rng = new Rng(seed);
  const d = c.d_model, D = c.n_heads * c.head_dim, F = c.ffn_dim, V = c.vocab_size;
  const lin = (out: number, inp: number) => rng.floats(out * inp, 1 / Math.sqrt(inp));
  const norm = (n: number) => Float32Array.from({ length: n }, () => 1 + rng.normal(0.1));
  const lm = lin(V, d).map((x) => x * 3 * scale);
  return {
    vision_proj_weight: lin(d, c.vision_dim),
    vision_proj_bias: rng.floats(d, 0.1),
    embed: rng.floats(V * d),
    layers: Array.from({ length: c.n_layers }, () => ({
      attn_norm: norm(d),
      wq: lin(D, d),
      wk: lin(D, d),
      wv: lin(D, d),
      wo: lin(d, D),
      mlp_norm: norm(d),
      w_gate: lin(F, d),
      w_up: lin(F, d),
      w_down: lin(d, F),
    })),
    norm: norm(d),
    lm_head: lm,
  };
}

export function tinyPrefix(c: ModelConfig, rng: Rng, strips: number[], task: keyof ModelConfig['task_ids'] = 'text'): PrefixInput {
  const T = strips.reduce((a, b) => a + b, 0);
  return buildPrefix(rng.floats(T * c.vision_dim), strips, [c.task_ids[task]], c);
}

/** Tensor map with the exported names, for safetensors round trips. */
export function tinyTensors(c: ModelConfig, w: DecoderWeights): Record<string, { shape: number[]; data: Float32Array }> {
  const d = c.d_model, D = c.n_heads * c.head_dim, F = c.ffn_dim, V = c.vocab_size;
  const t: Record<string, { shape: number[]; data: Float32Array }> = {
    'vision_proj.weight': { shape: [d, c.vision_dim], data: w.vision_proj_weight },
    'vision_proj.bias': { shape: [d], data: w.vision_proj_bias },
    'embed.weight': { shape: [V, d], data: w.embed },
    'norm.weight': { shape: [d], data: w.norm },
    'lm_head.weight': { shape: [V, d], data: w.lm_head },
  };
  w.layers.forEach((L, i) => {
    const p = `layers.${i}.`;
    t[p + 'attn_norm.weight'] = { shape: [d], data: L.attn_norm };
    t[p + 'attn.wq.weight'] = { shape: [D, d], data: L.wq };
    t[p + 'attn.wk.weight'] = { shape: [D, d], data: L.wk };
    t[p + 'attn.wv.weight'] = { shape: [D, d], data: L.wv };
    t[p + 'attn.wo.weight'] = { shape: [d, D], data: L.wo };
    t[p + 'mlp_norm.weight'] = { shape: [d], data: L.mlp_norm };
    t[p + 'mlp.w_gate.weight'] = { shape: [F, d], data: L.w_gate };
    t[p + 'mlp.w_up.weight'] = { shape: [F, d], data: L.w_up };
    t[p + 'mlp.w_down.weight'] = { shape: [d, F], data: L.w_down };
  });
  return t;
}
