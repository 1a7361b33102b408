// Decoding results and traces shared by AR, self-speculative and direct-diffusion decoding.
// The UI colours tokens by `tokenRound`, shows drafts/rejections from `rounds`, and the
// benchmarks read `forwards` and `tpf` — all from the same object.
import type { DecoderBackend, PrefixInput } from '../recognizer/model.ts';

export type Method = 'ar' | 'selfspec' | 'diffusion';
export type StopReason = 'eos' | 'max_new_tokens' | 'max_positions';

export interface RoundTrace {
  round: number;
  /** Position of the round's first window row (x0 for AR / self-spec / diffusion blocks). */
  position: number;
  /** Self-spec: d1..dB from the draft pass. Diffusion: the block's state after the step (−1 = still masked). */
  drafted: number[];
  /** Self-spec: a0 from the draft's causal row (null for other methods). */
  a0: number | null;
  /** Self-spec: how many drafts the verifier accepted (k). */
  accepted: number;
  /** Self-spec: the first rejected draft and the verifier's replacement; null when all were accepted (bonus). */
  rejected: { index: number; draft: number; replacement: number } | null;
  /** Tokens this round committed, in order (EOS included when it stopped the sequence). */
  committed: number[];
}

export interface ForwardCounts {
  ar: number;
  draft: number;
  verify: number;
  cacheWrite: number;
}

export interface DecodeTrace {
  method: Method;
  /** For each committed token (EOS included), the round that committed it. */
  tokenRound: number[];
  rounds: RoundTrace[];
  forwards: ForwardCounts;
  /** committed tokens / decode forwards (AR steps, drafts, verifies, cache writes); prefill excluded. */
  tpf: number;
}

export interface DecodeResult {
  /** Response tokens, EOS excluded. */
  tokens: number[];
  stop: StopReason;
  trace: DecodeTrace;
}

export interface DecodeOptions {
  maxNewTokens: number;
  /** Called after every round of every sequence (live UI). */
  onRound?: (seq: number, round: RoundTrace) => void;
  /** KV slots per sequence; default: enough for prefix + maxNewTokens + a block (≤ max_positions). */
  capacity?: number;
  /**
   * The backend already holds these prefixes' prefill (same order): skip prefill and cut each
   * cache back to its prefix. Lets AR, self-spec and diffusion share one prefill.
   */
  reusePrefill?: boolean;
}

/** Per-sequence bookkeeping common to the three loops. */
export class SeqState {
  tokens: number[] = [];
  committedAll: number[] = [];
  tokenRound: number[] = [];
  rounds: RoundTrace[] = [];
  forwards: ForwardCounts = { ar: 0, draft: 0, verify: 0, cacheWrite: 0 };
  stop: StopReason | null = null;
  x0: number;
  /** Position of x0 (not yet in the cache). */
  pos: number;

  constructor(prefix: PrefixInput, readonly maxNew: number, readonly eos: number, readonly capacity: number) {
    this.x0 = prefix.ids[prefix.ids.length - 1];
    this.pos = prefix.ids.length - 1;
  }

  get done(): boolean {
    return this.stop !== null;
  }

  /**
   * Commits `toks` in round `round.round` (or at `tokenRounds[i]` per token), cutting at EOS and
   * at max_new_tokens; records the round with `committed` trimmed to what was kept.
   */
  commit(toks: number[], round: RoundTrace, tokenRounds?: number[]): number {
    const kept: number[] = [];
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i];
      if (this.tokens.length >= this.maxNew) break;
      kept.push(t);
      this.tokenRound.push(tokenRounds ? tokenRounds[i] : round.round);
      this.committedAll.push(t);
      if (t === this.eos) {
        this.stop = 'eos';
        break;
      }
      this.tokens.push(t);
    }
    if (!this.stop && this.tokens.length >= this.maxNew) this.stop = 'max_new_tokens';
    round.committed = kept;
    this.rounds.push(round);
    return kept.length;
  }

  result(method: Method): DecodeResult {
    const f = this.forwards;
    const n = f.ar + f.draft + f.verify + f.cacheWrite;
    return {
      tokens: this.tokens,
      stop: this.stop ?? 'max_positions',
      trace: { method, tokenRound: this.tokenRound, rounds: this.rounds, forwards: f, tpf: n > 0 ? this.committedAll.length / n : 0 },
    };
  }
}

/** Prefills the batch and returns one state per sequence. */
export async function startBatch(backend: DecoderBackend, prefixes: PrefixInput[], opts: DecodeOptions, extra: number): Promise<SeqState[]> {
  const c = backend.config;
  const longest = Math.max(...prefixes.map((p) => p.ids.length));
  let capacity = Math.min(c.max_positions, opts.capacity ?? longest + opts.maxNewTokens + extra + 2);
  if (opts.reusePrefill) {
    capacity = backend.capacity;
    prefixes.forEach((p, i) => backend.truncate(i, p.ids.length - 1));
  } else await backend.prefill(prefixes, { capacity });
  return prefixes.map((p) => {
    const s = new SeqState(p, opts.maxNewTokens, c.eos_id, capacity);
    if (opts.maxNewTokens <= 0) s.stop = 'max_new_tokens';
    return s;
  });
}

export function emptyRound(round: number, position: number): RoundTrace {
  return { round, position, drafted: [], a0: null, accepted: 0, rejected: null, committed: [] };
}
