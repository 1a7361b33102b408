import { describe, expect, it } from 'vitest';
import { areaResize, areaTaps, fitScale, grayPlane, preprocessPage } from './preprocess.ts';
import type { Image } from '../recognizer/image.ts';

describe('layout preprocessing', () => {
  it('fit scale keeps aspect and rounds half up', () => {
    expect(fitScale(1650, 1275, 640, 512)).toEqual({ scale: 640 / 1650, height: 640, width: Math.floor(1275 * (640 / 1650) + 0.5) });
    const land = fitScale(1275, 1650, 640, 512);
    expect(land.width).toBe(512);
    expect(land.height).toBe(Math.floor(1275 * (512 / 1650) + 0.5));
  });

  it('area taps sum to one and cover the input once', () => {
    const t = areaTaps(1650, 640, 640 / 1650);
    const cover = new Float64Array(1650);
    for (let j = 0; j < 640; j++) {
      let s = 0;
      for (let k = 0; k < t.k; k++) {
        s += t.wts[j * t.k + k];
        cover[t.idx[j * t.k + k]] += t.wts[j * t.k + k] * (1650 / 640);
      }
      expect(s).toBeCloseTo(1, 6);
    }
    for (const c of cover) expect(c).toBeCloseTo(1, 4);
  });

  it('integer downscale is a box average', () => {
    const g = new Float32Array([0, 2, 4, 6, 10, 10, 20, 20]); // 2 x 4
    expect(Array.from(areaResize(g, 2, 4, 1, 2, 0.5))).toEqual([5.5, 12.5]);
  });

  it('gray weights, ink positive, zero padding', () => {
    const img: Image = { width: 4, height: 2, channels: 3, data: new Uint8Array(24).fill(255) };
    img.data.set([0, 0, 0], 0); // one black pixel
    expect(grayPlane(img)[0]).toBe(0);
    expect(grayPlane(img)[1]).toBeCloseTo(255, 3);
    const { data, box } = preprocessPage(img, 8, 8);
    expect(box).toEqual({ scale: 2, height: 4, width: 8 });
    expect(data[0]).toBeCloseTo(1, 6); // black -> 1
    expect(data[5]).toBeCloseTo(0, 5); // white -> 0
    expect(data[7 * 8 + 7]).toBe(0); // padding
  });
});
