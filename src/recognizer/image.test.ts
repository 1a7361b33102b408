import { describe, expect, it } from 'vitest';
import { crop, makeImage, padTo, resizeBilinear, toGray, toNCHW, toRGB, toRGBA, type Image } from './image.ts';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomImage(w: number, h: number, c: 1 | 3 | 4, seed: number): Image {
  const r = seeded(seed);
  const img = makeImage(w, h, c, 0);
  for (let i = 0; i < img.data.length; i++) img.data[i] = Math.floor(r() * 256);
  return img;
}

function fnv1a(data: ArrayLike<number>): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data[i], 0x01000193) >>> 0;
  return h;
}

describe('image', () => {
  it('resizeBilinear is deterministic and stable across calls', () => {
    const img = randomImage(37, 23, 3, 7);
    const a = resizeBilinear(img, 101, 48);
    const b = resizeBilinear(img, 101, 48);
    expect(a.width).toBe(101);
    expect(a.height).toBe(48);
    expect(Array.from(a.data)).toEqual(Array.from(b.data));
    // Downscale too.
    const c = resizeBilinear(randomImage(400, 90, 1, 3), 213, 48);
    expect(fnv1a(c.data)).toBe(fnv1a(resizeBilinear(randomImage(400, 90, 1, 3), 213, 48).data));
  });

  it('resizeBilinear uses half-pixel centers and keeps constants', () => {
    const img = makeImage(2, 1, 1, 0);
    img.data[0] = 0;
    img.data[1] = 200;
    const up = resizeBilinear(img, 4, 1);
    // src coords: -0.25→0 (clamped), 0.25, 0.75, 1.25→1
    expect(Array.from(up.data)).toEqual([0, 50, 150, 200]);
    const flat = resizeBilinear(makeImage(13, 7, 3, 77), 5, 48);
    expect(flat.data.every((v) => v === 77)).toBe(true);
    // Exact 2x downscale averages pixel pairs.
    const d = makeImage(4, 1, 1, 0);
    d.data.set([10, 20, 30, 41]);
    expect(Array.from(resizeBilinear(d, 2, 1).data)).toEqual([15, 36]);
  });

  it('crop, padTo, toGray, toRGB, toNCHW', () => {
    const img = randomImage(10, 8, 4, 1);
    const c = crop(img, [2, 3, 7, 8]);
    expect([c.width, c.height, c.channels]).toEqual([5, 5, 4]);
    expect(Array.from(c.data.subarray(0, 4))).toEqual(Array.from(img.data.subarray((3 * 10 + 2) * 4, (3 * 10 + 2) * 4 + 4)));
    expect(crop(img, [-5, -5, 100, 100]).width).toBe(10);
    const p = padTo(toGray(c), 8, 6);
    expect(p.data[7]).toBe(255);
    expect(p.data[5 * 8]).toBe(255);
    const g = makeImage(2, 1, 1, 0);
    g.data.set([0, 255]);
    const t = toNCHW(g);
    expect(Array.from(t)).toEqual([-1, 1, -1, 1, -1, 1]);
    const rgba = makeImage(1, 1, 4, 0); // transparent black over white -> white
    expect(Array.from(toRGB(rgba).data)).toEqual([255, 255, 255]);
    const rgb = makeImage(1, 1, 3, 0);
    rgb.data.set([255, 0, 0]);
    expect(toGray(rgb).data[0]).toBe(76);
  });

  it('toRGBA: opaque RGBA from gray, RGB and translucent RGBA (composited over white)', () => {
    const gray: Image = { width: 2, height: 1, channels: 1, data: new Uint8Array([0, 200]) };
    expect(Array.from(toRGBA(gray).data)).toEqual([0, 0, 0, 255, 200, 200, 200, 255]);
    const rgb: Image = { width: 1, height: 1, channels: 3, data: new Uint8Array([10, 20, 30]) };
    expect(Array.from(toRGBA(rgb).data)).toEqual([10, 20, 30, 255]);
    const rgba: Image = { width: 1, height: 1, channels: 4, data: new Uint8Array([0, 0, 0, 0]) };
    const out = toRGBA(rgba);
    expect(out.channels).toBe(4);
    expect(out.data).toBeInstanceOf(Uint8ClampedArray);
    expect(Array.from(out.data)).toEqual([255, 255, 255, 255]);
  });
});
