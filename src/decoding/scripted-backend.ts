// A model-free DecoderBackend for tests and UI demos: each sequence has a target response.
// A causal row whose history matches the target predicts the target's next token (else a
// hash of the history); a draft mask row guesses the target token it stands for, wrong with
// probability `draftError` (seeded). Greedy AR on it reproduces the target, so self-spec and
// diffusion traces can be checked against known acceptance patterns.
import type { ModelConfig } from '../recognizer/config.ts';
import type { DecoderBackend, PrefixInput, WindowInput, WindowOutput } from '../recognizer/model.ts';

export class ScriptedBackend implements DecoderBackend {
  readonly kind = 'scripted';
  capacity = 0;
  private hist: number[][] = [];
  private prefixLen: number[] = [];
  calls = 0;

  constructor(
    readonly config: ModelConfig,
    private targets: number[][],
    private draftError = 0,
    private seed = 1,
  ) {}

  async prefill(prefixes: PrefixInput[], opts: { capacity?: number } = {}): Promise<void> {
    this.capacity = Math.min(opts.capacity ?? this.config.max_positions, this.config.max_positions);
    this.hist = prefixes.map((p) => Array.from(p.ids.slice(0, -1)));
    this.prefixLen = prefixes.map((p) => p.ids.length);
  }

  async forward(windows: WindowInput[]): Promise<WindowOutput[]> {
    this.calls++;
    return windows.map((w) => {
      const h = this.hist[w.seq];
      if (w.start > h.length) throw new Error('scripted: hole in cache');
      h.length = w.start;
      for (let i = 0; i < w.ids.length; i++) h.push(w.ids[i]);
      const L = w.ids.length;
      const ids = new Int32Array(L);
      for (let i = 0; i < L; i++) {
        const pos = w.start + i;
        ids[i] = w.mode === 'draft' && i > 0 ? this.guess(w.seq, w.start, pos) : this.next(w.seq, h.slice(0, pos + 1));
      }
      return { ids, margins: new Float32Array(L).fill(1), conf: Float32Array.from(ids, (_, i) => (i === 0 ? 1 : 0.5 + 0.5 * this.rand(w.seq, w.start + i, 7))) };
    });
  }

  truncate(seq: number, length: number): void {
    this.hist[seq].length = length;
  }

  cachedLength(seq: number): number {
    return this.hist[seq].length;
  }

  dispose(): void {}

  /** Response index of the token at `pos` (the task token sits at prefixLen − 1). */
  private idx(seq: number, pos: number): number {
    return pos - this.prefixLen[seq];
  }

  private next(seq: number, history: number[]): number {
    const t = this.targets[seq];
    const n = this.idx(seq, history.length - 1) + 1; // response index being predicted
    let ok = true;
    for (let j = 0; j < n && ok; j++) ok = history[this.prefixLen[seq] + j] === t[j];
    if (ok && n < t.length) return t[n];
    let hsh = 17;
    for (const x of history) hsh = (hsh * 31 + x + 7) >>> 0;
    return 9 + (hsh % (this.config.vocab_size - 9));
  }

  /** Draft guess for the token after position `pos`, given that x0 sits at `start`. */
  private guess(seq: number, start: number, pos: number): number {
    const t = this.targets[seq];
    const n = this.idx(seq, pos) + 1;
    const truth = n >= 0 && n < t.length ? t[n] : this.config.eos_id;
    if (this.rand(seq, start * 1000 + pos, 3) < this.draftError) return 9 + ((truth + 1) % (this.config.vocab_size - 9));
    return truth;
  }

  private rand(a: number, b: number, c: number): number {
    let x = (this.seed * 2654435761 + a * 40503 + b * 9973 + c * 7919) >>> 0;
    x ^= x >>> 13;
    x = Math.imul(x, 0x5bd1e995) >>> 0;
    x ^= x >>> 15;
    return (x >>> 0) / 4294967296;
  }
}
