/**
 * Page image → detector input, the twin of `preprocess()` in training/layout/common.py:
 * gray = 0.299 R + 0.587 G + 0.114 B (float), fit inside input_h × input_w keeping aspect
 * (s = min(input_h/H, input_w/W), size floor(H·s + 0.5)), area resampling (coverage-weighted mean),
 * x = (255 − gray)/255 placed top-left on a zero canvas (padding reads as white paper).
 * Arithmetic is float32 in the same order as numpy, so both sides agree to ~1e-7.
 */
import type { Image } from '../recognizer/image.ts';

const f32 = Math.fround;
const WR = f32(0.299);
const WG = f32(0.587);
const WB = f32(0.114);

export interface Letterbox {
  /** input pixels per page pixel */
  scale: number;
  /** size of the resized page inside the input (top-left) */
  height: number;
  width: number;
}

export function fitScale(h: number, w: number, inputH: number, inputW: number): Letterbox {
  const s = Math.min(inputH / h, inputW / w);
  const nh = Math.max(1, Math.min(inputH, Math.floor(h * s + 0.5)));
  const nw = Math.max(1, Math.min(inputW, Math.floor(w * s + 0.5)));
  return { scale: s, height: nh, width: nw };
}

/** Gray float32 plane (0..255). Alpha, when present, is composited over white. */
export function grayPlane(img: Image): Float32Array {
  const n = img.width * img.height;
  const c = img.channels;
  const d = img.data;
  if (d.length !== n * c) throw new Error(`image data length ${d.length} != ${img.width}x${img.height}x${c}`);
  const out = new Float32Array(n);
  if (c === 1) {
    for (let i = 0; i < n; i++) out[i] = d[i];
    return out;
  }
  let opaque = true;
  if (c === 4) for (let p = 3; p < d.length; p += 4) if (d[p] !== 255) { opaque = false; break; }
  if (opaque) {
    for (let i = 0, p = 0; i < n; i++, p += c) out[i] = f32(f32(f32(WR * d[p]) + f32(WG * d[p + 1])) + f32(WB * d[p + 2]));
    return out;
  }
  for (let i = 0, p = 0; i < n; i++, p += c) {
    const a = d[p + 3] / 255;
    const r = d[p] * a + 255 * (1 - a);
    const g = d[p + 1] * a + 255 * (1 - a);
    const b = d[p + 2] * a + 255 * (1 - a);
    out[i] = f32(f32(f32(WR * r) + f32(WG * g)) + f32(WB * b));
  }
  return out;
}

/** Taps of the area filter: output j covers input [j/s, (j+1)/s) ∩ [0, nIn). */
export function areaTaps(nIn: number, nOut: number, s: number): { idx: Int32Array; wts: Float32Array; k: number } {
  const rows: { i: number[]; w: number[] }[] = [];
  let k = 1;
  for (let j = 0; j < nOut; j++) {
    const a = j / s;
    const b = Math.min((j + 1) / s, nIn);
    const i0 = Math.floor(a);
    const i1 = Math.min(nIn, Math.ceil(b));
    const ii: number[] = [];
    const ww: number[] = [];
    let tot = 0;
    for (let i = i0; i < i1; i++) {
      const v = Math.min(b, i + 1) - Math.max(a, i);
      if (v !== 0) {
        ii.push(i);
        ww.push(v);
      }
      tot += v;
    }
    rows.push({ i: ii, w: tot > 0 ? ww.map((v) => v / tot) : ww });
    k = Math.max(k, ii.length);
  }
  const idx = new Int32Array(nOut * k);
  const wts = new Float32Array(nOut * k);
  rows.forEach((r, j) => {
    r.i.forEach((i, t) => {
      idx[j * k + t] = i;
      wts[j * k + t] = r.w[t];
    });
  });
  return { idx, wts, k };
}

/** Gray plane (h × w) → area-resized plane (nh × nw), rows first then columns. */
export function areaResize(gray: Float32Array, h: number, w: number, nh: number, nw: number, s: number): Float32Array {
  const ty = areaTaps(h, nh, s);
  const tx = areaTaps(w, nw, s);
  const rows = new Float32Array(nh * w);
  for (let j = 0; j < nh; j++) {
    const o = j * w;
    for (let t = 0; t < ty.k; t++) {
      const wt = ty.wts[j * ty.k + t];
      const src = ty.idx[j * ty.k + t] * w;
      if (t === 0) for (let x = 0; x < w; x++) rows[o + x] = f32(wt * gray[src + x]);
      else for (let x = 0; x < w; x++) rows[o + x] = f32(rows[o + x] + f32(wt * gray[src + x]));
    }
  }
  const out = new Float32Array(nh * nw);
  for (let j = 0; j < nh; j++) {
    const ro = j * w;
    for (let i = 0; i < nw; i++) {
      let acc = 0;
      for (let t = 0; t < tx.k; t++) {
        const v = f32(tx.wts[i * tx.k + t] * rows[ro + tx.idx[i * tx.k + t]]);
        acc = t === 0 ? v : f32(acc + v);
      }
      out[j * nw + i] = acc;
    }
  }
  return out;
}

/** Page image → (1, 1, inputH, inputW) float32 tensor data and the letterbox used. */
export function preprocessPage(img: Image, inputH: number, inputW: number, out?: Float32Array, gray?: Float32Array): { data: Float32Array; box: Letterbox } {
  const box = fitScale(img.height, img.width, inputH, inputW);
  const small = areaResize(gray ?? grayPlane(img), img.height, img.width, box.height, box.width, box.scale);
  const data = out ?? new Float32Array(inputH * inputW);
  if (data.length !== inputH * inputW) throw new Error('preprocessPage: output buffer has the wrong size');
  data.fill(0);
  for (let y = 0; y < box.height; y++) {
    for (let x = 0; x < box.width; x++) data[y * inputW + x] = f32(f32(255 - small[y * box.width + x]) / 255);
  }
  return { data, box };
}
