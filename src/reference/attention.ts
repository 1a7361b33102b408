// CPU twin of shaders/attention.wgsl (same legend: M rows, H heads, hd, D = H·hd,
// P cache slots per sequence). Row r of sequence rowSeq[r] attends to cache slots
// 0..rowKv[r]−1 of that sequence; K rows in the cache are already rotated.
export function attentionRef(
  q: Float32Array,
  kc: Float32Array,
  vc: Float32Array,
  rowSeq: ArrayLike<number>,
  rowKv: ArrayLike<number>,
  M: number,
  H: number,
  hd: number,
  P: number,
): Float32Array {
  const D = H * hd;
  const scale = 1 / Math.sqrt(hd);
  const out = new Float32Array(M * D);
  const s = new Float64Array(P);
  for (let r = 0; r < M; r++) {
    const n = rowKv[r];
    if (n < 1 || n > P) throw new Error(`attention: row ${r} sees ${n} keys (P=${P})`);
    const slot0 = rowSeq[r] * P;
    for (let h = 0; h < H; h++) {
      const qo = r * D + h * hd;
      let mx = -Infinity;
      for (let j = 0; j < n; j++) {
        const ko = (slot0 + j) * D + h * hd;
        let acc = 0;
        for (let d = 0; d < hd; d++) acc += q[qo + d] * kc[ko + d];
        s[j] = acc * scale;
        if (s[j] > mx) mx = s[j];
      }
      let sum = 0;
      for (let j = 0; j < n; j++) {
        s[j] = Math.exp(s[j] - mx);
        sum += s[j];
      }
      for (let d = 0; d < hd; d++) {
        let acc = 0;
        for (let j = 0; j < n; j++) acc += s[j] * vc[(slot0 + j) * D + h * hd + d];
        out[qo + d] = acc / sum;
      }
    }
  }
  return out;
}
