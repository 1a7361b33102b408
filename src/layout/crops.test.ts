import { describe, expect, it } from 'vitest';
import { cropBox, cropImage, cropRegions } from './crops.ts';
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
