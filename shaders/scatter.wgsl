// Row scatter: dst[dstRow[r], :] = src[r, :]. Writes value rows of a window into their
// (sequence, position) slots of the KV cache.
// Shapes: src [M, D], dstRow [M], dst [rows, D]. One invocation per element of src.
override WG: u32 = 256;

struct Params { M: u32, D: u32, _a: u32, _b: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> dstRow: array<u32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.M * p.D) { return; }
  let r = i / p.D;
  let c = i % p.D;
  dst[dstRow[r] * p.D + c] = src[i];
}
