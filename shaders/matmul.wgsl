// Tiled matmul with PyTorch Linear weights: y[M, N] = x[M, K] · W[N, K]ᵀ (+ bias[N]).
// Thread mapping: a TILE×TILE workgroup owns a TILE×TILE block of y; invocation (tx, ty)
// owns y[row0 + ty, col0 + tx]. Each K-step stages a TILE×TILE slab of x and of W in
// workgroup memory (zero-padded past M, N, K). Every output element accumulates its
// products in k = 0, 1, …, K-1 order in one register, so a row's result is bit-identical
// whatever M is — an AR step (M = 1) and a verify window row give the same logits.
override TILE: u32 = 16;

struct Params { M: u32, N: u32, K: u32, hasBias: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

var<workgroup> xs: array<f32, TILE * TILE>;
var<workgroup> ws: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let tx = lid.x;
  let ty = lid.y;
  let row = wid.y * TILE + ty;
  let col = wid.x * TILE + tx;
  let wrow = wid.x * TILE + ty;  // the W row this invocation stages
  var acc = 0.0;
  for (var k0 = 0u; k0 < p.K; k0 += TILE) {
    let k = k0 + tx;
    var xv = 0.0;
    if (row < p.M && k < p.K) { xv = x[row * p.K + k]; }
    xs[ty * TILE + tx] = xv;
    var wv = 0.0;
    if (wrow < p.N && k < p.K) { wv = w[wrow * p.K + k]; }
    ws[ty * TILE + tx] = wv;
    workgroupBarrier();
    let kn = min(TILE, p.K - k0);
    for (var kk = 0u; kk < kn; kk++) {
      acc += xs[ty * TILE + kk] * ws[tx * TILE + kk];
    }
    workgroupBarrier();
  }
  if (row < p.M && col < p.N) {
    if (p.hasBias != 0u) { acc += bias[col]; }
    y[row * p.N + col] = acc;
  }
}
