/** Tiny raster drawing for overlays (no canvas in Node): rectangles and a 3×5 pixel font. */
import type { Image } from '../../recognizer/image.ts';

export const CLASS_COLORS: Record<string, [number, number, number]> = {
  title: [200, 0, 0],
  section_heading: [230, 120, 0],
  text: [0, 90, 220],
  list_item: [0, 160, 160],
  table: [140, 0, 200],
  formula: [0, 150, 0],
  figure: [200, 0, 150],
  caption: [120, 90, 0],
  page_header: [120, 120, 120],
  page_footer: [120, 120, 120],
  page_number: [80, 80, 80],
  footnote: [90, 60, 160],
};

export const CLASS_CODES: Record<string, string> = {
  title: 'TITLE', section_heading: 'HEAD', text: 'TEXT', list_item: 'LIST', table: 'TABLE', formula: 'EQ',
  figure: 'FIG', caption: 'CAP', page_header: 'HDR', page_footer: 'FTR', page_number: 'PNUM', footnote: 'FN',
};

// 3x5 glyphs, rows top to bottom, 3 bits each (MSB = left)
const FONT: Record<string, number[]> = {
  '0': [7, 5, 5, 5, 7], '1': [2, 6, 2, 2, 7], '2': [7, 1, 7, 4, 7], '3': [7, 1, 7, 1, 7], '4': [5, 5, 7, 1, 1],
  '5': [7, 4, 7, 1, 7], '6': [7, 4, 7, 5, 7], '7': [7, 1, 1, 2, 2], '8': [7, 5, 7, 5, 7], '9': [7, 5, 7, 1, 7],
  A: [2, 5, 7, 5, 5], B: [6, 5, 6, 5, 6], C: [7, 4, 4, 4, 7], D: [6, 5, 5, 5, 6], E: [7, 4, 6, 4, 7], F: [7, 4, 6, 4, 4],
  G: [7, 4, 5, 5, 7], H: [5, 5, 7, 5, 5], I: [7, 2, 2, 2, 7], L: [4, 4, 4, 4, 7], M: [5, 7, 7, 5, 5], N: [6, 5, 5, 5, 5],
  P: [7, 5, 7, 4, 4], Q: [7, 5, 5, 7, 1], R: [6, 5, 6, 5, 5], S: [7, 4, 7, 1, 7], T: [7, 2, 2, 2, 2], U: [5, 5, 5, 5, 7],
  X: [5, 5, 2, 5, 5], ' ': [0, 0, 0, 0, 0], '.': [0, 0, 0, 0, 2],
};

export function toRgbCopy(img: Image): Image {
  const n = img.width * img.height;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[i * 3 + c] = img.data[i * img.channels + (img.channels >= 3 ? c : 0)];
  return { width: img.width, height: img.height, channels: 3, data: out };
}

function put(img: Image, x: number, y: number, rgb: [number, number, number], alpha = 1): void {
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
  const p = (y * img.width + x) * 3;
  for (let c = 0; c < 3; c++) img.data[p + c] = Math.round(img.data[p + c] * (1 - alpha) + rgb[c] * alpha);
}

export function strokeRect(img: Image, b: [number, number, number, number], rgb: [number, number, number], t = 2): void {
  const [x0, y0, x1, y1] = b.map(Math.round);
  for (let k = 0; k < t; k++) {
    for (let x = x0; x <= x1; x++) {
      put(img, x, y0 + k, rgb);
      put(img, x, y1 - k, rgb);
    }
    for (let y = y0; y <= y1; y++) {
      put(img, x0 + k, y, rgb);
      put(img, x1 - k, y, rgb);
    }
  }
}

export function fillRect(img: Image, b: [number, number, number, number], rgb: [number, number, number], alpha = 1): void {
  const [x0, y0, x1, y1] = b.map(Math.round);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) put(img, x, y, rgb, alpha);
}

/** Text label on a filled box; returns its width. `s` = pixel scale of the 3×5 font. */
export function label(img: Image, x: number, y: number, text: string, bg: [number, number, number], s = 2): number {
  const w = (text.length * 4 + 1) * s;
  fillRect(img, [x, y, x + w, y + 7 * s], bg);
  [...text.toUpperCase()].forEach((ch, i) => {
    const g = FONT[ch] ?? FONT[' '];
    for (let r = 0; r < 5; r++) for (let c = 0; c < 3; c++) {
      if (g[r] & (4 >> c)) fillRect(img, [x + (1 + i * 4 + c) * s, y + (1 + r) * s, x + (2 + i * 4 + c) * s, y + (2 + r) * s], [255, 255, 255]);
    }
  });
  return w;
}

/** Area-average downscale of an RGB image to a given width. */
export function shrink(img: Image, width: number): Image {
  if (img.width <= width) return img;
  const f = img.width / width;
  const height = Math.max(1, Math.round(img.height / f));
  const out = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy0 = Math.floor(y * f), sy1 = Math.min(img.height, Math.floor((y + 1) * f));
    for (let x = 0; x < width; x++) {
      const sx0 = Math.floor(x * f), sx1 = Math.min(img.width, Math.floor((x + 1) * f));
      const acc = [0, 0, 0];
      let n = 0;
      for (let yy = sy0; yy < Math.max(sy1, sy0 + 1); yy++) for (let xx = sx0; xx < Math.max(sx1, sx0 + 1); xx++) {
        const p = (yy * img.width + xx) * 3;
        acc[0] += img.data[p];
        acc[1] += img.data[p + 1];
        acc[2] += img.data[p + 2];
        n++;
      }
      for (let c = 0; c < 3; c++) out[(y * width + x) * 3 + c] = Math.round(acc[c] / n);
    }
  }
  return { width, height, channels: 3, data: out };
}
