// Aggregation helpers for the benchmark report: output-length buckets, means, throughput ratios.

export const LENGTH_BUCKETS = ['<128', '128-511', '512-1023', '>=1024'] as const;
export type LengthBucket = (typeof LENGTH_BUCKETS)[number];

/** Bucket of an output length in tokens (EOS excluded): <128, 128–511, 512–1023, ≥1024. */
export function lengthBucket(tokens: number): LengthBucket {
  if (tokens < 128) return '<128';
  if (tokens < 512) return '128-511';
  if (tokens < 1024) return '512-1023';
  return '>=1024';
}

export function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}

/** a / b, or null when either is missing or b is 0. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return a / b;
}

/** Units per second, or null for an empty or zero-length measurement. */
export function perSecond(units: number, ms: number): number | null {
  return ms > 0 && units > 0 ? (units * 1000) / ms : null;
}

/**
 * Pooled tokens per forward over several sequences: Σ committed tokens / Σ forwards (a long region
 * weighs more, as in the paper's TPF over a test set). Null when no forward ran.
 */
export function pooledTpf(items: { tokens: number; forwards: number }[]): number | null {
  let t = 0, f = 0;
  for (const x of items) {
    t += x.tokens;
    f += x.forwards;
  }
  return f > 0 ? t / f : null;
}

/** Groups items by a key, keeping first-seen order. */
export function groupBy<T, K extends string>(items: T[], key: (x: T) => K): Map<K, T[]> {
  const m = new Map<K, T[]>();
  for (const x of items) {
    const k = key(x);
    const g = m.get(k);
    if (g) g.push(x);
    else m.set(k, [x]);
  }
  return m;
}
