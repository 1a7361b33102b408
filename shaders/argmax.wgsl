// LM-head argmax with top-2 margin: per row r of logits [M, V],
//   ids[r] = argmax_j logits[r, j] (ties → lowest j), margin[r] = top1 − top2,
//   conf[r] = softmax probability of the argmax = 1 / Σ_j exp(logits[r, j] − top1).
// Thread mapping: one workgroup per row; invocation t scans columns t, t+WG, … keeping
// (best value, best index, second value); a fixed binary tree merges the WG triples; a second
// sweep sums exp(l − top1) per invocation and a fixed tree adds the partials.
override WG: u32 = 64;

struct Params { M: u32, V: u32, _a: u32, _b: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read_write> ids: array<u32>;
@group(0) @binding(3) var<storage, read_write> margin: array<f32>;
@group(0) @binding(4) var<storage, read_write> conf: array<f32>;

const NEG: f32 = -3.4e38;
var<workgroup> b1: array<f32, WG>;
var<workgroup> bi: array<u32, WG>;
var<workgroup> b2: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let r = wid.x;
  let t = lid.x;
  var v1 = NEG;
  var i1 = 0xffffffffu;
  var v2 = NEG;
  for (var j = t; j < p.V; j += WG) {
    let v = logits[r * p.V + j];
    if (v > v1) { v2 = v1; v1 = v; i1 = j; } else if (v > v2) { v2 = v; }
  }
  b1[t] = v1; bi[t] = i1; b2[t] = v2;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half = half / 2u) {
    if (t < half) {
      let a1 = b1[t]; let ai = bi[t]; let a2 = b2[t];
      let c1 = b1[t + half]; let ci = bi[t + half]; let c2 = b2[t + half];
      if (c1 > a1 || (c1 == a1 && ci < ai)) {
        b1[t] = c1; bi[t] = ci; b2[t] = max(a1, c2);
      } else {
        b2[t] = max(a2, c1);
      }
    }
    workgroupBarrier();
  }
  let top = b1[0];
  let second = b2[0];
  var s = 0.0;
  for (var j = t; j < p.V; j += WG) { s += exp(logits[r * p.V + j] - top); }
  workgroupBarrier();
  b2[t] = s;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half = half / 2u) {
    if (t < half) { b2[t] = b2[t] + b2[t + half]; }
    workgroupBarrier();
  }
  if (t == 0u) {
    ids[r] = bi[0];
    margin[r] = top - second;
    conf[r] = 1.0 / b2[0];
  }
}
