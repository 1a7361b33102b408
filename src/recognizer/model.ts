// The decoder's forward-pass interface (`DecoderBackend`), the weight loader and
// `createDecoder`. Two implementations: src/reference/decoder.ts (CPU; the oracle and the
// no-WebGPU fallback) and src/gpu/decoder.ts (WGSL). src/decoding drives either one.
//
// Cache model (docs/ARCHITECTURE.md): each sequence s of a batch has its own KV cache of
// `capacity` slots; slot i holds the K/V of position i. A forward window writes its rows' K/V
// at positions start..start+L−1 before attending, so the cache is valid for 0..start+L−1
// afterwards; `truncate` drops slots from the end (rejected drafts).
// Window modes: 'causal' — row i sees slots 0..start+i (prefill, AR steps, verify);
// 'draft' — row 0 is causal, rows ≥ 1 (the masks) see slots 0..start+L−1.
import type { ModelConfig } from './config.ts';
import { parseConfig } from './config.ts';
import { parseSafetensors, type Tensor } from './safetensors.ts';

export type WindowMode = 'causal' | 'draft';

/** One sequence's prefix. ids[i] >= 0 is a token; ids[i] = −1 takes the next row of `vision`. */
export interface PrefixInput {
  ids: Int32Array;
  /** Vision features [T, vision_dim], T = number of −1 entries in ids. */
  vision: Float32Array;
}

export interface WindowInput {
  seq: number;
  /** Position of the window's first row; must be <= the sequence's cached length. */
  start: number;
  ids: ArrayLike<number>;
  mode: WindowMode;
}

export interface WindowOutput {
  /** Greedy next token of each row (ties → lowest id). */
  ids: Int32Array;
  /** top1 − top2 logit per row. */
  margins: Float32Array;
  /** Softmax probability of the argmax per row. */
  conf: Float32Array;
  /** [L, vocab_size] logits, only when asked for. */
  logits?: Float32Array;
}

export interface PrefillOptions {
  /** KV slots per sequence (default config.max_positions). Positions must stay below it. */
  capacity?: number;
}

export interface DecoderBackend {
  /** 'cpu' or the WebGPU adapter description. */
  readonly kind: string;
  /** Why the CPU decoder runs although WebGPU was preferred (e.g. a software adapter), if it does. */
  readonly fallbackReason?: string;
  readonly config: ModelConfig;
  /**
   * Resets the batch to `prefixes.length` sequences and caches the causal K/V of every prefix
   * row except the last one (the task token), which becomes x0 of the first window.
   */
  prefill(prefixes: PrefixInput[], opts?: PrefillOptions): Promise<void>;
  /** Runs one window per listed sequence (any subset of the batch, at most one window each). */
  forward(windows: WindowInput[], opts?: { logits?: boolean }): Promise<WindowOutput[]>;
  /** Keeps the first `length` cached positions of sequence `seq`. */
  truncate(seq: number, length: number): void;
  cachedLength(seq: number): number;
  readonly capacity: number;
  dispose(): void;
}

export interface LayerWeights {
  attn_norm: Float32Array;
  wq: Float32Array;
  wk: Float32Array;
  wv: Float32Array;
  wo: Float32Array;
  mlp_norm: Float32Array;
  w_gate: Float32Array;
  w_up: Float32Array;
  w_down: Float32Array;
}

export interface DecoderWeights {
  vision_proj_weight: Float32Array;
  vision_proj_bias: Float32Array;
  embed: Float32Array;
  layers: LayerWeights[];
  norm: Float32Array;
  lm_head: Float32Array;
}

const FIX = 're-run training/export.py';

/** Expected shape of every tensor in model.safetensors (docs/ARCHITECTURE.md). */
export function expectedShapes(c: ModelConfig): Record<string, number[]> {
  const d = c.d_model, inner = c.n_heads * c.head_dim, F = c.ffn_dim, V = c.vocab_size;
  const s: Record<string, number[]> = {
    'vision_proj.weight': [d, c.vision_dim],
    'vision_proj.bias': [d],
    'embed.weight': [V, d],
    'norm.weight': [d],
    'lm_head.weight': [V, d],
  };
  for (let i = 0; i < c.n_layers; i++) {
    const p = `layers.${i}.`;
    s[p + 'attn_norm.weight'] = [d];
    s[p + 'attn.wq.weight'] = [inner, d];
    s[p + 'attn.wk.weight'] = [inner, d];
    s[p + 'attn.wv.weight'] = [inner, d];
    s[p + 'attn.wo.weight'] = [d, inner];
    s[p + 'mlp_norm.weight'] = [d];
    s[p + 'mlp.w_gate.weight'] = [F, d];
    s[p + 'mlp.w_up.weight'] = [F, d];
    s[p + 'mlp.w_down.weight'] = [d, F];
  }
  return s;
}

