// Test helper: wraps a real backend and replaces the mask rows' outputs of draft windows
// with a known continuation (e.g. the AR output), corrupted at chosen rates. Verification
// then accepts long runs on real numerics, which exercises the KV-cache invariant (verify
// overwrites the bidirectional mask slots) far more than random drafts do.
import type { DecoderBackend, PrefixInput, WindowInput, WindowOutput } from '../recognizer/model.ts';

export class OracleDrafts implements DecoderBackend {
  constructor(
    private inner: DecoderBackend,
    /** Per sequence: the response tokens the drafts should propose (AR output + EOS). */
    private continuation: number[][],
    private prefixLen: number[],
    /** Returns true to corrupt the draft for response index n. */
    private corrupt: (seq: number, n: number) => boolean = () => false,
  ) {}
  get kind() { return this.inner.kind; }
  get config() { return this.inner.config; }
  get capacity() { return this.inner.capacity; }
  prefill(p: PrefixInput[], o?: { capacity?: number }) { return this.inner.prefill(p, o); }
  truncate(s: number, n: number) { this.inner.truncate(s, n); }
  cachedLength(s: number) { return this.inner.cachedLength(s); }
  dispose() { this.inner.dispose(); }

  async forward(windows: WindowInput[], opts?: { logits?: boolean }): Promise<WindowOutput[]> {
    const out = await this.inner.forward(windows, opts);
    windows.forEach((w, k) => {
      if (w.mode !== 'draft') return;
      for (let i = 1; i < w.ids.length; i++) {
        const n = w.start + i + 1 - this.prefixLen[w.seq]; // response index predicted by row i
        const truth = this.continuation[w.seq][n] ?? this.config.eos_id;
        out[k].ids[i] = this.corrupt(w.seq, n) ? (truth + 1) % this.config.vocab_size : truth;
      }
    });
    return out;
  }
}
