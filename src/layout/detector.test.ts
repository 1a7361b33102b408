import { describe, expect, it } from 'vitest';
import { LayoutDetector, operatingPoint, splitEvidence } from './detector.ts';
import type { OrtModuleLike, OrtTensorLike } from '../recognizer/vision.ts';
import type { Detection, LayoutConfig } from './types.ts';

// A fake onnxruntime: the "model" returns two regions (a header and a paragraph) on an 8x8 grid.
const CONFIG: LayoutConfig = {
  input_h: 64, input_w: 64, classes: ['text', 'page_header'], stride: 8, width: 8, fpn_dim: 8,
  score_threshold: 0.3, nms_iou: 0.5, max_detections: 10, cross_class_iou: 0.7,
};
function fakeOrt(seen: { dims?: readonly number[]; sum?: number }): OrtModuleLike {
  class Tensor implements OrtTensorLike {
    constructor(readonly type: string, readonly data: Float32Array, readonly dims: readonly number[]) {}
  }
  return {
    Tensor: Tensor as unknown as OrtModuleLike['Tensor'],
    InferenceSession: {
      async create() {
        return {
          inputNames: ['image'],
          outputNames: ['scores', 'boxes'],
          async run(feeds: Record<string, OrtTensorLike>) {
            const x = feeds.image;
            seen.dims = x.dims;
            seen.sum = (x.data as Float32Array).reduce((a, b) => a + b, 0);
            const cells = 64;
            const scores = new Float32Array(cells * 2);
            const boxes = new Float32Array(cells * 4);
            scores[0 * 2 + 1] = 0.9; // cell 0: page header
            boxes.set([2, 2, 30, 6], 0);
            scores[20 * 2 + 0] = 0.8; // cell 20: text
            boxes.set([4, 12, 60, 40], 20 * 4);
            scores[21 * 2 + 0] = 0.7; // duplicate text, suppressed by NMS
            boxes.set([4, 12, 60, 41], 21 * 4);
            scores[22 * 2 + 1] = 0.5; // the paragraph again as a header: cross-class suppressed
            boxes.set([4, 12, 60, 40], 22 * 4);
            return { scores: { dims: [1, cells, 2], data: scores }, boxes: { dims: [1, cells, 4], data: boxes } };
          },
        };
      },
    },
  };
}

describe('LayoutDetector (fake runtime)', () => {
  it('feeds a (1,1,H,W) tensor, rescales boxes to the page, orders and flags furniture', async () => {
    const seen: { dims?: readonly number[]; sum?: number } = {};
    const det = await LayoutDetector.create(fakeOrt(seen), new Uint8Array(1), CONFIG);
    // 128 x 64 white page with a black square: scale 0.5 into the 64 x 64 input
    const page = { width: 128, height: 64, channels: 1 as const, data: new Uint8Array(128 * 64).fill(255) };
    for (let y = 10; y < 20; y++) for (let x = 10; x < 20; x++) page.data[y * 128 + x] = 0;
    const regions = await det.detect(page);
    expect(seen.dims).toEqual([1, 1, 64, 64]);
    expect(seen.sum).toBeCloseTo(25, 3); // 100 black pixels at 1/4 area each
    expect(regions.map((r) => [r.cls, r.order, r.skipInMarkdown])).toEqual([
      ['page_header', 0, true],
      ['text', 1, false],
    ]);
    expect(regions[1].box).toEqual([8, 24, 120, 64]); // (4,12,60,40)/0.5, clipped to the page height
    const raw = await det.detectRaw(page, { scoreThreshold: 0.6 });
    expect(raw.detections.map((d) => d.cls)).toEqual(['page_header', 'text']);
    expect(raw.letterbox).toEqual({ scale: 0.5, height: 32, width: 64 });
  });

  it('rejects a config that does not fit', async () => {
    await expect(LayoutDetector.create(fakeOrt({}), new Uint8Array(1), { ...CONFIG, classes: ['paragraph'] })).rejects.toThrow(/unknown class/);
    await expect(LayoutDetector.create(fakeOrt({}), new Uint8Array(1), { ...CONFIG, input_h: 60 })).rejects.toThrow(/multiples of stride/);
    await expect(LayoutDetector.create(fakeOrt({}), new Uint8Array(1), { ...CONFIG, class_thresholds: { title: 0.2 } })).rejects.toThrow(/unknown class "title"/);
    await expect(LayoutDetector.create(fakeOrt({}), new Uint8Array(1), { ...CONFIG, class_thresholds: { text: 2 } })).rejects.toThrow(/\[0, 1\]/);
  });

  it('per-class operating points: those of the config apply unless a threshold is given', async () => {
    const page = { width: 128, height: 64, channels: 1 as const, data: new Uint8Array(128 * 64).fill(255) };
    const strict = await LayoutDetector.create(fakeOrt({}), new Uint8Array(1), { ...CONFIG, class_thresholds: { page_header: 0.95 } });
    expect((await strict.detect(page)).map((r) => r.cls)).toEqual(['text']);
    expect((await strict.detect(page, { scoreThreshold: 0.3 })).map((r) => r.cls)).toEqual(['page_header', 'text']);
    const d = (cls: 'text' | 'page_number', score: number, y: number) => ({ cls, score, box: [0, y, 10, y + 5] as [number, number, number, number] });
    const raw = [d('text', 0.5, 0), d('page_number', 0.3, 20), d('text', 0.3, 40)];
    expect(operatingPoint(page, raw, 0.4, 0.7, false, { page_number: 0.25 }).map((x) => x.cls)).toEqual(['text', 'page_number']);
  });
});

