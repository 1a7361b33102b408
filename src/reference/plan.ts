// Row plan of a forward: flattens windows (or prefixes) into rows with the per-row sequence,
// position, visible-key count and cache slot that both decoders (CPU and WGSL) feed their
// kernels. Validation lives here so both backends reject the same misuse.
import type { ModelConfig } from '../recognizer/config.ts';
import type { PrefixInput, WindowInput } from '../recognizer/model.ts';

export interface RowPlan {
  M: number;
  ids: Int32Array; // token id, or −(t+1) for row t of the concatenated vision features
  rowSeq: Uint32Array;
  rowPos: Uint32Array;
  rowKv: Uint32Array; // slots 0..rowKv−1 of the row's sequence are visible
  dstRow: Uint32Array; // seq·capacity + pos: the cache slot this row writes
  offsets: number[]; // first row of each window
}

export function planWindows(windows: WindowInput[], lengths: number[], capacity: number, c: ModelConfig): RowPlan {
  const seen = new Set<number>();
  let M = 0;
  for (const w of windows) {
    if (!(w.seq >= 0 && w.seq < lengths.length)) throw new Error(`forward: sequence ${w.seq} not in the batch of ${lengths.length}`);
    if (seen.has(w.seq)) throw new Error(`forward: two windows for sequence ${w.seq}`);
    seen.add(w.seq);
    if (w.ids.length < 1) throw new Error('forward: empty window');
    if (w.start > lengths[w.seq]) throw new Error(`forward: window at ${w.start} leaves a hole after cached length ${lengths[w.seq]} (seq ${w.seq})`);
    if (w.start + w.ids.length > capacity) throw new Error(`forward: window ${w.start}+${w.ids.length} exceeds cache capacity ${capacity}`);
    M += w.ids.length;
  }
  const plan = alloc(M);
  let r = 0;
  for (const w of windows) {
    plan.offsets.push(r);
    const L = w.ids.length;
    for (let i = 0; i < L; i++, r++) {
      const id = w.ids[i];
      if (!(id >= 0 && id < c.vocab_size)) throw new Error(`forward: token id ${id} outside vocab ${c.vocab_size}`);
      plan.ids[r] = id;
      plan.rowSeq[r] = w.seq;
      plan.rowPos[r] = w.start + i;
      plan.rowKv[r] = w.mode === 'causal' || i === 0 ? w.start + i + 1 : w.start + L;
      plan.dstRow[r] = w.seq * capacity + w.start + i;
    }
  }
  return plan;
}

/** Prefill rows: positions 0..len−2 of each prefix (the last token is left for the first window). */
export function planPrefill(prefixes: PrefixInput[], capacity: number, c: ModelConfig): { plan: RowPlan; vision: Float32Array; T: number } {
  let M = 0;
  let T = 0;
  for (const p of prefixes) {
    const L = p.ids.length;
    if (L < 1 || p.ids[L - 1] < 0) throw new Error('prefill: a prefix must end with a token (the task token)');
    if (L > capacity) throw new Error(`prefill: prefix of ${L} rows exceeds capacity ${capacity}`);
    const nv = p.ids.reduce((a, id) => a + (id < 0 ? 1 : 0), 0);
    if (p.vision.length !== nv * c.vision_dim) throw new Error(`prefill: ${nv} vision rows in ids but ${p.vision.length / c.vision_dim} in features`);
    M += L - 1;
    T += nv;
  }
  const plan = alloc(M);
  const vision = new Float32Array(T * c.vision_dim);
  let r = 0;
  let t = 0;
  prefixes.forEach((p, s) => {
    plan.offsets.push(r);
    let local = 0;
    vision.set(p.vision, t * c.vision_dim);
    for (let i = 0; i < p.ids.length; i++) {
      const id = p.ids[i];
      const vis = id < 0 ? t + local++ : -1;
      if (i === p.ids.length - 1) break;
      if (id >= c.vocab_size) throw new Error(`prefill: token id ${id} outside vocab ${c.vocab_size}`);
      plan.ids[r] = vis >= 0 ? -(vis + 1) : id;
      plan.rowSeq[r] = s;
      plan.rowPos[r] = i;
      plan.rowKv[r] = i + 1;
      plan.dstRow[r] = s * capacity + i;
      r++;
    }
    t += local;
  });
  return { plan, vision, T };
}

/** Rows [from, to) of a plan (prefill chunks). */
export function slicePlan(p: RowPlan, from: number, to: number): RowPlan {
  return {
    M: to - from,
    ids: p.ids.slice(from, to),
    rowSeq: p.rowSeq.slice(from, to),
    rowPos: p.rowPos.slice(from, to),
    rowKv: p.rowKv.slice(from, to),
    dstRow: p.dstRow.slice(from, to),
    offsets: [0],
  };
}

function alloc(M: number): RowPlan {
  return {
    M,
    ids: new Int32Array(M),
    rowSeq: new Uint32Array(M),
    rowPos: new Uint32Array(M),
    rowKv: new Uint32Array(M),
    dstRow: new Uint32Array(M),
    offsets: [],
  };
}
