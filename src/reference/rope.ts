// RoPE tables and the CPU twin of shaders/rope.wgsl (rotate-half on pairs (i, i + hd/2)).
// The tables follow training/gocr/model.py: θ_i = rope_theta^(−2i/hd) and angle = pos·θ_i in
// float64, cos/sin rounded to f32 once — so CPU, GPU and PyTorch rotate by the same numbers.
export interface RopeTables {
  cos: Float32Array; // [maxPos, hd/2]
  sin: Float32Array;
  half: number;
}

export function ropeTables(maxPos: number, hd: number, theta: number): RopeTables {
  const half = hd / 2;
  const cos = new Float32Array(maxPos * half);
  const sin = new Float32Array(maxPos * half);
  for (let i = 0; i < half; i++) {
    const invFreq = Math.pow(theta, (-2 * i) / hd);
    for (let p = 0; p < maxPos; p++) {
      const a = p * invFreq;
      cos[p * half + i] = Math.cos(a);
      sin[p * half + i] = Math.sin(a);
    }
  }
  return { cos, sin, half };
}

/** y[dstRow[r]] = rope(x[r], pos[r]); `y` must hold the destination rows. */
export function ropeRef(
  x: Float32Array,
  pos: ArrayLike<number>,
  dstRow: ArrayLike<number>,
  tables: RopeTables,
  M: number,
  H: number,
  hd: number,
  y: Float32Array,
): void {
  const half = hd / 2;
  const D = H * hd;
  for (let r = 0; r < M; r++) {
    const t = pos[r] * half;
    for (let h = 0; h < H; h++) {
      const src = r * D + h * hd;
      const dst = dstRow[r] * D + h * hd;
      for (let i = 0; i < half; i++) {
        const c = tables.cos[t + i];
        const s = tables.sin[t + i];
        const a = x[src + i];
        const b = x[src + i + half];
        y[dst + i] = a * c - b * s;
        y[dst + i + half] = b * c + a * s;
      }
    }
  }
}
