// WGSL decoder: the DecoderBackend on WebGPU. Same op order as src/reference/decoder.ts, one
// compute pass per forward. Weights and activations are f32 (SwiftShader has no shader-f16).
// KV caches: per layer one K and one V buffer of [batch · capacity, H·hd]; a window's rows write
// their K (rotated) and V into their slots, then attend with per-row visible-key counts, so
// prefill, draft and verify windows share every kernel. All kernels compute a row from that
// row alone in a fixed order, so a verify row equals the AR step for the same position.
import type { ModelConfig } from '../recognizer/config.ts';
import type { DecoderBackend, DecoderWeights, PrefillOptions, PrefixInput, WindowInput, WindowOutput } from '../recognizer/model.ts';
import { planPrefill, planWindows, slicePlan, type RowPlan } from '../reference/plan.ts';
import { ropeTables } from '../reference/rope.ts';
import { argmax } from './kernels/argmax.ts';
import { attention } from './kernels/attention.ts';
import { GpuContext } from './kernels/context.ts';
import { embedding } from './kernels/embedding.ts';
import { matmul } from './kernels/matmul.ts';
import { residual } from './kernels/residual.ts';
import { rmsnorm } from './kernels/rmsnorm.ts';
import { rope } from './kernels/rope.ts';
import { scatter } from './kernels/scatter.ts';
import { swiglu } from './kernels/swiglu.ts';

interface GpuLayer {
  attn_norm: GPUBuffer; wq: GPUBuffer; wk: GPUBuffer; wv: GPUBuffer; wo: GPUBuffer;
  mlp_norm: GPUBuffer; w_gate: GPUBuffer; w_up: GPUBuffer; w_down: GPUBuffer;
}

/** Prefill rows per pass: bounds the attention scratch (rows · heads · capacity floats). */
const PREFILL_CHUNK = 256;

export class GpuDecoder implements DecoderBackend {
  readonly kind: string;
  capacity = 0;
  private ctx: GpuContext;
  private lengths: number[] = [];
  private kc: GPUBuffer[] = [];
  private vc: GPUBuffer[] = [];
  private w: { vp: GPUBuffer; vpb: GPUBuffer; embed: GPUBuffer; layers: GpuLayer[]; norm: GPUBuffer; lm: GPUBuffer };
  private cos: GPUBuffer;
  private sin: GPUBuffer;
  private pool = new Map<string, GPUBuffer>();
  private extraRows = 0;
  /** Calls are serialized: one recorder, one scratch pool. */
  private queue: Promise<unknown> = Promise.resolve();

  private serial<T>(f: () => Promise<T>): Promise<T> {
    const run = this.queue.then(f, f);
    this.queue = run.catch(() => undefined);
    return run;
  }

  constructor(device: GPUDevice, weights: DecoderWeights, readonly config: ModelConfig, description = 'webgpu') {
    this.kind = description;
    this.ctx = new GpuContext(device);
    const up = (a: Float32Array, label: string) => this.ctx.upload(a, label);
    this.w = {
      vp: up(weights.vision_proj_weight, 'vision_proj.weight'),
      vpb: up(weights.vision_proj_bias, 'vision_proj.bias'),
      embed: up(weights.embed, 'embed'),
      layers: weights.layers.map((L, i) => ({
        attn_norm: up(L.attn_norm, `l${i}.attn_norm`), wq: up(L.wq, `l${i}.wq`), wk: up(L.wk, `l${i}.wk`), wv: up(L.wv, `l${i}.wv`),
        wo: up(L.wo, `l${i}.wo`), mlp_norm: up(L.mlp_norm, `l${i}.mlp_norm`), w_gate: up(L.w_gate, `l${i}.w_gate`),
        w_up: up(L.w_up, `l${i}.w_up`), w_down: up(L.w_down, `l${i}.w_down`),
      })),
      norm: up(weights.norm, 'norm'),
      lm: up(weights.lm_head, 'lm_head'),
    };
    const t = ropeTables(config.max_positions, config.head_dim, config.rope_theta);
    this.cos = up(t.cos, 'rope.cos');
    this.sin = up(t.sin, 'rope.sin');
  }

