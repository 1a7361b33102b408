// The same decoder exported to ONNX (training/export_onnx.py, contract in docs/ARCHITECTURE.md
// "decoder.onnx") and run by onnxruntime (web: WebGPU or wasm EP; node: CPU). Greedy AR only:
// it is the peer our hand-written WGSL decoder is measured against, not a product path.
// Rows fed to the graph are built here from the model's own weights: a token row is embed[id],
// an image row is vision_proj(features); the graph does everything after the embedding.
import { matmulRef } from '../reference/matmul.ts';
import type { ModelConfig } from './config.ts';
import type { DecoderWeights, PrefixInput } from './model.ts';

/** The slice of the onnxruntime API used here (onnxruntime-web and onnxruntime-node both fit). */
export interface OrtTensorLike {
  readonly data: unknown;
  readonly dims: readonly number[];
  dispose?(): void;
}
export interface OrtSessionLike {
  run(feeds: Record<string, OrtTensorLike>): Promise<Record<string, OrtTensorLike>>;
  release?(): Promise<void>;
}
export interface OrtTensorCtor {
  new (type: 'float32', data: Float32Array, dims: readonly number[]): OrtTensorLike;
  new (type: 'int64', data: BigInt64Array, dims: readonly number[]): OrtTensorLike;
}

export interface OrtGreedyResult {
  ids: number[];
  stop: 'eos' | 'max_new_tokens';
  /** graph runs after the prefix (one per committed token except the first) */
  forwards: number;
  prefillMs: number;
  decodeMs: number;
  /** logits of the prefix's last row (the task token) */
  prefixLast: Float32Array;
}

export class OrtDecoder {
  constructor(
    private readonly session: OrtSessionLike,
    private readonly Tensor: OrtTensorCtor,
    private readonly w: DecoderWeights,
    readonly config: ModelConfig,
  ) {}

  /** Input rows [ids.length, d] of a prefix: vision_proj(features) for −1 entries, embed[id] otherwise. */
  prefixRows(p: PrefixInput): Float32Array {
    const c = this.config;
    const d = c.d_model;
    const T = p.vision.length / c.vision_dim;
    const vis = T > 0 ? matmulRef(p.vision, this.w.vision_proj_weight, this.w.vision_proj_bias, T, d, c.vision_dim) : new Float32Array(0);
    const x = new Float32Array(p.ids.length * d);
    let v = 0;
    for (let i = 0; i < p.ids.length; i++) {
      const id = p.ids[i];
      if (id < 0) x.set(vis.subarray(v * d, ++v * d), i * d);
      else x.set(this.tokenRow(id), i * d);
    }
    if (v !== T) throw new Error(`OrtDecoder: prefix has ${v} image slots for ${T} feature rows`);
    return x;
  }

  tokenRow(id: number): Float32Array {
    const d = this.config.d_model;
    if (!(id >= 0 && id < this.config.vocab_size)) throw new Error(`OrtDecoder: token id ${id} out of range`);
    return this.w.embed.subarray(id * d, (id + 1) * d);
  }

  private async step(rows: Float32Array, pos0: number, pastK: OrtTensorLike, pastV: OrtTensorLike) {
    const c = this.config;
    const S = rows.length / c.d_model;
    const pos = new BigInt64Array(S);
    for (let i = 0; i < S; i++) pos[i] = BigInt(pos0 + i);
    const out = await this.session.run({
      inputs_embeds: new this.Tensor('float32', rows, [1, S, c.d_model]),
      position_ids: new this.Tensor('int64', pos, [1, S]),
      past_k: pastK,
      past_v: pastV,
    });
    return out;
  }

  private lastArgmax(logits: OrtTensorLike): number {
    const V = this.config.vocab_size;
    const data = logits.data as Float32Array;
    const o = data.length - V;
    let best = 0;
    for (let j = 1; j < V; j++) if (data[o + j] > data[o + best]) best = j;
    return best;
  }

  /** Greedy AR: one graph run over the prefix, then one per token; KV cache kept by the caller side. */
  async greedy(prefix: PrefixInput, maxNew: number): Promise<OrtGreedyResult> {
    const c = this.config;
    const empty = new Float32Array(0);
    const shape0 = [c.n_layers, 1, c.n_heads, 0, c.head_dim];
    const t0 = performance.now();
    let out = await this.step(this.prefixRows(prefix), 0, new this.Tensor('float32', empty, shape0), new this.Tensor('float32', empty, shape0));
    let tok = this.lastArgmax(out.logits);
    const pl = out.logits.data as Float32Array;
    const prefixLast = pl.slice(pl.length - c.vocab_size);
    const prefillMs = performance.now() - t0;
    const ids = [tok];
    let pos = prefix.ids.length;
    let forwards = 0;
    const t1 = performance.now();
    while (tok !== c.eos_id && ids.length < maxNew && pos < c.max_positions) {
      const next = await this.step(this.tokenRow(tok), pos, out.present_k, out.present_v);
      for (const k of Object.keys(out)) out[k].dispose?.();
      out = next;
      tok = this.lastArgmax(out.logits);
      ids.push(tok);
      pos++;
      forwards++;
    }
    const decodeMs = performance.now() - t1;
    for (const k of Object.keys(out)) out[k].dispose?.();
    return { ids, stop: tok === c.eos_id ? 'eos' : 'max_new_tokens', forwards, prefillMs, decodeMs, prefixLast };
  }
}
