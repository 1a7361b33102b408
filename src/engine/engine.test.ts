// The engine in Node on the embedded models (CPU decoder, onnxruntime-node), with the layout
// replaced by ground-truth regions of a committed synthetic page: text regions are read line by
// line (one sequence per strip, in one batch with the rest of the page) and merged back.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { OcrEngine, detailCrop, taskEncoderScale, type LayoutRegion, type PageDetail } from './engine.ts';
import { pageImages } from '../../tools/cli/pages.ts';
import { diskFetcher } from '../../tools/cli/node-engine.ts';
import { readPng } from '../../tools/vision/png.ts';
import { crop } from '../recognizer/image.ts';
import { cropBox } from '../layout/crops.ts';
import type { OrtModuleLike } from '../recognizer/vision.ts';
import type { RegionClass } from '../markdown/types.ts';

const FIX = join(process.cwd(), 'tools/synth/fixtures');
const page = readPng(join(FIX, 'p0950000.png'));
const truth = JSON.parse(readFileSync(join(FIX, 'p0950000.json'), 'utf8')) as { regions: { order: number; cls: RegionClass; box: [number, number, number, number]; lines?: unknown[] }[] };
// a 5-line paragraph, a 2-line list item and a formula
const picked = truth.regions.filter((r) => [2, 6, 7].includes(r.order));
// what the stand-in layout returns (a test may narrow it)
let layoutRegions = picked;

let engine: OcrEngine;
let disposed = false;
let layoutReleased = 0;
beforeAll(async () => {
  engine = await OcrEngine.load(diskFetcher(), {
    ort: ort as unknown as OrtModuleLike,
    ortSessionOptions: { intraOpNumThreads: 1 },
    prefer: 'cpu',
    makeLayout: async () => ({
      name: 'truth',
      detect: async (): Promise<LayoutRegion[]> => layoutRegions.map((r, i) => ({ cls: r.cls, box: r.box, score: 1, order: i })),
      release: async () => void layoutReleased++,
    }),
  });
}, 120_000);
afterAll(() => {
  if (!disposed) engine?.dispose();
});

