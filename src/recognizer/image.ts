/**
 * DOM-free raster images for the recognizer (works in the worker, in Node tests and tools).
 *
 * `channels` is 1 (gray), 3 (RGB) or 4 (RGBA, e.g. a browser ImageData). Samples are 0..255
 * stored row-major, interleaved. A browser `ImageData` already has this shape:
 * `fromImageData(imageData)` just wraps it (no copy).
 */
export type Channels = 1 | 3 | 4;

export interface Image {
  width: number;
  height: number;
  channels: Channels;
  /** width*height*channels samples, 0..255, row-major interleaved. */
  data: Uint8Array | Uint8ClampedArray;
}

/** Box in pixel coordinates: [x0, y0, x1, y1), x1/y1 exclusive. */
export type Box = [number, number, number, number];

export function makeImage(width: number, height: number, channels: Channels, fill = 255): Image {
  const data = new Uint8Array(width * height * channels);
  if (fill !== 0) data.fill(fill);
  return { width, height, channels, data };
}

/** Wrap an ImageData-like object ({width,height,data} RGBA) without copying. */
export function fromImageData(img: { width: number; height: number; data: Uint8ClampedArray | Uint8Array }): Image {
  const channels = img.data.length / (img.width * img.height);
  if (channels !== 1 && channels !== 3 && channels !== 4) {
    throw new Error(`fromImageData: ${img.data.length} samples for ${img.width}x${img.height}`);
  }
  return { width: img.width, height: img.height, channels, data: img.data };
}

function checkImage(img: Image): void {
  if (img.data.length !== img.width * img.height * img.channels) {
    throw new Error(`image data length ${img.data.length} != ${img.width}x${img.height}x${img.channels}`);
  }
}

/**
 * Luma (ITU-R BT.601, integer weights 299/587/114, rounded) as a 1-channel image.
 * Alpha is composited over white, as a rendered page would be.
 */
export function toGray(img: Image): Image {
  checkImage(img);
  if (img.channels === 1) return img;
  const n = img.width * img.height;
  const out = new Uint8Array(n);
  const c = img.channels;
  const d = img.data;
  for (let i = 0; i < n; i++) {
    const p = i * c;
    let v = Math.floor((299 * d[p] + 587 * d[p + 1] + 114 * d[p + 2] + 500) / 1000);
    if (c === 4) {
      const a = d[p + 3];
      if (a !== 255) v = Math.round((v * a + 255 * (255 - a)) / 255);
    }
    out[i] = v;
  }
  return { width: img.width, height: img.height, channels: 1, data: out };
}

/** RGB copy (gray replicated, alpha composited over white). */
export function toRGB(img: Image): Image {
  checkImage(img);
  if (img.channels === 3) return img;
  const n = img.width * img.height;
  const out = new Uint8Array(n * 3);
  const d = img.data;
  if (img.channels === 1) {
    for (let i = 0; i < n; i++) out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = d[i];
  } else {
    for (let i = 0; i < n; i++) {
      const a = d[4 * i + 3];
      for (let k = 0; k < 3; k++) {
        out[3 * i + k] = Math.round((d[4 * i + k] * a + 255 * (255 - a)) / 255);
      }
    }
  }
  return { width: img.width, height: img.height, channels: 3, data: out };
}

/** Opaque RGBA copy (for canvases and PNG encoders): gray replicated, alpha composited over white. */
export function toRGBA(img: Image): Image {
  const rgb = toRGB(img);
  const n = img.width * img.height;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    out[4 * i] = rgb.data[3 * i];
    out[4 * i + 1] = rgb.data[3 * i + 1];
    out[4 * i + 2] = rgb.data[3 * i + 2];
    out[4 * i + 3] = 255;
  }
  return { width: img.width, height: img.height, channels: 4, data: out };
}

/** Copy of the pixels inside `box` (clipped to the image; an empty box gives a 0-size image). */
export function crop(img: Image, box: Box): Image {
  checkImage(img);
  const x0 = Math.max(0, Math.min(img.width, Math.floor(box[0])));
  const y0 = Math.max(0, Math.min(img.height, Math.floor(box[1])));
  const x1 = Math.max(x0, Math.min(img.width, Math.ceil(box[2])));
  const y1 = Math.max(y0, Math.min(img.height, Math.ceil(box[3])));
  const w = x1 - x0;
  const h = y1 - y0;
  const c = img.channels;
  const out = new Uint8Array(w * h * c);
  for (let y = 0; y < h; y++) {
    const src = ((y0 + y) * img.width + x0) * c;
    out.set(img.data.subarray(src, src + w * c), y * w * c);
  }
  return { width: w, height: h, channels: c, data: out };
}

