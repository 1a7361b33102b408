// CPU twin of shaders/rmsnorm.wgsl: y = x / sqrt(mean(x²) + eps) · w, row by row.
export function rmsnormRef(x: Float32Array, w: Float32Array, M: number, D: number, eps: number): Float32Array {
  const y = new Float32Array(M * D);
  for (let r = 0; r < M; r++) {
    const o = r * D;
    let s = 0;
    for (let c = 0; c < D; c++) s += x[o + c] * x[o + c];
    const inv = 1 / Math.sqrt(s / D + eps);
    for (let c = 0; c < D; c++) y[o + c] = x[o + c] * inv * w[c];
  }
  return y;
}