describe('splitEvidence', () => {
  const d = (cls: Detection['cls'], score: number, box: Detection['box'] = [10, 10, 200, 30]): Detection => ({ cls, score, box });
  it('keeps a region whose classes together are sure, as its strongest class', () => {
    const raw = [d('section_heading', 0.48), d('text', 0.45, [12, 10, 200, 30]), d('list_item', 0.43), d('caption', 0.41)];
    expect(splitEvidence(raw, [], 0.35, 0.65)).toEqual([raw[0]]);
    // …through the operating point, where no class alone reaches 0.5
    expect(operatingPoint({ width: 300, height: 100, channels: 1, data: new Uint8Array(30000).fill(255) }, raw, 0.5, 0.7, false, {}, [0.35, 0.65])).toEqual([raw[0]]);
    expect(operatingPoint({ width: 300, height: 100, channels: 1, data: new Uint8Array(30000).fill(255) }, raw, 0.5, 0.7, false, {})).toEqual([]);
  });
  it('not below lo, not when the classes together are unsure, not over a region above threshold, not tables', () => {
    expect(splitEvidence([d('text', 0.3), d('caption', 0.3)], [], 0.35, 0.65)).toEqual([]);
    expect(splitEvidence([d('text', 0.45), d('caption', 0.2)], [], 0.35, 0.65)).toEqual([]);
    const sure = d('text', 0.9, [10, 5, 200, 32]);
    expect(splitEvidence([sure, d('section_heading', 0.48), d('text', 0.45)], [sure], 0.35, 0.65)).toEqual([]);
    expect(splitEvidence([d('table', 0.48), d('figure', 0.45), d('formula', 0.43)], [], 0.35, 0.65)).toEqual([]);
  });
});

describe('LayoutDetector with the second look (reclass, fake runtime)', () => {
  // the same detector model, plus a classifier (bytes [2]) that is sure every region is a page header
  function withClassifier(released: string[], logitsName = 'logits'): OrtModuleLike {
    const base = fakeOrt({});
    return {
      Tensor: base.Tensor,
      InferenceSession: {
        async create(model: Uint8Array) {
          if (model[0] !== 2) {
            const s = await base.InferenceSession.create(model);
            return { ...s, release: async () => { released.push('detector'); } };
          }
          return {
            inputNames: ['window', 'geom'],
            outputNames: [logitsName],
            async run(feeds: Record<string, OrtTensorLike>) {
              const n = feeds.window.dims[0];
              expect(feeds.window.dims).toEqual([n, 2, 72, 288]);
              expect(feeds.geom.dims).toEqual([n, 6]);
              const logits = new Float32Array(n * 2);
              for (let k = 0; k < n; k++) logits.set([-5, 5], 2 * k); // text, page_header
              return { [logitsName]: { dims: [n, 2], data: logits } };
            },
            release: async () => { released.push('reclass'); },
          };
        },
      },
    };
  }
  const cfg = { ...CONFIG, reclass: { model: 'reclass.onnx', classes: ['text', 'page_header'], min_prob: 0.9 } } as LayoutConfig;
  const page = { width: 128, height: 64, channels: 1 as const, data: new Uint8Array(128 * 64).fill(255) };

  it('relabels after the operating point and before the reading order; off with reclass: false', async () => {
    const released: string[] = [];
    const det = await LayoutDetector.create(withClassifier(released), new Uint8Array([1]), cfg, undefined, new Uint8Array([2]));
    expect((await det.detect(page)).map((r) => [r.cls, r.skipInMarkdown])).toEqual([['page_header', true], ['page_header', true]]);
    expect((await det.detect(page, { reclass: false })).map((r) => r.cls)).toEqual(['page_header', 'text']);
    // without the classifier's bytes the config's reclass is off
    const plain = await LayoutDetector.create(withClassifier([]), new Uint8Array([1]), cfg);
    expect((await plain.detect(page)).map((r) => r.cls)).toEqual(['page_header', 'text']);
    await det.release();
    expect(released.sort()).toEqual(['detector', 'reclass']);
  });

  it('a classifier without the expected output is refused and both sessions are released', async () => {
    const released: string[] = [];
    await expect(LayoutDetector.create(withClassifier(released, 'probs'), new Uint8Array([1]), cfg, undefined, new Uint8Array([2]))).rejects.toThrow(/no output "logits"/);
    expect(released.sort()).toEqual(['detector', 'reclass']);
  });
});
