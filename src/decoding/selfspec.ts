// Self-speculative decoding (GravityOCR): per round one draft forward over [x0, <mask>×B]
// (row 0 causal → a0, mask rows bidirectional → d1..dB) and one verify forward over
// [a0, d1..dB] (causal → a1..a(B+1)). Accept the longest k with d_j = a_j, commit
// a0, d1..dk, a(k+1). Cache: x0's slot keeps the draft's causal K/V, verify overwrites the
// mask slots with causal K/V, slots past a0, d1..dk are dropped. With a backend whose rows
// do not depend on the window (both of ours), the output equals greedy AR token for token.
import type { DecoderBackend, PrefixInput, WindowInput } from '../recognizer/model.ts';
import { emptyRound, startBatch, type DecodeOptions, type DecodeResult, type RoundTrace, type SeqState } from './trace.ts';

export interface SelfSpecOptions extends DecodeOptions {
  /** Masks per draft window (B); default 32 (config.block_size is what the model trained with). */
  blockSize?: number;
}

export async function decodeSelfSpec(backend: DecoderBackend, prefixes: PrefixInput[], opts: SelfSpecOptions): Promise<DecodeResult[]> {
  const B = opts.blockSize ?? 32;
  if (!(B >= 1)) throw new Error(`selfspec: block size ${B} must be >= 1`);
  const mask = backend.config.mask_id;
  const seqs = await startBatch(backend, prefixes, opts, B);
  for (let round = 0; ; round++) {
    for (const s of seqs) if (!s.done && s.pos >= s.capacity) s.stop = 'max_positions';
    const active = seqs.map((s, i) => ({ s, i })).filter(({ s }) => !s.done);
    if (active.length === 0) break;
    // Near the end of the cache the block shrinks so draft and verify windows still fit.
    const blocks = active.map(({ s }) => Math.max(0, Math.min(B, s.capacity - s.pos - 2)));

    const drafts: WindowInput[] = active.map(({ s, i }, w) => ({
      seq: i,
      start: s.pos,
      ids: [s.x0, ...new Array<number>(blocks[w]).fill(mask)],
      mode: 'draft',
    }));
    const dOut = await backend.forward(drafts);
    const rounds: RoundTrace[] = [];
    const toVerify: { s: SeqState; i: number; w: number }[] = [];
    active.forEach(({ s, i }, w) => {
      s.forwards.draft++;
      const ids = Array.from(dOut[w].ids);
      const r = emptyRound(round, s.pos);
      r.a0 = ids[0];
      r.drafted = ids.slice(1);
      rounds[w] = r;
      if (ids[0] === s.eos || blocks[w] === 0) {
        // Nothing to verify: a0 is the causal (AR) token.
        s.commit([ids[0]], r);
        s.x0 = ids[0];
        s.pos += 1;
        backend.truncate(i, s.pos);
        opts.onRound?.(i, r);
      } else toVerify.push({ s, i, w });
    });
    if (toVerify.length === 0) continue;

    const verifies: WindowInput[] = toVerify.map(({ s, i, w }) => ({ seq: i, start: s.pos + 1, ids: [rounds[w].a0!, ...rounds[w].drafted], mode: 'causal' }));
    const vOut = await backend.forward(verifies);
    toVerify.forEach(({ s, i, w }, v) => {
      s.forwards.verify++;
      const r = rounds[w];
      const a = vOut[v].ids; // a[j] = a_{j+1}
      const d = r.drafted; // d[j] = d_{j+1}
      let k = 0;
      while (k < d.length && d[k] === a[k]) k++;
      r.accepted = k;
      r.rejected = k < d.length ? { index: k + 1, draft: d[k], replacement: a[k] } : null;
      const next = a[k];
      s.commit([r.a0!, ...d.slice(0, k), next], r);
      // Cache keeps x0, a0, d1..dk (positions pos..pos+k+1); the new x0 is a_{k+1}.
      backend.truncate(i, s.pos + k + 2);
      s.x0 = next;
      s.pos += k + 2;
      opts.onRound?.(i, r);
    });
  }
  return seqs.map((s) => s.result('selfspec'));
}
