// Greedy autoregressive decoding over a DecoderBackend: one causal single-row window per
// step and sequence, all unfinished sequences of the batch in one forward. TPF is 1.
import type { DecoderBackend, PrefixInput, WindowInput } from '../recognizer/model.ts';
import { emptyRound, startBatch, type DecodeOptions, type DecodeResult } from './trace.ts';

export async function decodeAR(backend: DecoderBackend, prefixes: PrefixInput[], opts: DecodeOptions): Promise<DecodeResult[]> {
  const seqs = await startBatch(backend, prefixes, opts, 0);
  for (let round = 0; ; round++) {
    const live = seqs.map((s, i) => ({ s, i })).filter(({ s }) => !s.done);
    for (const { s } of live) if (s.pos >= s.capacity) s.stop = 'max_positions';
    const active = live.filter(({ s }) => !s.done);
    if (active.length === 0) break;
    const windows: WindowInput[] = active.map(({ s, i }) => ({ seq: i, start: s.pos, ids: [s.x0], mode: 'causal' }));
    const out = await backend.forward(windows);
    active.forEach(({ s, i }, w) => {
      s.forwards.ar++;
      const t = out[w].ids[0];
      const r = emptyRound(round, s.pos);
      s.commit([t], r);
      s.x0 = t;
      s.pos += 1;
      opts.onRound?.(i, r);
    });
  }
  return seqs.map((s) => s.result('ar'));
}
