// Seeded PRNG (mulberry32) for reproducible random shapes, inputs and tiny test models.
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)];
  }
  /** Approximately normal (sum of uniforms), scaled. */
  normal(scale = 1): number {
    let s = 0;
    for (let i = 0; i < 4; i++) s += this.next();
    return (s - 2) * Math.sqrt(3) * scale;
  }
  floats(n: number, scale = 1): Float32Array {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) a[i] = this.normal(scale);
    return a;
  }
}
