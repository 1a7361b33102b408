import { describe, expect, it } from 'vitest';
import { refineDetections, snapX } from './refine.ts';
import type { Image } from '../recognizer/image.ts';

function page(): Image {
  const img: Image = { width: 200, height: 60, channels: 1, data: new Uint8Array(200 * 60).fill(255) };
  const ink = (x0: number, x1: number, y0: number, y1: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) img.data[y * 200 + x] = 0;
  };
  ink(100, 104, 22, 34); // "1"
  ink(106, 112, 22, 34); // "2"
  ink(20, 60, 22, 34); // header text far to the left
  ink(0, 200, 44, 45); // a rule under the line
  return img;
}

describe('ink snapping of one-line boxes', () => {
  it('moves x0/x1 to the ink of the text the box covers, keeps y', () => {
    expect(snapX(page(), [95, 18, 118, 40])).toEqual([100, 18, 112, 40]); // too wide
    expect(snapX(page(), [102, 18, 110, 40])).toEqual([100, 18, 112, 40]); // too narrow
  });
  it('ignores far ink, rules below the line, and empty boxes', () => {
    expect(snapX(page(), [150, 18, 170, 40])).toEqual([150, 18, 170, 40]);
  });
  it('only refines the configured classes', () => {
    const d = refineDetections(page(), [
      { cls: 'page_number', box: [95, 18, 118, 40], score: 1 },
      { cls: 'text', box: [95, 18, 118, 40], score: 1 },
    ]);
    expect(d[0].box).toEqual([100, 18, 112, 40]);
    expect(d[1].box).toEqual([95, 18, 118, 40]);
  });
});
