import { describe, expect, it } from 'vitest';
import { clipBox, decodeDetections, iou, mergeFragments, nms } from './postprocess.ts';
import type { Box, Detection, RegionClass } from './types.ts';

describe('iou / clip', () => {
  it('iou of identical, disjoint, half-overlapping boxes', () => {
    expect(iou([0, 0, 10, 10], [0, 0, 10, 10])).toBe(1);
    expect(iou([0, 0, 10, 10], [10, 0, 20, 10])).toBe(0);
    expect(iou([0, 0, 10, 10], [5, 0, 15, 10])).toBeCloseTo(50 / 150, 12);
  });
  it('clips to the page', () => {
    expect(clipBox([-5, -1, 50, 2000], 40, 1000)).toEqual([0, 0, 40, 1000]);
  });
});

describe('nms', () => {
  it('keeps the best of overlapping boxes, keeps disjoint ones, orders by score', () => {
    const boxes: Box[] = [
      [0, 0, 100, 100],
      [5, 5, 100, 100], // IoU 0.9025 with #0
      [200, 0, 300, 100],
      [0, 0, 100, 40], // IoU 0.4 with #0: kept at 0.5
    ];
    expect(nms(boxes, [0.8, 0.9, 0.5, 0.7], 0.5)).toEqual([1, 3, 2]);
  });
  it('equal scores: lower index wins; threshold is strict (>)', () => {
    expect(nms([[0, 0, 10, 10], [0, 0, 10, 10]], [0.5, 0.5], 0.5)).toEqual([0]);
    // IoU exactly 0.5 is not suppressed
    expect(nms([[0, 0, 10, 10], [0, 0, 10, 5]], [0.9, 0.8], 0.5)).toEqual([0, 1]);
  });
  it('empty input', () => {
    expect(nms([], [], 0.5)).toEqual([]);
  });
});

describe('decodeDetections', () => {
  const classes: RegionClass[] = ['text', 'table', 'figure'];
  // 4 cells × 3 classes
  const scores = new Float32Array([
    0.9, 0.1, 0.0, // cell 0: text
    0.8, 0.0, 0.0, // cell 1: text, same box as cell 0 -> suppressed
    0.0, 0.7, 0.0, // cell 2: table overlapping the text box: other class, kept
    0.05, 0.0, 0.6, // cell 3: figure partly off the page -> clipped
  ]);
  const boxes = new Float32Array([
    10, 10, 50, 30,
    11, 10, 50, 31,
    10, 10, 50, 30,
    40, 40, 90, 70,
  ]);
  it('threshold, class-wise NMS, scale to page, clip, sort', () => {
    const d = decodeDetections(scores, boxes, classes, 0.5, 150, 120, { scoreThreshold: 0.3, nmsIou: 0.5, maxDetections: 10 });
    expect(d.map((x) => x.cls)).toEqual(['text', 'table', 'figure']);
    expect(d[0].box).toEqual([20, 20, 100, 60]);
    expect(d[0].score).toBeCloseTo(0.9, 6);
    expect(d[2].box).toEqual([80, 80, 150, 120]);
  });
  it('maxDetections and threshold', () => {
    expect(decodeDetections(scores, boxes, classes, 1, 1000, 1000, { scoreThreshold: 0.3, nmsIou: 0.5, maxDetections: 1 })).toHaveLength(1);
    expect(decodeDetections(scores, boxes, classes, 1, 1000, 1000, { scoreThreshold: 0.95, nmsIou: 0.5, maxDetections: 9 })).toHaveLength(0);
  });
  it('drops boxes clipped to nothing', () => {
    const d = decodeDetections(new Float32Array([0.9]), new Float32Array([200, 200, 300, 300]), ['text'], 1, 100, 100, {
      scoreThreshold: 0.1,
      nmsIou: 0.5,
      maxDetections: 9,
    });
    expect(d).toEqual([]);
  });
  it('rejects mismatched shapes', () => {
    expect(() => decodeDetections(new Float32Array(6), new Float32Array(4), classes, 1, 1, 1, { scoreThreshold: 0, nmsIou: 0.5, maxDetections: 1 })).toThrow();
  });
});

