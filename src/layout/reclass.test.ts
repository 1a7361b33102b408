/**
 * The second look (reclass.ts): window sampling and the relabel rule on made-up inputs, and the
 * shipped reclass.onnx against PyTorch golden vectors (skipped while the model has none).
 */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { existsSync, readFileSync } from 'node:fs';
import type { OrtModuleLike } from '../recognizer/vision.ts';
import { makeImage } from '../recognizer/image.ts';
import { grayPlane } from './preprocess.ts';
import { onePageNumber, reclassWindow, relabelFrom, RegionClassifier, softmax, WIN_H, WIN_W, type ReclassConfig } from './reclass.ts';
import { REGION_CLASSES, type Box, type RegionClass } from './types.ts';

const DIR = process.env.LAYOUT_MODEL_DIR ?? 'public/models/layout';
const CONFIG = existsSync(`${DIR}/config.json`) ? JSON.parse(readFileSync(`${DIR}/config.json`, 'utf8')) : null;
const HAVE = !!CONFIG?.reclass && existsSync(`${DIR}/reclass_golden.json`);

describe('reclassWindow', () => {
  it('samples the box corner at a fixed physical scale, white outside the page, mask inside the box', () => {
    // a 1275-px-wide page: one window pixel = 1/0.75 page px; a black 40 × 20 rectangle at (100, 200)
    const W = 1275;
    const H = 300;
    const gray = new Float32Array(W * H).fill(255);
    for (let y = 200; y < 220; y++) for (let x = 100; x < 140; x++) gray[y * W + x] = 0;
    const { window: win, geom } = reclassWindow(gray, H, W, [100, 200, 140, 220]);
    const plane = WIN_H * WIN_W;
    // the box starts 24 px right and 8 px below the window origin: window (8·0.75, 24·0.75) = (6, 18)
    expect(win[(6 + 5) * WIN_W + 18 + 5]).toBeCloseTo(1, 6);
    expect(win[plane + (6 + 5) * WIN_W + 18 + 5]).toBe(1);
    expect(win[2 * WIN_W + 2]).toBeCloseTo(0, 6); // paper above-left of the box
    expect(win[plane + 2 * WIN_W + 2]).toBe(0);
    // the box is 40 × 20 page px → 30 × 15 mask pixels
    let m = 0;
    for (let i = 0; i < plane; i++) m += win[plane + i];
    expect(m).toBe(30 * 15);
    // rows below the page (y ≥ 300 page px) read as paper
    expect(win[(WIN_H - 1) * WIN_W + 20]).toBe(0);
    expect(Array.from(geom)).toEqual([100 / W, 200 / H, 140 / W, 220 / H, 20 / 100, 40 / 1000].map(Math.fround));
  });

  it('scales with the page width (a 2× render gives the same window)', () => {
    const draw = (k: number) => {
      const W = 637 * k;
      const H = 200 * k;
      const g = new Float32Array(W * H).fill(255);
      for (let y = 50 * k; y < 60 * k; y++) for (let x = 30 * k; x < 90 * k; x++) g[y * W + x] = 0;
      return reclassWindow(g, H, W, [30 * k, 50 * k, 90 * k, 60 * k] as Box).window;
    };
    const a = draw(1);
    const b = draw(2);
    let diff = 0;
    for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i] - b[i]));
    expect(diff).toBeLessThan(0.35); // bilinear edges differ by at most a fraction of a pixel
    let sa = 0;
    let sb = 0;
    for (let i = 0; i < a.length; i++) (sa += a[i]), (sb += b[i]);
    expect(Math.abs(sa - sb) / sa).toBeLessThan(0.02);
  });
});