/**
 * Pad on the right/bottom to (width, height) with a constant sample value (default white).
 * The image is kept at the top-left.
 */
export function padTo(img: Image, width: number, height: number, fill = 255): Image {
  checkImage(img);
  if (width < img.width || height < img.height) throw new Error('padTo: target smaller than image');
  if (width === img.width && height === img.height) return img;
  const out = makeImage(width, height, img.channels, fill);
  const c = img.channels;
  for (let y = 0; y < img.height; y++) {
    out.data.set(img.data.subarray(y * img.width * c, (y + 1) * img.width * c), y * width * c);
  }
  return out;
}

/** Per-axis source sampling table for bilinear resize (half-pixel centers, edge clamped). */
function axisTable(src: number, dst: number): { i0: Int32Array; i1: Int32Array; w1: Float32Array } {
  const i0 = new Int32Array(dst);
  const i1 = new Int32Array(dst);
  const w1 = new Float32Array(dst);
  const scale = src / dst;
  for (let i = 0; i < dst; i++) {
    let s = (i + 0.5) * scale - 0.5;
    if (s < 0) s = 0;
    let a = Math.floor(s);
    if (a > src - 1) a = src - 1;
    const b = a + 1 < src ? a + 1 : src - 1;
    i0[i] = a;
    i1[i] = b;
    w1[i] = Math.fround(s - a);
  }
  return { i0, i1, w1 };
}

/**
 * Bilinear resize with half-pixel centers (OpenCV INTER_LINEAR / align_corners=false
 * convention, no antialias). Deterministic: separable float32 math with a fixed order, then
 * round-half-up to 0..255, so the result is bit-identical across runs and JS engines.
 */
export function resizeBilinear(img: Image, width: number, height: number): Image {
  checkImage(img);
  if (width <= 0 || height <= 0 || img.width <= 0 || img.height <= 0) {
    throw new Error(`resizeBilinear: bad size ${img.width}x${img.height} -> ${width}x${height}`);
  }
  if (width === img.width && height === img.height) {
    return { ...img, data: new Uint8Array(img.data) };
  }
  const c = img.channels;
  const xs = axisTable(img.width, width);
  const ys = axisTable(img.height, height);
  const d = img.data;
  // Horizontal pass for every source row that is used, into float rows.
  const rowCache = new Map<number, Float32Array>();
  const hrow = (sy: number): Float32Array => {
    let r = rowCache.get(sy);
    if (r) return r;
    r = new Float32Array(width * c);
    const base = sy * img.width * c;
    for (let x = 0; x < width; x++) {
      const a = base + xs.i0[x] * c;
      const b = base + xs.i1[x] * c;
      const w = xs.w1[x];
      for (let k = 0; k < c; k++) {
        const va = d[a + k];
        r[x * c + k] = Math.fround(va + Math.fround(w * (d[b + k] - va)));
      }
    }
    rowCache.set(sy, r);
    return r;
  };
  const out = new Uint8Array(width * height * c);
  for (let y = 0; y < height; y++) {
    const ra = hrow(ys.i0[y]);
    const rb = hrow(ys.i1[y]);
    const w = ys.w1[y];
    const o = y * width * c;
    for (let i = 0; i < width * c; i++) {
      const v = Math.fround(ra[i] + Math.fround(w * (rb[i] - ra[i])));
      out[o + i] = v <= 0 ? 0 : v >= 255 ? 255 : Math.floor(v + 0.5);
    }
    // Rows are visited in increasing order; drop rows that can no longer be used.
    if (y + 1 < height) {
      const next = ys.i0[y + 1];
      for (const k of rowCache.keys()) if (k < next) rowCache.delete(k);
    }
  }
  return { width, height, channels: c, data: out };
}

/**
 * NCHW float32 tensor data (N = 1) with per-sample (v/255 - mean)/std, channels in RGB order.
 * Gray/RGBA inputs are converted to RGB first. Default mean = std = 0.5 (PP-OCR recognizer).
 */
export function toNCHW(img: Image, mean = 0.5, std = 0.5, out?: Float32Array): Float32Array {
  const rgb = toRGB(img);
  const hw = rgb.width * rgb.height;
  const t = out ?? new Float32Array(3 * hw);
  if (t.length < 3 * hw) throw new Error('toNCHW: output buffer too small');
  const lut = new Float32Array(256);
  for (let v = 0; v < 256; v++) lut[v] = (v / 255 - mean) / std;
  const d = rgb.data;
  for (let i = 0; i < hw; i++) {
    t[i] = lut[d[3 * i]];
    t[hw + i] = lut[d[3 * i + 1]];
    t[2 * hw + i] = lut[d[3 * i + 2]];
  }
  return t;
}