  prefill(prefixes: PrefixInput[], opts: PrefillOptions = {}): Promise<void> {
    return this.serial(() => this.prefillNow(prefixes, opts));
  }

  forward(windows: WindowInput[], opts: { logits?: boolean } = {}): Promise<WindowOutput[]> {
    return this.serial(() => this.forwardNow(windows, opts));
  }

  private async prefillNow(prefixes: PrefixInput[], opts: PrefillOptions): Promise<void> {
    const c = this.config;
    const P = Math.min(opts.capacity ?? c.max_positions, c.max_positions);
    const D = c.n_heads * c.head_dim;
    for (const b of [...this.kc, ...this.vc]) b.destroy();
    this.capacity = P;
    const bytes = prefixes.length * P * D * 4;
    this.kc = Array.from({ length: c.n_layers }, (_, l) => this.ctx.storage(bytes, `kcache${l}`));
    this.vc = Array.from({ length: c.n_layers }, (_, l) => this.ctx.storage(bytes, `vcache${l}`));
    const { plan, vision, T } = planPrefill(prefixes, P, c);
    let extra: GPUBuffer | null = null;
    this.extraRows = T;
    if (T > 0) {
      extra = this.buf('extra', T * c.d_model);
      matmul(this.ctx, { x: this.ctx.upload(vision, 'vision'), w: this.w.vp, bias: this.w.vpb, y: extra }, T, c.d_model, c.vision_dim);
    }
    for (let a = 0; a < plan.M; a += PREFILL_CHUNK) {
      this.layers(slicePlan(plan, a, Math.min(plan.M, a + PREFILL_CHUNK)), extra);
      this.ctx.flush(); // the next chunk rewrites the row-index buffers
    }
    await this.ctx.device.queue.onSubmittedWorkDone();
    this.lengths = prefixes.map((p) => p.ids.length - 1);
  }

