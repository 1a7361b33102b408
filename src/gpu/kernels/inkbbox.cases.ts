// Seeded parity cases for the inkbbox kernel, shared by the Node test (webgpu package) and the
// in-browser self-test page (e2e/Chromium), so both prove the same shader against the same twin.
import { inkBBoxCpu, type InkBox } from '../../reference/inkbbox';
import { inkBBoxGpu } from './inkbbox';

/** Tiny deterministic PRNG (mulberry32). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface InkCase {
  name: string;
  width: number;
  height: number;
  pixels: Uint32Array;
}

/** White images with a few random dark blobs; odd sizes and an empty image included. */
export function inkCases(seed = 1234): InkCase[] {
  const rnd = mulberry32(seed);
  const sizes: Array<[number, number]> = [[1, 1], [17, 5], [33, 65], [100, 37], [257, 129], [64, 64]];
  const cases: InkCase[] = [];
  sizes.forEach(([w, h], i) => {
    const pixels = new Uint32Array(w * h).fill(0xffffffff);
    const blobs = i === 5 ? 0 : 1 + Math.floor(rnd() * 4);
    for (let b = 0; b < blobs; b++) {
      const bx = Math.floor(rnd() * w), by = Math.floor(rnd() * h);
      const bw = 1 + Math.floor(rnd() * Math.max(1, w / 5)), bh = 1 + Math.floor(rnd() * Math.max(1, h / 5));
      const grey = Math.floor(rnd() * 190);
      for (let y = by; y < Math.min(h, by + bh); y++)
        for (let x = bx; x < Math.min(w, bx + bw); x++) pixels[y * w + x] = 0xff000000 | (grey << 16) | (grey << 8) | grey;
    }
    cases.push({ name: `${w}x${h}${blobs ? '' : ' empty'}`, width: w, height: h, pixels });
  });
  return cases;
}

export interface ParityResult {
  name: string;
  cpu: InkBox | null;
  gpu: InkBox | null;
  ok: boolean;
}

export async function runInkParity(device: GPUDevice, seed = 1234): Promise<ParityResult[]> {
  const out: ParityResult[] = [];
  for (const c of inkCases(seed)) {
    const cpu = inkBBoxCpu(c.pixels, c.width, c.height);
    const gpu = await inkBBoxGpu(device, c.pixels, c.width, c.height);
    out.push({ name: c.name, cpu, gpu, ok: JSON.stringify(cpu) === JSON.stringify(gpu) });
  }
  return out;
}
