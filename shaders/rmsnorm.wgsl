// RMSNorm: y[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * w.
// Shapes: x [M, D], w [D], y [M, D].
// Thread mapping: one workgroup per row; invocation t sums squares of columns t, t+WG, ...
// in order, then a fixed binary tree combines the WG partials. The reduction order depends
// only on D and WG, never on M, so a row's result is the same in any batch or window.
override WG: u32 = 64;

struct Params { M: u32, D: u32, eps: f32, _pad: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

var<workgroup> partial: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let r = wid.x;
  let t = lid.x;
  let base = r * p.D;
  var s = 0.0;
  for (var c = t; c < p.D; c += WG) {
    let v = x[base + c];
    s += v * v;
  }
  partial[t] = s;
  workgroupBarrier();
  for (var half = WG / 2u; half > 0u; half = half / 2u) {
    if (t < half) { partial[t] = partial[t] + partial[t + half]; }
    workgroupBarrier();
  }
  let inv = 1.0 / sqrt(partial[0] / f32(p.D) + p.eps);
  for (var c = t; c < p.D; c += WG) {
    y[base + c] = x[base + c] * inv * w[c];
  }
}
