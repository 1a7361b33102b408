// CPU twin of shaders/matmul.wgsl: y[M, N] = x[M, K] · W[N, K]ᵀ (+ bias[N]).
// Each element sums k = 0..K−1 in order (in double), so rows are independent of M.
export function matmulRef(
  x: Float32Array,
  w: Float32Array,
  bias: Float32Array | null,
  M: number,
  N: number,
  K: number,
): Float32Array {
  if (x.length < M * K || w.length < N * K) throw new Error(`matmul: bad shapes M${M} N${N} K${K}`);
  const y = new Float32Array(M * N);
  for (let r = 0; r < M; r++) {
    const xo = r * K;
    for (let n = 0; n < N; n++) {
      const wo = n * K;
      let acc = 0;
      for (let k = 0; k < K; k++) acc += x[xo + k] * w[wo + k];
      y[r * N + n] = bias ? acc + bias[n] : acc;
    }
  }
  return y;
}
