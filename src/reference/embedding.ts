// CPU twin of shaders/embedding.wgsl: out[r] = ids[r] >= 0 ? table[ids[r]] : extra[-ids[r]-1].
export function embeddingRef(ids: Int32Array, table: Float32Array, extra: Float32Array, D: number): Float32Array {
  const M = ids.length;
  const out = new Float32Array(M * D);
  for (let r = 0; r < M; r++) {
    const id = ids[r];
    const src = id >= 0 ? table : extra;
    const row = id >= 0 ? id : -id - 1;
    if ((row + 1) * D > src.length) throw new Error(`embedding: row ${id} out of range`);
    out.set(src.subarray(row * D, row * D + D), r * D);
  }
  return out;
}
