import { describe, expect, it } from 'vitest';
import { makeImage, type Image } from './image.ts';
import { splitStrips } from './strips.ts';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function rect(img: Image, x0: number, y0: number, x1: number, y1: number, v = 0): void {
  for (let y = Math.max(0, y0); y < Math.min(img.height, y1); y++) {
    for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) img.data[y * img.width + x] = v;
  }
}

/**
 * Draw a text-like line: glyph boxes on a baseline. xh = x-height; some glyphs ascend (1.45 xh)
 * or descend (0.45 xh below). Options add i-dots/accents above x-height and subscripts.
 */
function textLine(img: Image, x: number, baseline: number, xh: number, width: number, seed: number,
  opt: { ascenders?: boolean; dots?: boolean; subscripts?: boolean } = {}): void {
  const r = seeded(seed);
  const gw = Math.max(2, Math.round(0.55 * xh));
  let cx = x;
  while (cx + gw < x + width) {
    if (r() < 0.15) { cx += gw; continue; } // word space
    const k = r();
    let top = baseline - xh;
    let bot = baseline;
    if (opt.ascenders !== false && k < 0.2) top = baseline - Math.round(1.45 * xh);
    else if (opt.ascenders !== false && k < 0.3) bot = baseline + Math.round(0.45 * xh);
    rect(img, cx, top, cx + gw - 1, top + 2);          // top stroke
    rect(img, cx, top, cx + 2, bot);                   // stem
    rect(img, cx, bot - 2, cx + gw - 1, bot);          // bottom stroke
    if (opt.dots && k > 0.85) rect(img, cx, baseline - xh - Math.round(0.55 * xh), cx + 2, baseline - xh - Math.round(0.3 * xh));
    if (opt.subscripts && k > 0.95) rect(img, cx + gw, baseline - 2, cx + gw + 3, baseline + Math.round(0.35 * xh));
    cx += gw + Math.max(1, Math.round(0.15 * xh));
  }
}

describe('strip splitter', () => {
  it('two text lines give two strips, in order, covering the lines', () => {
    const img = makeImage(400, 80, 1);
    textLine(img, 10, 30, 12, 380, 1);
    textLine(img, 10, 65, 12, 300, 2);
    const s = splitStrips(img, 'text');
    expect(s.length).toBe(2);
    expect(s[0][3]).toBeLessThanOrEqual(s[1][1]);
    expect(s[0][1]).toBeLessThanOrEqual(30 - 17);
    expect(s[0][3]).toBeGreaterThanOrEqual(30 + 5);
    expect(s[1][2]).toBeLessThan(s[0][2]); // shorter second line → narrower strip
  });

  it('i-dots, accents and subscripts do not make extra strips', () => {
    const img = makeImage(400, 90, 1);
    // Lines with only x-height glyphs + floating dots: the dots form their own projection band.
    textLine(img, 10, 30, 12, 380, 3, { ascenders: false, dots: true, subscripts: true });
    textLine(img, 10, 70, 12, 380, 4, { ascenders: false, dots: true, subscripts: true });
    expect(splitStrips(img, 'text').length).toBe(2);
    // The dots really are separate projection bands: without merging they would be strips.
    expect(splitStrips(img, 'text', { smallBandFrac: 0, tinyGapFrac: 0 }).length).toBeGreaterThan(2);
  });

  it('touching lines (ascenders reach into the line above) are split by baselines', () => {
    const img = makeImage(400, 110, 1);
    // Pitch 17 px for x-height 12: line 1's descenders overlap line 2's ascender rows.
    textLine(img, 10, 30, 12, 380, 31);
    textLine(img, 10, 47, 12, 380, 32);
    textLine(img, 10, 64, 12, 200, 33);
    textLine(img, 10, 95, 12, 380, 34); // a separate line below
    // The three upper lines really touch: no blank row between them.
    let blank = 0;
    for (let y = 20; y < 66; y++) if (img.data.subarray(y * 400, (y + 1) * 400).every((v) => v === 255)) blank++;
    expect(blank).toBe(0);
    const s = splitStrips(img, 'text');
    expect(s.length).toBe(4);
    // A few raised marks over a line are not a line of their own.
    const sup = makeImage(400, 60, 1);
    textLine(sup, 10, 40, 12, 380, 35);
    rect(sup, 100, 18, 104, 26);
    rect(sup, 200, 18, 204, 26);
    expect(splitStrips(sup, 'text').length).toBe(1);
  });

  it('a fraction-like shape is one strip for formula', () => {
    const img = makeImage(200, 120, 1);
    textLine(img, 60, 35, 12, 80, 5);     // numerator
    rect(img, 50, 55, 150, 57);           // fraction bar
    textLine(img, 60, 90, 12, 80, 6);     // denominator
    rect(img, 10, 50, 40, 53);            // "=" left of it
    rect(img, 10, 58, 40, 61);
    const f = splitStrips(img, 'formula');
    expect(f.length).toBe(1);
    expect(f[0][1]).toBeLessThanOrEqual(35 - 17);
    expect(f[0][3]).toBeGreaterThanOrEqual(90 + 5);
  });

  it('a ruled table gives one strip per row, not per rule', () => {
    const W = 420;
    const rowH = 34;
    const rows = 4;
    const img = makeImage(W, rows * rowH + 3, 1);
    for (let r = 0; r <= rows; r++) rect(img, 0, r * rowH, W, r * rowH + 2);        // horizontal rules
    for (const x of [0, 140, 280, W - 2]) rect(img, x, 0, x + 2, rows * rowH + 2);  // vertical rules
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < 3; c++) textLine(img, c * 140 + 8, r * rowH + 24, 11, 110, 10 * r + c);
    }
    const s = splitStrips(img, 'table');
    expect(s.length).toBe(rows);
    for (let r = 0; r < rows; r++) {
      // Each strip lies inside its row, between the rules.
      expect(s[r][1]).toBeGreaterThanOrEqual(r * rowH + 2);
      expect(s[r][3]).toBeLessThanOrEqual((r + 1) * rowH);
    }
  });

  it('a table with only row rules (booktabs-like) also splits by rows', () => {
    const img = makeImage(360, 120, 1);
    rect(img, 0, 2, 360, 4);
    textLine(img, 8, 26, 11, 340, 21);
    rect(img, 0, 33, 360, 34);
    textLine(img, 8, 58, 11, 340, 22);
    textLine(img, 8, 88, 11, 340, 23);
    rect(img, 0, 100, 360, 102);
    expect(splitStrips(img, 'table').length).toBe(3);
  });

  it('blank crop → one full strip; formula is one strip even for many lines', () => {
    expect(splitStrips(makeImage(50, 20, 1), 'text')).toEqual([[0, 0, 50, 20]]);
    const img = makeImage(300, 120, 1);
    textLine(img, 10, 30, 12, 280, 7);
    textLine(img, 10, 70, 12, 280, 8);
    textLine(img, 10, 110, 12, 280, 9);
    expect(splitStrips(img, 'text').length).toBe(3);
    expect(splitStrips(img, 'formula').length).toBe(1);
  });

  it('works on RGBA input', () => {
    const g = makeImage(200, 60, 1);
    textLine(g, 5, 22, 10, 190, 11);
    textLine(g, 5, 50, 10, 190, 12);
    const rgba = makeImage(200, 60, 4);
    for (let i = 0; i < 200 * 60; i++) { rgba.data[4 * i] = rgba.data[4 * i + 1] = rgba.data[4 * i + 2] = g.data[i]; }
    expect(splitStrips(rgba, 'text')).toEqual(splitStrips(g, 'text'));
  });
});
