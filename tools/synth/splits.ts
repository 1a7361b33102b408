/** Disjoint page-seed ranges per split (see docs/SYNTH.md). */
export const SPLITS = {
  train: { start: 0, size: 900_000 },
  val: { start: 900_000, size: 50_000 },
  test: { start: 950_000, size: 50_000 },
} as const;
export type Split = keyof typeof SPLITS;

/** page seed of the i-th page of a run started with --seed s in a split */
export function pageSeed(split: Split, s: number, i: number): number {
  const r = SPLITS[split];
  return r.start + (((s + i) % r.size) + r.size) % r.size;
}

export function splitOf(seed: number): Split {
  if (seed >= SPLITS.test.start) return 'test';
  if (seed >= SPLITS.val.start) return 'val';
  return 'train';
}

export function pageId(seed: number): string {
  return 'p' + String(seed).padStart(7, '0');
}