/** Picks and shape-checks the decoder weights out of a safetensors tensor map. */
export function weightsFromTensors(tensors: Map<string, Tensor>, c: ModelConfig): DecoderWeights {
  const shapes = expectedShapes(c);
  const get = (name: string): Float32Array => {
    const t = tensors.get(name);
    if (!t) throw new Error(`model.safetensors lacks ${name}; ${FIX}`);
    const want = shapes[name];
    if (t.shape.length !== want.length || t.shape.some((v, i) => v !== want[i])) {
      throw new Error(`model.safetensors: ${name} has shape [${t.shape}] but config.json implies [${want}]; ${FIX}`);
    }
    return t.data;
  };
  return {
    vision_proj_weight: get('vision_proj.weight'),
    vision_proj_bias: get('vision_proj.bias'),
    embed: get('embed.weight'),
    layers: Array.from({ length: c.n_layers }, (_, i) => {
      const p = `layers.${i}.`;
      return {
        attn_norm: get(p + 'attn_norm.weight'),
        wq: get(p + 'attn.wq.weight'),
        wk: get(p + 'attn.wk.weight'),
        wv: get(p + 'attn.wv.weight'),
        wo: get(p + 'attn.wo.weight'),
        mlp_norm: get(p + 'mlp_norm.weight'),
        w_gate: get(p + 'mlp.w_gate.weight'),
        w_up: get(p + 'mlp.w_up.weight'),
        w_down: get(p + 'mlp.w_down.weight'),
      };
    }),
    norm: get('norm.weight'),
    lm_head: get('lm_head.weight'),
  };
}

/** Parses model.safetensors bytes + config.json (text or object) into weights + config. */
export function loadModel(safetensors: ArrayBuffer | Uint8Array, configJson: string | unknown): { weights: DecoderWeights; config: ModelConfig } {
  const config = parseConfig(typeof configJson === 'string' ? JSON.parse(configJson) : configJson);
  const { tensors } = parseSafetensors(safetensors);
  return { weights: weightsFromTensors(tensors, config), config };
}

/**
 * Builds a prefix per the sequence layout: [strip 0 rows][<sep>][strip 1 rows]…[prompt ids].
 * `strips` are the row counts of each strip (sum = rows of `vision`); `promptIds` ends with
 * the task token.
 */
export function buildPrefix(vision: Float32Array, strips: number[], promptIds: ArrayLike<number>, c: ModelConfig): PrefixInput {
  const T = strips.reduce((a, b) => a + b, 0);
  if (vision.length !== T * c.vision_dim) throw new Error(`buildPrefix: vision has ${vision.length} floats, strips say ${T}×${c.vision_dim}`);
  const ids: number[] = [];
  strips.forEach((n, i) => {
    if (i > 0) ids.push(c.sep_id);
    for (let j = 0; j < n; j++) ids.push(-1);
  });
  for (let i = 0; i < promptIds.length; i++) ids.push(promptIds[i]);
  if (ids.length === 0 || ids[ids.length - 1] < 0) throw new Error('buildPrefix: the prefix must end with a token (the task token)');
  return { ids: Int32Array.from(ids), vision };
}

export interface CreateDecoderOptions {
  prefer?: 'webgpu' | 'cpu';
  /** Use this device instead of requesting one (Node tests, a shared app device). */
  device?: GPUDevice;
  /** Description for `kind` when `device` is given. */
  deviceDescription?: string;
  /** Where to request a device from when `device` is not given (default navigator.gpu). */
  gpu?: GPU;
  /**
   * Use a software adapter (SwiftShader etc.) when that is all there is. Default false: such an
   * adapter is slower than the CPU decoder (a 33-row window: ~2.8 s vs ~0.7 s), so the CPU
   * decoder is returned instead. Tests of the WGSL path set it, or pass `device`.
   */
  allowSoftwareGpu?: boolean;
}

/**
 * Returns the WGSL decoder when WebGPU is preferred and a hardware adapter (or `device`) is
 * available, else the CPU reference. `backend.kind` says which one it got.
 */
export async function createDecoder(weights: DecoderWeights, config: ModelConfig, opts: CreateDecoderOptions = {}): Promise<DecoderBackend> {
  let fallbackReason: string | undefined;
  if ((opts.prefer ?? 'webgpu') === 'webgpu') {
    let device = opts.device;
    let description = opts.deviceDescription ?? 'webgpu';
    if (!device) {
      const { requestGpuDevice } = await import('../gpu/device.ts');
      const got = await requestGpuDevice({ gpu: opts.gpu });
      if (got && got.isSoftware && !opts.allowSoftwareGpu) {
        got.device.destroy();
        fallbackReason = `software WebGPU adapter (${got.description}): the CPU decoder is faster`;
      } else if (!got) fallbackReason = 'no WebGPU adapter';
      else {
        device = got.device;
        description = got.description;
      }
    }
    if (device) {
      const { GpuDecoder } = await import('../gpu/decoder.ts');
      return new GpuDecoder(device, weights, config, description);
    }
  }
  const { CpuDecoder } = await import('../reference/decoder.ts');
  return new CpuDecoder(weights, config, fallbackReason);
}