describe('relabelFrom', () => {
  const classes = REGION_CLASSES as readonly RegionClass[];
  const allowed = new Set<RegionClass>(['text', 'footnote', 'page_number', 'page_footer']);
  const p = (m: Partial<Record<RegionClass, number>>) => classes.map((c) => m[c] ?? 0);
  it('relabels only to an allowed class the classifier is sure of', () => {
    expect(relabelFrom(p({ page_number: 0.97, page_footer: 0.03 }), classes, allowed, 'page_footer', 0.9)).toBe('page_number');
    expect(relabelFrom(p({ page_number: 0.8, page_footer: 0.2 }), classes, allowed, 'page_footer', 0.9)).toBe('page_footer');
    // the surest class overall is not allowed: the best allowed one (text) is not sure enough
    expect(relabelFrom(p({ table: 0.6, text: 0.4 }), classes, allowed, 'footnote', 0.9)).toBe('footnote');
    expect(relabelFrom(p({ text: 1 }), classes, allowed, 'text', 0.5)).toBe('text');
  });
  it('softmax sums to one and keeps the order', () => {
    const s = softmax([1, 3, -2, 60]);
    expect(s.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    expect(s[3]).toBeCloseTo(1, 6);
    expect(softmax([1000, 1000])[0]).toBeCloseTo(0.5, 6); // no overflow
    expect(s[1]).toBeGreaterThan(s[0]);
  });
});

/** A fake runtime whose classifier calls every region `cls` with p ≈ 1. */
function sureOf(cls: RegionClass): OrtModuleLike {
  const classes = REGION_CLASSES as readonly RegionClass[];
  const c = classes.indexOf(cls);
  return {
    Tensor: class {
      constructor(readonly type: string, readonly data: Float32Array, readonly dims: readonly number[]) {}
    } as unknown as OrtModuleLike['Tensor'],
    InferenceSession: {
      create: async () => ({
        inputNames: ['window', 'geom'],
        outputNames: ['logits'],
        run: async (feeds: Record<string, { dims: readonly number[] }>) => {
          const n = feeds.geom.dims[0];
          const logits = new Float32Array(n * classes.length);
          for (let k = 0; k < n; k++) logits[k * classes.length + c] = 20;
          return { logits: { data: logits, dims: [n, classes.length] } };
        },
      }),
    },
  };
}

describe('RegionClassifier.relabel (fake runtime)', () => {
  // a classifier that calls every region a caption with p ≈ 1
  const classes = REGION_CLASSES as readonly RegionClass[];
  const fake = sureOf('caption');
  const config: ReclassConfig = { model: 'fake.onnx', classes: ['text', 'caption', 'list_item'], min_prob: 0.9 };
  it('makes a caption only beside a table or figure that has none', async () => {
    const rc = await RegionClassifier.create(fake, new Uint8Array(1), classes, config);
    const page = makeImage(1000, 1000, 1);
    page.data.fill(255);
    const fig = { cls: 'figure' as RegionClass, box: [100, 100, 500, 400] as Box, score: 0.9 };
    const under = { cls: 'text' as RegionClass, box: [100, 410, 500, 440] as Box, score: 0.9 };
    const far = { cls: 'text' as RegionClass, box: [100, 700, 500, 740] as Box, score: 0.9 };
    const out = await rc.relabel(page, [fig, under, far]);
    expect(out.map((r) => r.cls)).toEqual(['figure', 'caption', 'text']);
    // the figure already has its caption above: the region below stays text
    const above = { cls: 'caption' as RegionClass, box: [100, 60, 500, 90] as Box, score: 0.9 };
    expect((await rc.relabel(page, [fig, above, under])).map((r) => r.cls)).toEqual(['figure', 'caption', 'text']);
  });
});

describe('onePageNumber', () => {
  const r = (cls: RegionClass, y: number): { cls: RegionClass; box: Box; score: number } => ({ cls, box: [100, y, 160, y + 20], score: 0.9 });
  it('keeps the likeliest page number; the others become a running head or foot by their place', () => {
    const regions = [r('page_number', 40), r('text', 500), r('page_number', 1600), r('page_number', 1620)];
    const p = [0.3, 0, 0.9, 0.6];
    expect(onePageNumber(regions, 1650, (i) => p[i]).map((d) => d.cls)).toEqual(['page_header', 'text', 'page_number', 'page_footer']);
    expect(onePageNumber(regions, 1650, (i) => [0.95, 0, 0.9, 0.6][i]).map((d) => d.cls)).toEqual(['page_number', 'text', 'page_footer', 'page_footer']);
  });
  it('leaves a page with one page number or none as it was', () => {
    const one = [r('page_header', 40), r('page_number', 1600)];
    expect(onePageNumber(one, 1650, () => 0)).toEqual(one);
    expect(onePageNumber([r('text', 40)], 1650, () => 1)).toEqual([r('text', 40)]);
  });
});

describe('RegionClassifier.relabel: a bold heading stays a heading', () => {
  const classes = REGION_CLASSES as readonly RegionClass[];
  // a classifier that calls every region a list item with p ≈ 1
  const fake = sureOf('list_item');
  it('keeps a line with strokes ≥ 1.25× the paragraphs\' as a heading; a regular-weight "heading" may change', async () => {
    const rc = await RegionClassifier.create(fake, new Uint8Array(1), classes, { model: 'fake.onnx', classes: ['text', 'section_heading', 'list_item'], min_prob: 0.9 });
    const page = makeImage(600, 400, 1);
    page.data.fill(255);
    // "letters": vertical strokes w px wide every 8 px over a line 12 px tall
    const strokes = (y: number, w: number) => {
      for (let x = 40; x + w <= 500; x += 8) for (let yy = y; yy < y + 12; yy++) for (let xx = x; xx < x + w; xx++) page.data[yy * 600 + xx] = 0;
    };
    strokes(20, 4); // bold heading
    for (const y of [60, 78, 96]) strokes(y, 2); // body paragraph
    strokes(140, 2); // a regular line called a heading
    const heading = { cls: 'section_heading' as RegionClass, box: [36, 16, 504, 36] as Box, score: 0.9 };
    const body = { cls: 'text' as RegionClass, box: [36, 56, 504, 112] as Box, score: 0.9 };
    const regular = { cls: 'section_heading' as RegionClass, box: [36, 136, 504, 156] as Box, score: 0.9 };
    const out = await rc.relabel(page, [heading, body, regular]);
    expect(out.map((r) => r.cls)).toEqual(['section_heading', 'list_item', 'list_item']);
  });
});

interface Golden {
  page: { height: number; width: number };
  boxes: Box[];
  geom: number[][];
  window_sums: [number, number][];
  window_probe: [number, number, number][];
  logits: number[][];
}

describe.runIf(HAVE)('reclass.onnx vs PyTorch golden vectors', () => {
  const golden: Golden = HAVE ? JSON.parse(readFileSync(`${DIR}/reclass_golden.json`, 'utf8')) : (null as never);
  const { height: H, width: W } = HAVE ? golden.page : { height: 1, width: 1 };
  const img = makeImage(W, H, 1);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) img.data[y * W + x] = (x * 7 + y * 13) % 256;

  it('TS windows match Python', () => {
    const gray = grayPlane(img);
    golden.boxes.forEach((b, k) => {
      const { window: w, geom } = reclassWindow(gray, H, W, b);
      const plane = WIN_H * WIN_W;
      let s0 = 0;
      let s1 = 0;
      for (let i = 0; i < plane; i++) (s0 += w[i]), (s1 += w[plane + i]);
      expect(Math.abs(s0 - golden.window_sums[k][0])).toBeLessThan(1e-2);
      expect(s1).toBe(golden.window_sums[k][1]);
      const probe = [w[5 * WIN_W + 7], w[40 * WIN_W + 100], w[71 * WIN_W + 287]];
      probe.forEach((v, i) => expect(Math.abs(v - golden.window_probe[k][i])).toBeLessThan(1e-5));
      geom.forEach((v, i) => expect(Math.abs(v - golden.geom[k][i])).toBeLessThan(1e-6));
    });
  });

  it('onnxruntime-node logits match PyTorch within 1e-4', async () => {
    const rc = await RegionClassifier.create(ort as unknown as OrtModuleLike, `${DIR}/${CONFIG.reclass.model}`, CONFIG.classes, CONFIG.reclass as ReclassConfig, { intraOpNumThreads: 1 });
    const logits = await rc.logits(img, golden.boxes);
    golden.logits.forEach((l, k) => l.forEach((v, i) => expect(Math.abs(logits[k][i] - v)).toBeLessThan(1e-4)));
    await rc.release();
  });
});
