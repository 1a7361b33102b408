// Direct block diffusion (GravityOCR App. B.1), the baseline that self-spec improves on.
// A block of B tokens y1..yB after x0 (position p) is filled over several draft forwards of
// the window [x0, s1..sB] (s_j = y_j once filled, else <mask>; row j−1 predicts y_j, row B is
// unused): each step fills every still-masked slot whose argmax probability is ≥ threshold,
// and at least the most confident one. Row 0 is causal, so x0's slot already holds causal K/V;
// a finished block gets a cache-write forward — causal over y1..y(B−1) at p+1 — so the cache
// holds causal K/V again; y_B is the next x0 (as training/gocr/decode.py does).
// No verification: quality drops as the threshold falls. Tokens are committed once the slots
// before them are filled too (`tokenRound` records the step that filled each one), and decoding
// stops as soon as a committed EOS is reached (Python fills the rest of that block first).
import type { DecoderBackend, PrefixInput, WindowInput } from '../recognizer/model.ts';
import { emptyRound, startBatch, type DecodeOptions, type DecodeResult } from './trace.ts';

export interface DiffusionOptions extends DecodeOptions {
  blockSize?: number;
  /** Confidence (softmax probability) needed to fill a slot; default 0.9. */
  threshold?: number;
}

interface Block {
  phase: 'fill' | 'write';
  y: (number | null)[];
  filledAt: number[];
  committed: number;
}

export async function decodeDiffusion(backend: DecoderBackend, prefixes: PrefixInput[], opts: DiffusionOptions): Promise<DecodeResult[]> {
  const B0 = opts.blockSize ?? 32;
  const thr = opts.threshold ?? 0.9;
  const mask = backend.config.mask_id;
  const seqs = await startBatch(backend, prefixes, opts, B0);
  const blocks: (Block | null)[] = seqs.map(() => null);
  for (let round = 0; ; round++) {
    const windows: WindowInput[] = [];
    const who: number[] = [];
    seqs.forEach((s, i) => {
      if (s.done) return;
      if (!blocks[i]) {
        const B = Math.min(B0, s.capacity - s.pos - 1);
        if (B < 1) {
          s.stop = 'max_positions';
          return;
        }
        blocks[i] = { phase: 'fill', y: new Array<number | null>(B).fill(null), filledAt: new Array<number>(B).fill(-1), committed: 0 };
      }
      const b = blocks[i]!;
      if (b.phase === 'fill') windows.push({ seq: i, start: s.pos, ids: [s.x0, ...b.y.map((t) => t ?? mask)], mode: 'draft' });
      else windows.push({ seq: i, start: s.pos + 1, ids: b.y.slice(0, -1) as number[], mode: 'causal' });
      who.push(i);
    });
    if (windows.length === 0) break;
    const out = await backend.forward(windows);
    who.forEach((i, w) => {
      const s = seqs[i];
      const b = blocks[i]!;
      if (b.phase === 'write') {
        s.forwards.cacheWrite++;
        advance(i);
        return;
      }
      s.forwards.draft++;
      const { ids, conf } = out[w];
      let best = -1;
      const fill: number[] = [];
      for (let j = 0; j < b.y.length; j++) {
        if (b.y[j] !== null) continue;
        if (best < 0 || conf[j] > conf[best]) best = j;
        if (conf[j] >= thr) fill.push(j);
      }
      if (fill.length === 0) fill.push(best);
      for (const j of fill) {
        b.y[j] = ids[j];
        b.filledAt[j] = round;
      }
      const r = emptyRound(round, s.pos);
      r.drafted = b.y.map((t) => t ?? -1);
      let n = b.committed;
      while (n < b.y.length && b.y[n] !== null) n++;
      s.commit(b.y.slice(b.committed, n) as number[], r, b.filledAt.slice(b.committed, n));
      b.committed = n;
      opts.onRound?.(i, r);
      if (n === b.y.length) {
        backend.truncate(i, s.pos + 1); // x0's causal K/V from row 0; mask slots are scratch
        if (b.y.length > 1) b.phase = 'write';
        else advance(i);
      }
    });
  }
  return seqs.map((s) => s.result('diffusion'));

  /** The block is in the cache (causal): its last token becomes x0 at p + B. */
  function advance(i: number): void {
    const s = seqs[i];
    const y = blocks[i]!.y;
    s.pos += y.length;
    s.x0 = y[y.length - 1] as number;
    backend.truncate(i, s.pos);
    blocks[i] = null;
  }
}
