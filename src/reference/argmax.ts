// CPU twin of shaders/argmax.wgsl: per-row argmax (ties → lowest index), top1 − top2 and the
// argmax's softmax probability.
export function argmaxRef(logits: Float32Array, M: number, V: number): { ids: Int32Array; margin: Float32Array; conf: Float32Array } {
  const ids = new Int32Array(M);
  const margin = new Float32Array(M);
  const conf = new Float32Array(M);
  for (let r = 0; r < M; r++) {
    const o = r * V;
    let v1 = -Infinity;
    let v2 = -Infinity;
    let i1 = 0;
    for (let j = 0; j < V; j++) {
      const v = logits[o + j];
      if (v > v1) {
        v2 = v1;
        v1 = v;
        i1 = j;
      } else if (v > v2) v2 = v;
    }
    ids[r] = i1;
    margin[r] = V > 1 ? v1 - v2 : 3.4e38;
    let s = 0;
    for (let j = 0; j < V; j++) s += Math.exp(logits[o + j] - v1);
    conf[r] = 1 / s;
  }
  return { ids, margin, conf };
}