describe('OcrEngine (line units)', () => {
  it('reads a text region one strip at a time and merges the lines', async () => {
    const settings = { method: 'ar' as const, blockSize: 32, threshold: 0.9, maxNewTokens: 10 };
    const res = await engine.recognizePage(page, 0, settings);
    const para = res.regions.find((r) => r.cls === 'text')!;
    expect(para.strips).toBe(5);
    // tokens carry their line; lines come in order; rounds are renumbered to stay distinct
    const units = para.tokens.map((t) => t.unit);
    expect(new Set(units)).toEqual(new Set([0, 1, 2, 3, 4]));
    expect(units).toEqual([...units].sort((a, b) => a! - b!));
    const rounds = para.rounds.map((r) => r.round);
    expect(rounds).toEqual(rounds.map((_, i) => i));
    expect(para.forwards.ar).toBe(para.rounds.length);

    // the same as decoding each strip alone and joining the texts
    const box = cropBox(para.box, page.width, page.height, 4);
    const u = await engine.regionUnits(crop(page, box), 'text');
    expect(u.prefixes).toHaveLength(5);
    const alone = await engine.decode(u.prefixes, settings);
    expect(para.text).toBe(OcrEngine.joinUnits(alone.map((r) => engine.tokenizer.decode(r.tokens))));
    expect(para.text.split(' ').length).toBeGreaterThan(4);

    // a formula is one sequence
    const f = res.regions.find((r) => r.cls === 'formula')!;
    expect(new Set(f.tokens.map((t) => t.unit))).toEqual(new Set([0]));
    expect(res.markdown).toContain('$$');
  }, 300_000);

  it('a figure region is not read: its page crop comes out named as the Markdown links it', async () => {
    // the stand-in layout calls the table a figure, after one text paragraph
    const table = truth.regions.find((r) => r.cls === 'table')!;
    const para = truth.regions.find((r) => r.order === 8)!;
    layoutRegions = [para, { ...table, cls: 'figure' }];
    try {
      const res = await engine.recognizePage(page, 2, { method: 'ar', blockSize: 32, threshold: 0.9, maxNewTokens: 6 });
      const fig = res.regions.find((r) => r.cls === 'figure')!;
      expect(fig.tokens).toEqual([]);
      expect(fig.stop).toBe('figure');
      expect(res.figures).toHaveLength(1);
      const f = res.figures[0];
      expect(f.name).toBe(`page3-figure${fig.id + 1}.png`);
      expect(f.regionId).toBe(fig.id);
      const want = crop(page, fig.box);
      expect([f.image.width, f.image.height, f.image.channels]).toEqual([want.width, want.height, want.channels]);
      expect(Buffer.from(f.image.data).equals(Buffer.from(want.data))).toBe(true);
      expect(res.markdown).toContain(`![Figure](${f.name})`);
      // a page without figures has none
      layoutRegions = [para];
      expect((await engine.recognizePage(page, 0, { method: 'ar', blockSize: 32, threshold: 0.9, maxNewTokens: 4 })).figures).toEqual([]);
    } finally {
      layoutRegions = picked;
    }
  }, 120_000);

  it('reads formulas with the task encoder that default.json names, other regions with the base one', async () => {
    const index = JSON.parse(readFileSync(join(process.cwd(), 'public/models/default.json'), 'utf8')) as { recognizer: string; visionTasks?: Record<string, string> };
    const formula = picked.find((r) => r.cls === 'formula')!;
    const img = crop(page, cropBox(formula.box, page.width, page.height, 4));
    const u = await engine.regionUnits(img, 'formula');
    expect(u.prefixes).toHaveLength(1);
    const viaTask = await engine.encoderFor('formula').encodeRegion(img, 'formula');
    const viaBase = await engine.vision.encodeRegion(img, 'formula');
    expect(Array.from(u.prefixes[0].vision)).toEqual(Array.from(viaTask.features));
    expect(engine.encoderFor('text')).toBe(engine.vision);
    expect(engine.encoderFor('table')).toBe(engine.vision);
    if (index.visionTasks?.formula) {
      expect(engine.encoderFor('formula')).not.toBe(engine.vision);
      // the manifest's input scale reaches the encoder; rows stay on the 48-px grid
      expect(engine.encoderFor('formula').scale).toBe(taskEncoderScale(engine.manifest, index.recognizer, index.visionTasks.formula));
      expect(viaTask.stripRows).toEqual(viaBase.stripRows);
      let d = 0;
      viaTask.features.forEach((v, i) => { d = Math.max(d, Math.abs(v - viaBase.features[i])); });
      expect(d).toBeGreaterThan(1e-2);
    } else {
      expect(engine.encoderFor('formula')).toBe(engine.vision);
    }
  }, 60_000);

  it('a PDF page gives sharper region crops: renderRect matches the page render, the task encoder reads them', async () => {
    const pdf = new Uint8Array(readFileSync(join(FIX, 'p0950000.pdf')));
    const formula = picked.find((r) => r.cls === 'formula')!;
    const settings = { method: 'ar' as const, blockSize: 32, threshold: 0.9, maxNewTokens: 12 };
    for await (const { image, detail } of pageImages(pdf)) {
      expect(detail).toBeDefined();
      // geometry: the 2x render of a rectangle, averaged 2x2, is the 150-dpi page's pixels there
      const box = cropBox(formula.box, image.width, image.height, 4);
      const sharp = await detail!.render(box, 2);
      expect([sharp.width, sharp.height]).toEqual([(box[2] - box[0]) * 2, (box[3] - box[1]) * 2]);
      const low = crop(image, box);
      let diff = 0, shifted = 0;
      const at = (img: typeof sharp, x: number, y: number) => img.data[(y * img.width + x) * img.channels];
      for (let y = 0; y < low.height; y++) {
        for (let x = 0; x < low.width; x++) {
          const m = (at(sharp, 2 * x, 2 * y) + at(sharp, 2 * x + 1, 2 * y) + at(sharp, 2 * x, 2 * y + 1) + at(sharp, 2 * x + 1, 2 * y + 1)) / 4;
          diff += Math.abs(m - at(low, x, y));
          shifted += Math.abs(m - at(low, Math.min(low.width - 1, x + 2), y));
        }
      }
      const n = low.width * low.height;
      expect(diff / n).toBeLessThan(3);
      expect(shifted / n).toBeGreaterThan(5 * (diff / n));

      // the engine asks for the region at the task encoder's scale and reads what it gets
      layoutRegions = [formula];
      const calls: [number[], number][] = [];
      const spy: PageDetail = { render: (b, s) => (calls.push([[...b], s]), detail!.render(b, s)) };
      try {
        const s = engine.encoderFor('formula').scale;
        const res = await engine.recognizePage(image, 0, settings, { detail: spy });
        const f = res.regions[0];
        if (s > 1) {
          expect(calls).toHaveLength(1);
          expect(f.detail).toBe(s);
          const [b] = calls[0];
          const u = await engine.regionUnits(await detail!.render(b as [number, number, number, number], s), 'formula');
          const alone = await engine.decode(u.prefixes, settings);
          expect(f.text).toBe(engine.tokenizer.decode(alone[0].tokens));
          // a source that fails costs sharpness, not the region
          const broken: PageDetail = { render: async () => { throw new Error('render failed'); } };
          const fallback = await engine.recognizePage(image, 0, settings, { detail: broken });
          expect(fallback.regions[0].detail).toBe(1);
          expect(fallback.regions[0].stop).not.toBe('pending');
        } else {
          expect(calls).toHaveLength(0);
          expect(f.detail).toBe(1);
        }
      } finally {
        layoutRegions = picked;
      }
      break;
    }
  }, 120_000);

  it('detailCrop keeps a render of the asked size and drops anything else', async () => {
    const img = (w: number, h: number) => ({ width: w, height: h, channels: 1 as const, data: new Uint8Array(w * h) });
    const box: [number, number, number, number] = [10, 20, 15, 27];
    expect(await detailCrop({ render: async () => img(10, 14) }, box, 2)).not.toBeNull();
    expect(await detailCrop({ render: async () => img(10, 13) }, box, 2)).toBeNull();
    expect(await detailCrop({ render: async () => ({ ...img(10, 14), data: new Uint8Array(3) }) }, box, 2)).toBeNull();
    expect(await detailCrop({ render: async () => { throw new Error('x'); } }, box, 2)).toBeNull();
    expect(await detailCrop({ render: async () => img(0, 0) }, [5, 5, 5, 9], 2)).toBeNull();
  });

  it('task encoder input scale comes from the manifest entry of that file', () => {
    const man = { vision_tasks: { formula: { file: 'f.onnx', input_scale: 2 }, table: { file: 't.onnx' } } };
    expect(taskEncoderScale(man, 'rec', 'rec/f.onnx')).toBe(2);
    expect(taskEncoderScale(man, 'rec', 'rec/t.onnx')).toBe(1);
    expect(taskEncoderScale(man, 'rec', 'other/f.onnx')).toBe(1);
    expect(taskEncoderScale({}, 'rec', 'rec/f.onnx')).toBe(1);
    expect(() => taskEncoderScale({ vision_tasks: { formula: { file: 'f.onnx', input_scale: 1.5 } } }, 'rec', 'rec/f.onnx')).toThrow(/input_scale 1.5/);
  });

  it('joins units like the corpus joins lines', () => {
    expect(OcrEngine.joinUnits([' a b ', '', 'c', ' d'])).toBe('a b c d');
    expect(OcrEngine.joinUnits([])).toBe('');
  });

  it('a part that fails to load releases the vision sessions already made and reports why', async () => {
    const disk = diskFetcher();
    const fetcher = {
      async fetch(path: string, onProgress?: (loaded: number, total: number) => void) {
        if (path !== 'default.json') return disk.fetch(path, onProgress);
        const index = JSON.parse(new TextDecoder().decode(await disk.fetch(path)));
        return new TextEncoder().encode(JSON.stringify({ ...index, visionTasks: { formula: index.vision } }));
      },
    };
    let created = 0;
    let released = 0;
    const counting = {
      ...ort,
      InferenceSession: {
        async create(model: unknown, options?: unknown) {
          const s = await ort.InferenceSession.create(model as Uint8Array, options as ort.InferenceSession.SessionOptions);
          created++;
          const release = s.release.bind(s);
          return Object.assign(s, { release: async () => (released++, release()) });
        },
      },
    };
    await expect(
      OcrEngine.load(fetcher, {
        ort: counting as unknown as OrtModuleLike,
        ortSessionOptions: { intraOpNumThreads: 1 },
        prefer: 'cpu',
        makeLayout: async () => {
          throw new Error('layout model missing');
        },
      }),
    ).rejects.toThrow('layout model missing');
    expect(created).toBe(2); // the base encoder and the formula encoder
    expect(released).toBe(2);
  });

  it('dispose also releases the layout model (this test runs last: it ends the engine)', () => {
    expect(layoutReleased).toBe(0);
    engine.dispose();
    disposed = true;
    expect(layoutReleased).toBe(1);
  });
});
