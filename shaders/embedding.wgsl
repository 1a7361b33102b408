// Embedding gather: builds the decoder input rows.
//   out[r, :] = table[ids[r], :]            when ids[r] >= 0 (token embedding)
//   out[r, :] = extra[-ids[r] - 1, :]       when ids[r] <  0 (a precomputed vision_proj row)
// Shapes: ids [M] (i32), table [V, D], extra [T, D], out [M, D].
// Thread mapping: one invocation per output element, flat index over (r, c), 2-D grid of
// workgroups so M·D may exceed 65535·WG.
override WG: u32 = 256;

struct Params { M: u32, D: u32, V: u32, T: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> ids: array<i32>;
@group(0) @binding(2) var<storage, read> table: array<f32>;
@group(0) @binding(3) var<storage, read> extra: array<f32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= p.M * p.D) { return; }
  let r = i / p.D;
  let c = i % p.D;
  let id = ids[r];
  if (id >= 0) {
    out[i] = table[u32(id) * p.D + c];
  } else {
    out[i] = extra[u32(-id - 1) * p.D + c];
  }
}
