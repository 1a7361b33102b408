// inkbbox.wgsl — bounding box of "ink" (pixels darker than a threshold) in an RGBA8 image.
//
// Used by the worker to report a page's content box and to trim region crops.
// Thread → data: one invocation per pixel on a WG_X × WG_Y tile. Each invocation tests its
// pixel's luma (BT.601 integer weights, same as src/reference/inkbbox.ts) and folds it into the
// tile's box with workgroup atomics; one invocation per tile then folds the tile box into the
// global box with storage atomics. Empty image → box stays at its sentinel (min = 0xffffffff).

override WG_X: u32 = 16u;
override WG_Y: u32 = 16u;

struct Params {
  width: u32,
  height: u32,
  threshold: u32, // a pixel is ink when luma < threshold (0..255)
  _pad: u32,
};

struct Box {
  min_x: atomic<u32>,
  min_y: atomic<u32>,
  max_x: atomic<u32>,
  max_y: atomic<u32>,
};

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> pixels: array<u32>; // RGBA8 little-endian, one u32 per pixel
@group(0) @binding(2) var<storage, read_write> box: Box;

var<workgroup> tile_min_x: atomic<u32>;
var<workgroup> tile_min_y: atomic<u32>;
var<workgroup> tile_max_x: atomic<u32>;
var<workgroup> tile_max_y: atomic<u32>;
var<workgroup> tile_hits: atomic<u32>;

@compute @workgroup_size(WG_X, WG_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    atomicStore(&tile_min_x, 0xffffffffu);
    atomicStore(&tile_min_y, 0xffffffffu);
    atomicStore(&tile_max_x, 0u);
    atomicStore(&tile_max_y, 0u);
    atomicStore(&tile_hits, 0u);
  }
  workgroupBarrier();

  if (gid.x < params.width && gid.y < params.height) {
    let p = pixels[gid.y * params.width + gid.x];
    let r = p & 0xffu;
    let g = (p >> 8u) & 0xffu;
    let b = (p >> 16u) & 0xffu;
    let luma = (299u * r + 587u * g + 114u * b) / 1000u;
    if (luma < params.threshold) {
      atomicMin(&tile_min_x, gid.x);
      atomicMin(&tile_min_y, gid.y);
      atomicMax(&tile_max_x, gid.x);
      atomicMax(&tile_max_y, gid.y);
      atomicAdd(&tile_hits, 1u);
    }
  }
  workgroupBarrier();

  if (lid == 0u && atomicLoad(&tile_hits) > 0u) {
    atomicMin(&box.min_x, atomicLoad(&tile_min_x));
    atomicMin(&box.min_y, atomicLoad(&tile_min_y));
    atomicMax(&box.max_x, atomicLoad(&tile_max_x));
    atomicMax(&box.max_y, atomicLoad(&tile_max_y));
  }
}
