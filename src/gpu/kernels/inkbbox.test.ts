import { describe, expect, it } from 'vitest';
import { getTestDevice, NO_GPU_MESSAGE } from '../testing/node-device';
import { inkBBoxCpu } from '../../reference/inkbbox';
import { inkCases, runInkParity } from './inkbbox.cases';

describe('inkbbox CPU twin', () => {
  it('finds the exact box of a drawn rectangle and null on a blank image', () => {
    const w = 9, h = 7;
    const px = new Uint32Array(w * h).fill(0xffffffff);
    for (let y = 2; y <= 4; y++) for (let x = 3; x <= 6; x++) px[y * w + x] = 0xff101010;
    expect(inkBBoxCpu(px, w, h)).toEqual({ x0: 3, y0: 2, x1: 6, y1: 4 });
    expect(inkBBoxCpu(new Uint32Array(w * h).fill(0xffffffff), w, h)).toBeNull();
  });
  it('rejects a buffer smaller than the image', () => {
    expect(() => inkBBoxCpu(new Uint32Array(3), 2, 2)).toThrow(/pixels/);
  });
});

describe('inkbbox WGSL vs CPU (Node, webgpu package)', async () => {
  const gpu = await getTestDevice();
  // CI sets GOCR_REQUIRE_GPU=1: a missing adapter is then a failure, not a skip.
  const required = process.env.GOCR_REQUIRE_GPU === '1';
  if (!gpu && !required) console.warn(NO_GPU_MESSAGE);
  it.skipIf(!gpu && !required)('matches the CPU twin on seeded random images, odd sizes and empty', async () => {
    expect(gpu, 'no WebGPU adapter').not.toBeNull();
    const results = await runInkParity(gpu!.device);
    expect(results.length).toBe(inkCases().length);
    for (const r of results) expect(r.gpu, r.name).toEqual(r.cpu);
  });
});
