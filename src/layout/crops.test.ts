import { describe, expect, it } from 'vitest';
import { cropBox, cropImage, cropRegions, growToInk } from './crops.ts';
import type { Image } from '../recognizer/image.ts';
import type { Region } from './types.ts';

describe('crops', () => {
  it('margin, outward rounding and clipping', () => {
    expect(cropBox([10.2, 20.7, 30.5, 40.1], 100, 100, 4)).toEqual([6, 16, 35, 45]);
    expect(cropBox([1, 1, 99, 99], 100, 100, 4)).toEqual([0, 0, 100, 100]);
  });
  it('copies the pixels of the rectangle', () => {
    const page: Image = { width: 4, height: 3, channels: 1, data: Uint8Array.from({ length: 12 }, (_, i) => i) };
    const c = cropImage(page, [1, 1, 3, 3]);
    expect(c.width).toBe(2);
    expect(Array.from(c.data)).toEqual([5, 6, 9, 10]);
    const reg: Region = { cls: 'text', box: [1, 1, 2, 2], score: 1, order: 0, skipInMarkdown: false };
    const crops = cropRegions(page, [reg, { ...reg, box: [10, 10, 20, 20] }], { margin: 0 });
    expect(crops).toHaveLength(1);
    expect(crops[0].rect).toEqual([1, 1, 2, 2]);
    expect(Array.from(crops[0].image.data)).toEqual([5]);
  });
  it('keeps the channel layout', () => {
    const page: Image = { width: 2, height: 2, channels: 4, data: Uint8Array.from({ length: 16 }, (_, i) => i) };
    const c = cropImage(page, [1, 0, 2, 2]);
    expect(Array.from(c.data)).toEqual([4, 5, 6, 7, 12, 13, 14, 15]);
  });
});

describe('growToInk', () => {
  /** white gray page with black bars: [x0, y0, x1, y1) each */
  const bars = (w: number, h: number, bs: [number, number, number, number][]) => {
    const data = new Uint8Array(w * h).fill(255);
    for (const [x0, y0, x1, y1] of bs) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * w + x] = 0;
    return { width: w, height: h, channels: 1 as const, data };
  };
  // a line of "words" 20..200 (word spaces 4 px), a second column from 230 (gutter 26 px)
  const words: [number, number, number, number][] = [[20, 50, 60, 60], [64, 50, 120, 60], [124, 50, 200, 60], [230, 50, 300, 60]];
  const img = bars(320, 100, words);
  it('widens a text box that stops short of its line, not across a column gutter', () => {
    expect(growToInk(img, [22, 48, 150, 62], 'section_heading')).toEqual([20, 48, 200, 62]);
  });
  it('never narrows, and leaves tables, figures and formulas alone', () => {
    expect(growToInk(img, [10, 48, 210, 62], 'text')).toEqual([10, 48, 210, 62]);
    expect(growToInk(img, [22, 48, 150, 62], 'table')).toEqual([22, 48, 150, 62]);
  });
  it('a box without ink comes back unchanged', () => {
    expect(growToInk(img, [20, 70, 200, 90], 'text')).toEqual([20, 70, 200, 90]);
  });
});
