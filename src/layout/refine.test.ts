import { describe, expect, it } from 'vitest';
import { refineDetections, snapBlockX, snapX } from './refine.ts';
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

describe('ink snapping of blocks (tables, formulas)', () => {
  /** a 3-column "table" of cell text at x 40..70, 90..120, 140..170 (gaps 20 px) on a 1000 px page */
  function table(): Image {
    const W = 1000;
    const img: Image = { width: W, height: 120, channels: 1, data: new Uint8Array(W * 120).fill(255) };
    for (const [x0, x1] of [[40, 70], [82, 112], [124, 154]]) for (let y = 20; y < 100; y += 20) for (let yy = y; yy < y + 8; yy++) for (let x = x0; x < x1; x++) img.data[yy * W + x] = 0;
    for (let y = 20; y < 100; y++) for (let x = 600; x < 640; x++) img.data[y * W + x] = 0; // another column's text, far right
    return img;
  }
  it('grows a box that cut the first column and shrinks one that overhangs blank paper', () => {
    expect(snapBlockX(table(), [55, 10, 230, 110])).toEqual([40, 10, 154, 110]);
  });
  it('keeps ink beyond a gutter-wide gap out, and leaves a box without ink alone', () => {
    expect(snapBlockX(table(), [30, 10, 160, 110])).toEqual([40, 10, 154, 110]);
    expect(snapBlockX(table(), [300, 10, 400, 110])).toEqual([300, 10, 400, 110]);
  });
  it('refineDetections snaps table/formula boxes as blocks when configured', () => {
    const d = refineDetections(table(), [{ cls: 'table', box: [55, 10, 230, 110], score: 1 }], ['table']);
    expect(d[0].box).toEqual([40, 10, 154, 110]);
  });
});
