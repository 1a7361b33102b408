// Attention of window rows over a batched KV cache.
// Legend: M window rows (of any sequences), H heads, hd head dim, D = H·hd, P = maxPos
// (cache slots per sequence). The cache holds K (already rotated) and V rows at slot
// seq·P + position; the window's own K/V are written there before this kernel runs.
// Row r of sequence rowSeq[r] sees cache slots 0 .. rowKv[r]−1 of its sequence: the host
// sets rowKv = position+1 for causal rows and window end for draft mask rows, so prefill,
// draft and verify are one kernel with different rowKv.
//   out[r, h] = Σ_j softmax_j(q[r,h]·k[j,h] · scale) · v[j,h]
// Thread mapping: one workgroup per (h, r). Invocation t scores keys t, t+WG, … (each a
// sequential dot over hd) into a global scratch row, a fixed tree takes max and sum, then
// invocation t produces output dims t, t+WG, … summing keys in order 0..n−1. Every order
// depends only on (n, hd, WG): a row's output does not depend on M or the other rows.
override WG: u32 = 64;

struct Params { M: u32, H: u32, hd: u32, P: u32, scale: f32, _a: u32, _b: u32, _c: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> kc: array<f32>;
@group(0) @binding(3) var<storage, read> vc: array<f32>;
@group(0) @binding(4) var<storage, read> rowSeq: array<u32>;
@group(0) @binding(5) var<storage, read> rowKv: array<u32>;
@group(0) @binding(6) var<storage, read_write> scores: array<f32>;
@group(0) @binding(7) var<storage, read_write> out: array<f32>;

const NEG: f32 = -3.4e38;
var<workgroup> red: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let h = wid.x;
  let r = wid.y;
  let t = lid.x;
  let D = p.H * p.hd;
  let n = rowKv[r];
  let slot0 = rowSeq[r] * p.P;
  let qo = r * D + h * p.hd;
  let so = (r * p.H + h) * p.P;

  var mx = NEG;
  for (var j = t; j < n; j += WG) {
    let ko = (slot0 + j) * D + h * p.hd;
    var s = 0.0;
    for (var d = 0u; d < p.hd; d++) { s += q[qo + d] * kc[ko + d]; }
    s = s * p.scale;
    scores[so + j] = s;
    mx = max(mx, s);
  }
  red[t] = mx;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half = half / 2u) {
    if (t < half) { red[t] = max(red[t], red[t + half]); }
    workgroupBarrier();
  }
  let m = red[0];
  workgroupBarrier();

  var sum = 0.0;
  for (var j = t; j < n; j += WG) {
    let e = exp(scores[so + j] - m);
    scores[so + j] = e;
    sum += e;
  }
  red[t] = sum;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half = half / 2u) {
    if (t < half) { red[t] = red[t] + red[t + half]; }
    workgroupBarrier();
  }
  let inv = 1.0 / red[0];
  storageBarrier();

  for (var d = t; d < p.hd; d += WG) {
    var acc = 0.0;
    for (var j = 0u; j < n; j++) {
      acc += scores[so + j] * vc[(slot0 + j) * D + h * p.hd + d];
    }
    out[qo + d] = acc * inv;
  }
}
