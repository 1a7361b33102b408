import { describe, expect, it } from 'vitest';
import { MAX_PAGE_PIXELS, MAX_PAGE_SIDE, fitDpi, fitScale } from './fit';

const size = (wPt: number, hPt: number, dpi: number) => [Math.round((wPt * dpi) / 72), Math.round((hPt * dpi) / 72)];

describe('fitDpi', () => {
  it('keeps the asked resolution for ordinary pages', () => {
    expect(fitDpi(612, 792, 150)).toBe(150); // US Letter: 1275 × 1650 px
    expect(fitDpi(1191, 1684, 150)).toBe(150); // A2: 2481 × 3508 px
    expect(fitDpi(1684, 2384, 150)).toBeLessThan(150); // A1: 3508 × 4967 px = 17.4 M
  });

  it('lowers the resolution of a poster until it fits both caps, and no further than needed', () => {
    for (const [w, h] of [
      [14400, 14400], // the largest page PDF allows: 200 × 200 in
      [2384, 3370], // A0
      [1684, 2384], // A1
      [14400, 300], // a long strip: the side cap binds
      [301, 14399],
    ]) {
      const d = fitDpi(w, h, 150);
      const [pw, ph] = size(w, h, d);
      expect(d).toBeLessThanOrEqual(150);
      expect(pw * ph).toBeLessThanOrEqual(MAX_PAGE_PIXELS);
      expect(Math.max(pw, ph)).toBeLessThanOrEqual(MAX_PAGE_SIDE);
      if (d < 150) {
        // within 1 % of the cap that binds
        const [qw, qh] = size(w, h, d * 1.01);
        expect(qw * qh > MAX_PAGE_PIXELS || Math.max(qw, qh) > MAX_PAGE_SIDE).toBe(true);
      }
    }
    expect(fitDpi(14400, 300, 150)).toBeCloseTo((72 * MAX_PAGE_SIDE) / 14400, 1);
  });

  it('rejects sizes that are not positive numbers', () => {
    expect(() => fitDpi(0, 792, 150)).toThrow(RangeError);
    expect(() => fitDpi(612, Number.NaN, 150)).toThrow(RangeError);
    expect(() => fitDpi(612, 792, 0)).toThrow(RangeError);
  });
});

describe('fitScale', () => {
  it('leaves images under the caps alone and shrinks larger ones to fit', () => {
    expect(fitScale(2000, 3000)).toBe(1);
    const s = fitScale(20000, 20000);
    expect(s).toBeLessThan(1);
    const w = Math.round(20000 * s);
    expect(w * w).toBeLessThanOrEqual(MAX_PAGE_PIXELS);
    expect(Math.round(30000 * fitScale(30000, 100))).toBeLessThanOrEqual(MAX_PAGE_SIDE);
    expect(() => fitScale(-1, 5)).toThrow(RangeError);
  });
});
