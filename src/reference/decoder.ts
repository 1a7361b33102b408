// CPU reference decoder: the whole-model oracle for the WGSL decoder and the golden vectors,
// and the fallback when WebGPU is missing. It runs the CPU twins of the kernels in the same
// order as src/gpu/decoder.ts. Every op computes a row from that row alone (sums in a fixed
// order), so a window row equals the same row run as a single AR step, bit for bit.
import type { ModelConfig } from '../recognizer/config.ts';
import type { DecoderBackend, DecoderWeights, PrefillOptions, PrefixInput, WindowInput, WindowOutput } from '../recognizer/model.ts';
import { argmaxRef } from './argmax.ts';
import { attentionRef } from './attention.ts';
import { embeddingRef } from './embedding.ts';
import { matmulRef } from './matmul.ts';
import { planPrefill, planWindows, type RowPlan } from './plan.ts';
import { residualRef } from './residual.ts';
import { rmsnormRef } from './rmsnorm.ts';
import { ropeRef, ropeTables, type RopeTables } from './rope.ts';
import { scatterRef } from './scatter.ts';
import { swigluRef } from './swiglu.ts';

export class CpuDecoder implements DecoderBackend {
  readonly kind = 'cpu';
  capacity = 0;
  private lengths: number[] = [];
  private kc: Float32Array[] = [];
  private vc: Float32Array[] = [];
  private rope: RopeTables;

  constructor(
    private readonly w: DecoderWeights,
    readonly config: ModelConfig,
    /** Why this CPU decoder stands in for a preferred WebGPU one (createDecoder), if it does. */
    readonly fallbackReason?: string,
  ) {
    this.rope = ropeTables(config.max_positions, config.head_dim, config.rope_theta);
  }

  async prefill(prefixes: PrefixInput[], opts: PrefillOptions = {}): Promise<void> {
    const c = this.config;
    const P = Math.min(opts.capacity ?? c.max_positions, c.max_positions);
    const D = c.n_heads * c.head_dim;
    this.capacity = P;
    this.kc = Array.from({ length: c.n_layers }, () => new Float32Array(prefixes.length * P * D));
    this.vc = Array.from({ length: c.n_layers }, () => new Float32Array(prefixes.length * P * D));
    const { plan, vision, T } = planPrefill(prefixes, P, c);
    const extra = T > 0 ? matmulRef(vision, this.w.vision_proj_weight, this.w.vision_proj_bias, T, c.d_model, c.vision_dim) : new Float32Array(0);
    if (plan.M > 0) this.layers(plan, extra);
    this.lengths = prefixes.map((p) => p.ids.length - 1);
  }

  async forward(windows: WindowInput[], opts: { logits?: boolean } = {}): Promise<WindowOutput[]> {
    const c = this.config;
    const plan = planWindows(windows, this.lengths, this.capacity, c);
    const x = this.layers(plan, new Float32Array(0));
    const xn = rmsnormRef(x, this.w.norm, plan.M, c.d_model, c.rms_eps);
    const V = c.vocab_size;
    const logits = matmulRef(xn, this.w.lm_head, null, plan.M, V, c.d_model);
    const am = argmaxRef(logits, plan.M, V);
    return windows.map((w, i) => {
      this.lengths[w.seq] = w.start + w.ids.length;
      const a = plan.offsets[i];
      const b = a + w.ids.length;
      return {
        ids: am.ids.slice(a, b),
        margins: am.margin.slice(a, b),
        conf: am.conf.slice(a, b),
        logits: opts.logits ? logits.slice(a * V, b * V) : undefined,
      };
    });
  }

  truncate(seq: number, length: number): void {
    if (length < 0 || length > this.lengths[seq]) throw new Error(`truncate: ${length} outside 0..${this.lengths[seq]}`);
    this.lengths[seq] = length;
  }

  cachedLength(seq: number): number {
    return this.lengths[seq];
  }

  dispose(): void {
    this.kc = [];
    this.vc = [];
  }

  /** Decoder layers over the planned rows; writes their K/V into the cache. Returns x [M, d]. */
  private layers(plan: RowPlan, extra: Float32Array): Float32Array {
    const c = this.config;
    const { M } = plan;
    const d = c.d_model, H = c.n_heads, hd = c.head_dim, D = H * hd, F = c.ffn_dim;
    const x = embeddingRef(plan.ids, this.w.embed, extra, d);
    const ident = Uint32Array.from({ length: M }, (_, i) => i);
    for (let l = 0; l < c.n_layers; l++) {
      const L = this.w.layers[l];
      let xn = rmsnormRef(x, L.attn_norm, M, d, c.rms_eps);
      const q = matmulRef(xn, L.wq, null, M, D, d);
      const k = matmulRef(xn, L.wk, null, M, D, d);
      const v = matmulRef(xn, L.wv, null, M, D, d);
      const qr = new Float32Array(M * D);
      ropeRef(q, plan.rowPos, ident, this.rope, M, H, hd, qr);
      ropeRef(k, plan.rowPos, plan.dstRow, this.rope, M, H, hd, this.kc[l]);
      scatterRef(v, plan.dstRow, M, D, this.vc[l]);
      const att = attentionRef(qr, this.kc[l], this.vc[l], plan.rowSeq, plan.rowKv, M, H, hd, this.capacity);
      residualRef(x, matmulRef(att, L.wo, null, M, d, D));
      xn = rmsnormRef(x, L.mlp_norm, M, d, c.rms_eps);
      const h = swigluRef(matmulRef(xn, L.w_gate, null, M, F, d), matmulRef(xn, L.w_up, null, M, F, d));
      residualRef(x, matmulRef(h, L.w_down, null, M, d, F));
    }
    return x;
  }
}
