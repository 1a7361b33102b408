// Edit distance (unit insert/delete/substitute) over any sequence, and the normalized forms the
// metrics use. Two-row dynamic programming: O(n·m) time, O(min(n, m)) memory.

export function levenshtein<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  if (a.length < b.length) [a, b] = [b, a];
  const n = a.length, m = b.length;
  if (m === 0) return n;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    const ai = a[i - 1];
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1] + (ai === b[j - 1] ? 0 : 1);
      const del = prev[j] + 1;
      const ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[m];
}

/** Code points of a string (so a surrogate pair counts as one character). */
export function chars(s: string): string[] {
  return Array.from(s);
}

/** Edit distance divided by the longer length, in [0, 1]; 0 when both are empty. */
export function normalizedLevenshtein<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  const n = Math.max(a.length, b.length);
  return n === 0 ? 0 : levenshtein(a, b) / n;
}

/** Normalized edit similarity: 1 − normalizedLevenshtein. */
export function nes<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  return 1 - normalizedLevenshtein(a, b);
}
