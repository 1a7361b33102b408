import { describe, expect, it } from 'vitest';
import type { Image } from '../recognizer/image.ts';
import { indentKind, inkLines, relabelByContext, splitListItem } from './context.ts';
import type { Box, Detection } from './types.ts';

/** white gray page with black bars standing in for text lines: [x0, y0, x1, y1) each */
function page(w: number, h: number, bars: Box[]): Image {
  const data = new Uint8Array(w * h).fill(255);
  for (const [x0, y0, x1, y1] of bars) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * w + x] = 0;
  return { width: w, height: h, channels: 1, data };
}

/** n lines of height 10 with 6 px leading from y0; first line starts at x0 + dFirst, others at x0 */
function para(x0: number, y0: number, n: number, dFirst: number, x1 = 300): Box[] {
  return Array.from({ length: n }, (_, i) => [x0 + (i === 0 ? dFirst : 0), y0 + 16 * i, x1, y0 + 16 * i + 10] as Box);
}

const det = (cls: Detection['cls'], box: Box, score = 0.9): Detection => ({ cls, box, score });

describe('inkLines / indentKind', () => {
  it('finds each line and where it starts', () => {
    const img = page(320, 100, para(20, 10, 3, -8));
    const ls = inkLines(img, [10, 5, 310, 60]);
    expect(ls.map((l) => [l.y0, l.y1, l.x])).toEqual([[10, 20, 12], [26, 36, 20], [42, 52, 20]]);
  });
  it('tells hanging, indented, flush and one-line blocks apart', () => {
    const kind = (bars: Box[]) => indentKind(inkLines(page(320, 100, bars), [0, 0, 320, 100]));
    expect(kind(para(20, 10, 3, -10))).toBe('hanging');
    expect(kind(para(20, 10, 3, 12))).toBe('indent');
    expect(kind(para(20, 10, 3, 2))).toBe('flush');
    expect(kind(para(20, 10, 1, 0))).toBe('one');
  });
});

describe('splitListItem', () => {
  it('splits a box holding two items before the second marker line', () => {
    const bars = [...para(20, 10, 2, -10), ...para(20, 42, 3, -10)];
    const img = page(320, 120, bars);
    const d = det('list_item', [8, 8, 302, 86]);
    const parts = splitListItem(d, inkLines(img, d.box));
    expect(parts.map((p) => p.box)).toEqual([[8, 8, 302, 38], [8, 40, 302, 86]]);
    expect(parts.every((p) => p.cls === 'list_item' && p.score === 0.9)).toBe(true);
  });
  it('leaves a single item (or flush lines) whole', () => {
    const one = page(320, 100, para(20, 10, 4, -10));
    expect(splitListItem(det('list_item', [8, 8, 302, 70]), inkLines(one, [8, 8, 302, 70]))).toHaveLength(1);
    const flush = page(320, 100, para(20, 10, 4, 0));
    expect(splitListItem(det('list_item', [8, 8, 302, 70]), inkLines(flush, [8, 8, 302, 70]))).toHaveLength(1);
  });
});

describe('relabelByContext', () => {
  const H = 1000;
  it('the region next to a table with caption evidence becomes its caption; a stray caption does not', () => {
    // table at y 100..300, a one-line region 10 px below it, a far one-line "caption" at y 700
    const img = page(400, H, [[20, 310, 300, 320], [20, 700, 300, 710]]);
    const table = det('table', [10, 100, 310, 300]);
    const below = det('text', [18, 308, 302, 322], 0.8);
    const stray = det('caption', [18, 698, 302, 712], 0.7);
    const raw = [table, below, stray, det('caption', [18, 308, 302, 322], 0.7), det('text', [18, 698, 302, 712], 0.2)];
    const out = relabelByContext(img, [table, below, stray], raw);
    expect(out.map((d) => d.cls)).toEqual(['table', 'caption', 'text']);
    // inputs untouched
    expect(below.cls).toBe('text');
  });
  it('no or weak caption evidence: the neighbour keeps its class', () => {
    const img = page(400, H, [[20, 310, 300, 320]]);
    const table = det('table', [10, 100, 310, 300]);
    const below = det('text', [18, 308, 302, 322], 0.8);
    expect(relabelByContext(img, [table, below], [table, below]).map((d) => d.cls)).toEqual(['table', 'text']);
    // a caption score of 0.5 beside a text score of 0.8 (< 0.8 × 0.8): a paragraph above an uncaptioned table
    const weak = [table, below, det('caption', [18, 308, 302, 322], 0.5)];
    expect(relabelByContext(img, [table, below], weak).map((d) => d.cls)).toEqual(['table', 'text']);
  });
  it('hanging indent makes a list item, flush lines a paragraph; merged items are split', () => {
    const bars = [...para(20, 10, 2, -10), ...para(20, 42, 2, -10), ...para(20, 120, 3, 0)];
    const img = page(320, 200, bars);
    const list = det('text', [8, 8, 302, 70]);
    const text = det('list_item', [8, 118, 302, 164]);
    const out = relabelByContext(img, [list, text], [list, text]);
    expect(out.map((d) => d.cls)).toEqual(['list_item', 'list_item', 'text']);
    expect(out[0].box[3]).toBeLessThanOrEqual(out[1].box[1]);
  });
});