describe('suppressAcrossClasses', () => {
  const dt = (cls: RegionClass, box: Box, score: number): Detection => ({ cls, box, score });
  it('a weak box straddling two stronger ones is dropped; one mostly outside them stays', async () => {
    const { suppressAcrossClasses, coveredArea } = await import('./postprocess.ts');
    const top = dt('text', [638, 138, 1094, 222], 0.85);
    const bottom = dt('text', [632, 243, 1088, 354], 0.9);
    // rows 189..270: 33 + 27 of its 81 rows under the two boxes (74 %)
    const straddler = dt('text', [634, 189, 1082, 270], 0.66);
    expect(coveredArea(straddler.box, [top.box, bottom.box])).toBe((1082 - 638) * 33 + (1082 - 634) * 27);
    expect(suppressAcrossClasses([bottom, top, straddler], 0.7)).toEqual([bottom, top]);
    // a one-line item 62 % under a two-item box stays
    const two = dt('list_item', [673, 1390, 1160, 1449], 0.83);
    const item = dt('list_item', [684, 1377, 1117, 1411], 0.69);
    expect(suppressAcrossClasses([two, item], 0.7)).toEqual([two, item]);
  });
  it('a weaker text-like box around a display formula goes; a paragraph holding it stays', async () => {
    const { suppressAcrossClasses } = await import('./postprocess.ts');
    const f = dt('formula', [460, 651, 802, 683], 0.62);
    const loose = dt('list_item', [341, 650, 791, 682], 0.55);
    expect(suppressAcrossClasses([f, loose], 0.7)).toEqual([f]);
    const para = dt('text', [100, 600, 1100, 760], 0.55);
    expect(suppressAcrossClasses([f, para], 0.7)).toEqual([f, para]);
  });
  it('drops a lower-scoring duplicate of another class, keeps neighbours', async () => {
    const { suppressAcrossClasses } = await import('./postprocess.ts');
    const d = suppressAcrossClasses(
      [
        { cls: 'list_item' as const, box: [0, 0, 100, 40] as Box, score: 0.5 },
        { cls: 'text' as const, box: [0, 0, 100, 42] as Box, score: 0.6 },
        { cls: 'text' as const, box: [0, 50, 100, 90] as Box, score: 0.4 },
      ],
      0.7,
    );
    expect(d.map((x) => x.score)).toEqual([0.6, 0.4]);
  });
  it('drops a fragment lying inside a better detection', async () => {
    const { suppressAcrossClasses } = await import('./postprocess.ts');
    const d = suppressAcrossClasses(
      [
        { cls: 'text' as const, box: [0, 0, 100, 120] as Box, score: 0.7 },
        { cls: 'text' as const, box: [0, 0, 100, 50] as Box, score: 0.5 }, // IoU 0.42, inside
      ],
      0.7,
    );
    expect(d).toHaveLength(1);
  });
  it('drops a weaker, looser box of the same class around a kept one, not one of another class', async () => {
    const { suppressAcrossClasses } = await import('./postprocess.ts');
    // the e2e fixture's one-line paragraph: [148,234,1051,268] 0.67 and [175,237,1036,295] 0.43
    // (IoU 0.49; the kept box lies 87 % inside the weaker one)
    const line = { cls: 'text' as const, box: [148, 234, 1051, 268] as Box, score: 0.67 };
    const loose = { cls: 'text' as const, box: [175, 237, 1036, 295] as Box, score: 0.43 };
    expect(suppressAcrossClasses([line, loose], 0.7)).toEqual([line]);
    const caption = { ...loose, cls: 'caption' as const };
    expect(suppressAcrossClasses([line, caption], 0.7)).toEqual([line, caption]);
  });
  it('one heading found as title and as a wider section heading is read once; same-row neighbours stay', async () => {
    const { suppressAcrossClasses } = await import('./postprocess.ts');
    // the e2e sample's title: [231,152,767,207] title 0.75 and [123,154,908,212] section_heading 0.52
    const title = { cls: 'title' as const, box: [231, 152, 767, 207] as Box, score: 0.75 };
    const wide = { cls: 'section_heading' as const, box: [123, 154, 908, 212] as Box, score: 0.52 };
    expect(suppressAcrossClasses([title, wide], 0.7)).toEqual([title]);
    // two columns' lines on the same rows, and a table over the same rows, are not duplicates
    const right = { cls: 'text' as const, box: [640, 152, 1100, 207] as Box, score: 0.5 };
    const table = { cls: 'table' as const, box: [123, 154, 908, 212] as Box, score: 0.5 };
    expect(suppressAcrossClasses([title, right], 0.7)).toHaveLength(2);
    expect(suppressAcrossClasses([title, table], 0.7)).toHaveLength(2);
  });
});

describe('mergeFragments', () => {
  const d = (cls: Detection['cls'], box: Box, score: number): Detection => ({ cls, box, score });
  it('unites shifted boxes of one table, keeps the best score, leaves other classes and distant blocks alone', () => {
    const out = mergeFragments([
      d('table', [465, 706, 816, 871], 0.62),
      d('table', [465, 600, 816, 827], 0.45),
      d('table', [465, 900, 816, 1000], 0.7), // touches nothing
      d('text', [465, 700, 816, 760], 0.9), // another class, even where it overlaps
    ]);
    expect(out.map((x) => [x.cls, ...x.box, x.score])).toEqual([
      ['table', 465, 600, 816, 871, 0.62],
      ['table', 465, 900, 816, 1000, 0.7],
      ['text', 465, 700, 816, 760, 0.9],
    ]);
  });
  it('three stacked formula boxes become one; a slight overlap (< 30 % of the smaller) does not merge', () => {
    const three = mergeFragments([d('formula', [496, 1455, 755, 1495], 0.7), d('formula', [496, 1427, 755, 1467], 0.43), d('formula', [496, 1442, 755, 1483], 0.5)]);
    expect(three.map((x) => x.box)).toEqual([[496, 1427, 755, 1495]]);
    expect(mergeFragments([d('formula', [0, 0, 100, 40], 0.7), d('formula', [0, 35, 100, 75], 0.6)])).toHaveLength(2);
  });
});
