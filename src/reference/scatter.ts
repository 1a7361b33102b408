// CPU twin of shaders/scatter.wgsl: dst[dstRow[r], :] = src[r, :].
export function scatterRef(src: Float32Array, dstRow: ArrayLike<number>, M: number, D: number, dst: Float32Array): void {
  for (let r = 0; r < M; r++) dst.set(src.subarray(r * D, r * D + D), dstRow[r] * D);
}
