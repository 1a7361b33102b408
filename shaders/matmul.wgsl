// Matmul with PyTorch Linear weights: y[M, N] = x[M, K] · W[N, K]ᵀ (+ bias[N]).
// Thread mapping: invocation (gx, r) owns y[r, 4gx .. 4gx+3] — one row, a 4-column register
// tile held in the lanes of a vec4 accumulator. Each step loads x[r, k..k+3] once and a 4×4
// block of W (four W rows, 4 consecutive k) as vec4s, then adds x[r,k]·W[:,k] for k in order.
// So every output element sums its K products in k = 0, 1, …, K−1 order in its own vec4 lane,
// with the same instruction stream for every row: a row's result is bit-identical whatever M
// is and wherever the row sits in the batch (AR step ≡ verify-window row).
// Why no workgroup-memory tiling: its barriers dominate on SwiftShader (a 1×768×256 product
// took ~360 ms tiled vs ~3 ms here), and a 2-D register tile would put different rows in
// different unrolled code, which a compiler may round differently.
override WG: u32 = 64;

struct Params { M: u32, N: u32, K: u32, hasBias: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

fn w4(o: u32) -> vec4f {
  return vec4f(w[o], w[o + 1u], w[o + 2u], w[o + 3u]);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let c0 = gid.x * 4u;
  let r = gid.y;
  if (c0 >= p.N || r >= p.M) { return; }
  let xo = r * p.K;
  // Columns past N read row N−1 (valid memory); their lanes are never stored.
  let o0 = min(c0, p.N - 1u) * p.K;
  let o1 = min(c0 + 1u, p.N - 1u) * p.K;
  let o2 = min(c0 + 2u, p.N - 1u) * p.K;
  let o3 = min(c0 + 3u, p.N - 1u) * p.K;
  var acc = vec4f(0.0);
  var k = 0u;
  for (; k + 4u <= p.K; k += 4u) {
    let a = w4(o0 + k);
    let b = w4(o1 + k);
    let c = w4(o2 + k);
    let d = w4(o3 + k);
    acc += x[xo + k] * vec4f(a.x, b.x, c.x, d.x);
    acc += x[xo + k + 1u] * vec4f(a.y, b.y, c.y, d.y);
    acc += x[xo + k + 2u] * vec4f(a.z, b.z, c.z, d.z);
    acc += x[xo + k + 3u] * vec4f(a.w, b.w, c.w, d.w);
  }
  for (; k < p.K; k++) {
    acc += x[xo + k] * vec4f(w[o0 + k], w[o1 + k], w[o2 + k], w[o3 + k]);
  }
  for (var j = 0u; j < 4u; j++) {
    let col = c0 + j;
    if (col < p.N) {
      var v = acc[j];
      if (p.hasBias != 0u) { v += bias[col]; }
      y[r * p.N + col] = v;
    }
  }
}
