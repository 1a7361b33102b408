// Rotary position embedding, rotate-half form on pairs (i, i + hd/2):
//   y[i]        = x[i]·cos(pos·θ_i) − x[i+hd/2]·sin(pos·θ_i)
//   y[i + hd/2] = x[i+hd/2]·cos(pos·θ_i) + x[i]·sin(pos·θ_i)
// cos/sin come from tables [maxPos, hd/2] built on the CPU (src/reference/rope.ts) so the
// GPU, the CPU twin and PyTorch use the same angles. The output row is dstRow[r]: identity
// for queries, the (sequence, position) slot of the KV cache for keys.
// Shapes: x [M, H·hd], pos [M], dstRow [M], cos/sin [maxPos, hd/2], y [rows, H·hd].
// Thread mapping: one invocation per (r, h, i), i < hd/2.
override WG: u32 = 256;

struct Params { M: u32, H: u32, hd: u32, _pad: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> pos: array<u32>;
@group(0) @binding(3) var<storage, read> dstRow: array<u32>;
@group(0) @binding(4) var<storage, read> cosT: array<f32>;
@group(0) @binding(5) var<storage, read> sinT: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let half = p.hd / 2u;
  let g = gid.x + gid.y * nwg.x * WG;
  if (g >= p.M * p.H * half) { return; }
  let i = g % half;
  let h = (g / half) % p.H;
  let r = g / (half * p.H);
  let D = p.H * p.hd;
  let src = r * D + h * p.hd;
  let dst = dstRow[r] * D + h * p.hd;
  let c = cosT[pos[r] * half + i];
  let s = sinT[pos[r] * half + i];
  let a = x[src + i];
  let b = x[src + i + half];
  y[dst + i] = a * c - b * s;
  y[dst + i + half] = b * c + a * s;
}