  private async forwardNow(windows: WindowInput[], opts: { logits?: boolean }): Promise<WindowOutput[]> {
    const c = this.config;
    const plan = planWindows(windows, this.lengths, this.capacity, c);
    const { M } = plan;
    const V = c.vocab_size;
    const x = this.layers(plan, null);
    const xn = this.buf('xn', M * c.d_model);
    rmsnorm(this.ctx, { x, w: this.w.norm, y: xn }, M, c.d_model, c.rms_eps);
    const logits = this.buf('logits', M * V);
    matmul(this.ctx, { x: xn, w: this.w.lm, y: logits }, M, V, c.d_model);
    const ids = this.buf('ids', M), margin = this.buf('margin', M), conf = this.buf('conf', M);
    argmax(this.ctx, { logits, ids, margin, conf }, M, V);
    const parts = [ids, margin, conf].map((buf) => ({ buf, bytes: M * 4 }));
    if (opts.logits) parts.push({ buf: logits, bytes: M * V * 4 });
    const got = await this.ctx.readMany(parts);
    const gotIds = new Int32Array(got[0]);
    const gotMargin = new Float32Array(got[1]);
    const gotConf = new Float32Array(got[2]);
    const gotLogits = opts.logits ? new Float32Array(got[3]) : null;
    return windows.map((w, i) => {
      this.lengths[w.seq] = w.start + w.ids.length;
      const a = plan.offsets[i];
      const b = a + w.ids.length;
      return {
        ids: gotIds.slice(a, b),
        margins: gotMargin.slice(a, b),
        conf: gotConf.slice(a, b),
        logits: gotLogits ? gotLogits.slice(a * V, b * V) : undefined,
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
    this.ctx.flush();
    for (const b of [...this.kc, ...this.vc, ...this.pool.values()]) b.destroy();
    const w = this.w;
    for (const b of [w.vp, w.vpb, w.embed, w.norm, w.lm, this.cos, this.sin, ...w.layers.flatMap((l) => Object.values(l))]) b.destroy();
    this.pool.clear();
  }

  /** Records the decoder layers over the planned rows (K/V into the cache); returns x. */
  private layers(plan: RowPlan, extra: GPUBuffer | null): GPUBuffer {
    const c = this.config;
    const ctx = this.ctx;
    const { M } = plan;
    const d = c.d_model, H = c.n_heads, hd = c.head_dim, D = H * hd, F = c.ffn_dim, P = this.capacity;
    const idx = (name: string, a: Int32Array | Uint32Array) => {
      const b = this.buf(name, a.length);
      ctx.write(b, a);
      return b;
    };
    const ids = idx('rowIds', plan.ids), pos = idx('rowPos', plan.rowPos), seq = idx('rowSeq', plan.rowSeq);
    const kv = idx('rowKv', plan.rowKv), dst = idx('dstRow', plan.dstRow);
    const self = idx('selfRow', Uint32Array.from({ length: M }, (_, i) => i));
    const x = this.buf('x', M * d), xn = this.buf('xn', M * d), o = this.buf('o', M * d);
    const q = this.buf('q', M * D), qr = this.buf('qr', M * D), k = this.buf('k', M * D), v = this.buf('v', M * D), att = this.buf('att', M * D);
    const g = this.buf('gate', M * F), u = this.buf('up', M * F), h = this.buf('h', M * F);
    const scores = this.buf('scores', M * H * P);
    embedding(ctx, { ids, table: this.w.embed, extra, out: x }, M, d, c.vocab_size, extra ? this.extraRows : 0);
    for (let l = 0; l < c.n_layers; l++) {
      const L = this.w.layers[l];
      rmsnorm(ctx, { x, w: L.attn_norm, y: xn }, M, d, c.rms_eps);
      matmul(ctx, { x: xn, w: L.wq, y: q }, M, D, d);
      matmul(ctx, { x: xn, w: L.wk, y: k }, M, D, d);
      matmul(ctx, { x: xn, w: L.wv, y: v }, M, D, d);
      rope(ctx, { x: q, pos, dstRow: self, cos: this.cos, sin: this.sin, y: qr }, M, H, hd);
      rope(ctx, { x: k, pos, dstRow: dst, cos: this.cos, sin: this.sin, y: this.kc[l] }, M, H, hd);
      scatter(ctx, { src: v, dstRow: dst, dst: this.vc[l] }, M, D);
      attention(ctx, { q: qr, kc: this.kc[l], vc: this.vc[l], rowSeq: seq, rowKv: kv, scores, out: att }, M, H, hd, P);
      matmul(ctx, { x: att, w: L.wo, y: o }, M, d, D);
      residual(ctx, { x, y: o }, M * d);
      rmsnorm(ctx, { x, w: L.mlp_norm, y: xn }, M, d, c.rms_eps);
      matmul(ctx, { x: xn, w: L.w_gate, y: g }, M, F, d);
      matmul(ctx, { x: xn, w: L.w_up, y: u }, M, F, d);
      swiglu(ctx, { gate: g, up: u, h }, M * F);
      matmul(ctx, { x: h, w: L.w_down, y: o }, M, d, F);
      residual(ctx, { x, y: o }, M * d);
    }
    return x;
  }

  /** Grow-only scratch buffer of at least `floats` 4-byte elements. */
  private buf(name: string, floats: number): GPUBuffer {
    const bytes = Math.max(16, floats * 4);
    const b = this.pool.get(name);
    if (b && b.size >= bytes) return b;
    if (b) {
      this.ctx.flush(); // recorded dispatches may still bind the old buffer
      b.destroy();
    }
    const nb = this.ctx.storage(Math.max(bytes, (b?.size ?? 0) * 2), name);
    this.pool.set(name, nb);
    return nb;
  }
}
